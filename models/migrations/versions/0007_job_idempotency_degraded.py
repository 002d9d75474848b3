"""Validation jobs: client Idempotency-Key with the request's digest, and the checker-degraded record.

Revision ID: 0007_job_idempotency
Revises: 0006_key_last_used
Create Date: 2026-11-21 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0007_job_idempotency'
down_revision: str | None = '0006_key_last_used'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('validation_jobs', sa.Column('idempotency_key', sa.String(length=255), nullable=True))
    op.add_column('validation_jobs', sa.Column('request_digest', sa.String(length=64), nullable=True))
    op.add_column(
        'validation_jobs',
        sa.Column('checker_degraded', sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_index(
        'uq_validation_jobs_account_id_idempotency_key', 'validation_jobs', ['account_id', 'idempotency_key'],
        unique=True, postgresql_where='idempotency_key IS NOT NULL',
    )
    op.add_column('job_groups', sa.Column('unreachable', sa.Boolean(), nullable=True))
    op.add_column('job_groups', sa.Column('outcome', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('job_groups', 'outcome')
    op.drop_column('job_groups', 'unreachable')
    op.drop_index('uq_validation_jobs_account_id_idempotency_key', table_name='validation_jobs')
    op.drop_column('validation_jobs', 'checker_degraded')
    op.drop_column('validation_jobs', 'request_digest')
    op.drop_column('validation_jobs', 'idempotency_key')
