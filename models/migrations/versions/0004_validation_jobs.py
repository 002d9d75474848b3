"""Validation jobs: jobs, their items (one per submitted address) and domain groups (the unit of work).

Revision ID: 0004_jobs
Revises: 0003_usage
Create Date: 2026-11-21 07:59:45.770506
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0004_jobs'
down_revision: str | None = '0003_usage'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('validation_jobs',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('key_id', sa.BigInteger(), nullable=True),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('source', sa.Text(), nullable=True),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('processed', sa.Integer(), nullable=False),
    sa.Column('valid', sa.Integer(), nullable=False),
    sa.Column('warning', sa.Integer(), nullable=False),
    sa.Column('invalid', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('planned_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('deadline', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_validation_jobs_account_id_accounts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['key_id'], ['api_keys.id'], name=op.f('fk_validation_jobs_key_id_api_keys'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_validation_jobs')),
    sa.UniqueConstraint('public_id', name=op.f('uq_validation_jobs_public_id'))
    )
    op.create_index('ix_validation_jobs_account_id_created_at', 'validation_jobs', ['account_id', 'created_at'], unique=False)
    op.create_table('job_groups',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('job_id', sa.BigInteger(), nullable=False),
    sa.Column('domain', sa.Text(), nullable=False),
    sa.Column('emails', postgresql.ARRAY(sa.Text()), nullable=False),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('enqueued_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['job_id'], ['validation_jobs.id'], name=op.f('fk_job_groups_job_id_validation_jobs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_job_groups'))
    )
    op.create_index('ix_job_groups_job_id_state', 'job_groups', ['job_id', 'state'], unique=False)
    op.create_index('ix_job_groups_open', 'job_groups', ['state'], unique=False, postgresql_where="state IN ('pending', 'queued', 'running')")
    op.create_table('job_items',
    sa.Column('job_id', sa.BigInteger(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('input', sa.Text(), nullable=False),
    sa.Column('email', sa.Text(), nullable=True),
    sa.Column('domain', sa.Text(), nullable=True),
    sa.Column('state', sa.String(length=8), nullable=False),
    sa.Column('score', sa.SmallInteger(), nullable=True),
    sa.Column('severity', sa.String(length=8), nullable=True),
    sa.Column('result', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.ForeignKeyConstraint(['job_id'], ['validation_jobs.id'], name=op.f('fk_job_items_job_id_validation_jobs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('job_id', 'position', name=op.f('pk_job_items'))
    )
    op.create_index('ix_job_items_job_id_email', 'job_items', ['job_id', 'email'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_job_items_job_id_email', table_name='job_items')
    op.drop_table('job_items')
    op.drop_index('ix_job_groups_open', table_name='job_groups', postgresql_where="state IN ('pending', 'queued', 'running')")
    op.drop_index('ix_job_groups_job_id_state', table_name='job_groups')
    op.drop_table('job_groups')
    op.drop_index('ix_validation_jobs_account_id_created_at', table_name='validation_jobs')
    op.drop_table('validation_jobs')
