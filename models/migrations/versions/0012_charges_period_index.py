"""No index on a charge's period alone: nothing looks charges up by period but the cascade from a deleted
period, which the (account_id, ...) indexes serve; every quick validation paid one more index write for it.

Revision ID: 0012_charges_period_index
Revises: 0011_hot_row_foreign_keys
Create Date: 2026-11-25 01:45:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0012_charges_period_index'
down_revision: str | None = '0011_hot_row_foreign_keys'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index(op.f('ix_usage_charges_period_id'), table_name='usage_charges')


def downgrade() -> None:
    op.create_index(op.f('ix_usage_charges_period_id'), 'usage_charges', ['period_id'], unique=False)
