"""A publishable key's own budget: what web pages may have validated with it per day and per billing period,
and which charges answered a publishable key (its budget's record, kept out of the account's request windows).

Every existing key gets the default budget (100 a day, 1,000 a period); existing charges were all counted in
the account's windows and stay so (``publishable_key_id`` null).

Revision ID: 0023_publishable_budget
Revises: 0022_test_mode
Create Date: 2026-12-07 21:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0023_publishable_budget'
down_revision: str | None = '0022_test_mode'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BUDGETS = (('publishable_daily_budget', 100, 'daily'), ('publishable_monthly_budget', 1000, 'monthly'))


def upgrade() -> None:
    for column, default, span in BUDGETS:
        op.add_column('api_keys', sa.Column(column, sa.Integer(), nullable=False, server_default=str(default)))
        op.create_check_constraint(op.f(f'ck_api_keys_{span}_budget_not_negative'), 'api_keys', f'{column} >= 0')
    op.add_column('usage_periods', sa.Column('publishable_used', sa.BigInteger(), nullable=False, server_default='0'))
    op.add_column('usage_charges', sa.Column('publishable_key_id', sa.BigInteger(), nullable=True))
    op.create_index(
        'ix_usage_charges_publishable_key_charged_at',
        'usage_charges',
        ['publishable_key_id', 'charged_at'],
        postgresql_where=sa.text('publishable_key_id IS NOT NULL'),
    )


def downgrade() -> None:
    op.drop_index('ix_usage_charges_publishable_key_charged_at', table_name='usage_charges')
    op.drop_column('usage_charges', 'publishable_key_id')
    op.drop_column('usage_periods', 'publishable_used')
    for column, _, span in BUDGETS:
        op.drop_constraint(op.f(f'ck_api_keys_{span}_budget_not_negative'), 'api_keys', type_='check')
        op.drop_column('api_keys', column)
