"""Test mode's usage: the validations a test key ran in each billing period, counted apart from the quota.

Revision ID: 0024_sandbox_usage
Revises: 0023_publishable_budget
Create Date: 2026-12-07 21:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0024_sandbox_usage'
down_revision: str | None = '0023_publishable_budget'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'sandbox_usage',
        sa.Column('account_id', sa.BigInteger(), nullable=False),
        sa.Column('period_start', sa.DateTime(timezone=True), nullable=False),
        sa.Column('used', sa.BigInteger(), server_default='0', nullable=False),
        sa.ForeignKeyConstraint(
            ['account_id'],
            ['accounts.id'],
            name=op.f('fk_sandbox_usage_account_id_accounts'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('account_id', 'period_start', name=op.f('pk_sandbox_usage')),
    )


def downgrade() -> None:
    op.drop_table('sandbox_usage')
