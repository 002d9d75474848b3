"""Two foreign keys fewer share-lock an account's or a key's row on every quick validation: a charge's
account is checked against its period row (which the charge holds locked anyway), a job's key is a plain id.

Revision ID: 0011_hot_row_foreign_keys
Revises: 0010_list_rows
Create Date: 2026-11-24 21:30:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0011_hot_row_foreign_keys'
down_revision: str | None = '0010_list_rows'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_unique_constraint(op.f('uq_usage_periods_id'), 'usage_periods', ['id', 'account_id'])
    op.drop_constraint('fk_usage_charges_account_id_accounts', 'usage_charges', type_='foreignkey')
    op.drop_constraint('fk_usage_charges_period_id_usage_periods', 'usage_charges', type_='foreignkey')
    op.create_foreign_key(
        op.f('fk_usage_charges_period_id_usage_periods'), 'usage_charges', 'usage_periods',
        ['period_id', 'account_id'], ['id', 'account_id'], ondelete='CASCADE',
    )
    op.drop_constraint('fk_validation_jobs_key_id_api_keys', 'validation_jobs', type_='foreignkey')


def downgrade() -> None:
    # Jobs of keys deleted meanwhile lose their key id, as ON DELETE SET NULL would have done.
    op.execute('UPDATE validation_jobs SET key_id = NULL WHERE key_id NOT IN (SELECT id FROM api_keys)')
    op.create_foreign_key(
        op.f('fk_validation_jobs_key_id_api_keys'), 'validation_jobs', 'api_keys',
        ['key_id'], ['id'], ondelete='SET NULL',
    )
    op.drop_constraint('fk_usage_charges_period_id_usage_periods', 'usage_charges', type_='foreignkey')
    op.create_foreign_key(
        op.f('fk_usage_charges_period_id_usage_periods'), 'usage_charges', 'usage_periods',
        ['period_id'], ['id'], ondelete='CASCADE',
    )
    op.create_foreign_key(
        op.f('fk_usage_charges_account_id_accounts'), 'usage_charges', 'accounts',
        ['account_id'], ['id'], ondelete='CASCADE',
    )
    op.drop_constraint(op.f('uq_usage_periods_id'), 'usage_periods', type_='unique')
