"""Monitored lists: a finished bulk list re-checked on a schedule, its runs and the addresses that changed.

Revision ID: 0026_monitored_lists
Revises: 0025_event_listeners
Create Date: 2026-12-08 00:00:21.276350
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0026_monitored_lists'
down_revision: str | None = '0025_event_listeners'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('monitored_lists',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('source_job_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('addresses', sa.Integer(), nullable=False),
    sa.Column('schedule', sa.String(length=8), nullable=False),
    sa.Column('paused', sa.Boolean(), nullable=False),
    sa.Column('next_run_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_monitored_lists_account_id_accounts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_job_id'], ['validation_jobs.id'], name=op.f('fk_monitored_lists_source_job_id_validation_jobs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_monitored_lists')),
    sa.UniqueConstraint('public_id', name=op.f('uq_monitored_lists_public_id')),
    sa.UniqueConstraint('source_job_id', name=op.f('uq_monitored_lists_source_job_id'))
    )
    op.create_index('ix_monitored_lists_account_id', 'monitored_lists', ['account_id'], unique=False)
    op.create_index('ix_monitored_lists_due', 'monitored_lists', ['next_run_at'], unique=False, postgresql_where='NOT paused')
    op.create_table('monitor_runs',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('list_id', sa.BigInteger(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('job_id', sa.BigInteger(), nullable=True),
    sa.Column('baseline_job_id', sa.BigInteger(), nullable=False),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('changed', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['baseline_job_id'], ['validation_jobs.id'], name=op.f('fk_monitor_runs_baseline_job_id_validation_jobs'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['job_id'], ['validation_jobs.id'], name=op.f('fk_monitor_runs_job_id_validation_jobs'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['list_id'], ['monitored_lists.id'], name=op.f('fk_monitor_runs_list_id_monitored_lists'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_monitor_runs')),
    sa.UniqueConstraint('job_id', name=op.f('uq_monitor_runs_job_id')),
    sa.UniqueConstraint('list_id', 'number', name=op.f('uq_monitor_runs_list_id'))
    )
    op.create_table('monitor_changes',
    sa.Column('run_id', sa.BigInteger(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('email', sa.Text(), nullable=False),
    sa.Column('previous_severity', sa.String(length=8), nullable=True),
    sa.Column('previous_reason', sa.Text(), nullable=True),
    sa.Column('severity', sa.String(length=8), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['run_id'], ['monitor_runs.id'], name=op.f('fk_monitor_changes_run_id_monitor_runs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('run_id', 'position', name=op.f('pk_monitor_changes'))
    )


def downgrade() -> None:
    op.drop_table('monitor_changes')
    op.drop_table('monitor_runs')
    op.drop_index('ix_monitored_lists_due', table_name='monitored_lists', postgresql_where='NOT paused')
    op.drop_index('ix_monitored_lists_account_id', table_name='monitored_lists')
    op.drop_table('monitored_lists')
