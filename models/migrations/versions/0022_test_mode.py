"""Test mode: keys, jobs, webhook endpoints, events and audit entries say whether they are live or test data.

Every existing row is live (``true``); test-mode rows are made only by test keys (``sk_test_``/``pk_test_``)
and the dashboard's test switch, and every read asks for one mode.

Revision ID: 0022_test_mode
Revises: 0021_recent_verdicts
Create Date: 2026-12-03 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0022_test_mode'
down_revision: str | None = '0021_recent_verdicts'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ('api_keys', 'validation_jobs', 'webhook_endpoints', 'events', 'audit_log')
IDEMPOTENCY_INDEX = 'uq_validation_jobs_account_id_idempotency_key'


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column('livemode', sa.Boolean(), nullable=False, server_default=sa.true()))
    # An Idempotency-Key is the client's per mode: a test request must not meet a live job's key.
    _idempotency_index('account_id', 'livemode', 'idempotency_key')


def downgrade() -> None:
    _idempotency_index('account_id', 'idempotency_key')
    for table in TABLES:
        op.drop_column(table, 'livemode')


def _idempotency_index(*columns: str) -> None:
    op.drop_index(IDEMPOTENCY_INDEX, table_name='validation_jobs')
    op.create_index(
        IDEMPOTENCY_INDEX,
        'validation_jobs',
        list(columns),
        unique=True,
        postgresql_where=sa.text('idempotency_key IS NOT NULL'),
    )
