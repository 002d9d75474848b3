"""Usage: billing-period quota records and idempotent usage charges.

Revision ID: 0003_usage
Revises: 0002_webhooks
Create Date: 2026-11-21 08:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003_usage'
down_revision: str | None = '0002_webhooks'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('usage_periods',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('period_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('period_end', sa.DateTime(timezone=True), nullable=False),
    sa.Column('quota_limit', sa.BigInteger(), nullable=False),
    sa.Column('used', sa.BigInteger(), server_default='0', nullable=False),
    sa.Column('warning_sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('exceeded_sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('blocked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('overage', sa.BigInteger(), nullable=True),
    sa.CheckConstraint('used >= 0', name=op.f('ck_usage_periods_used_not_negative')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_usage_periods_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_usage_periods')),
    sa.UniqueConstraint('account_id', 'period_start', name=op.f('uq_usage_periods_account_id'))
    )
    op.create_index('ix_usage_periods_open_end', 'usage_periods', ['period_end'], unique=False, postgresql_where='closed_at IS NULL')
    op.create_table('usage_charges',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('period_id', sa.BigInteger(), nullable=False),
    sa.Column('idempotency_key', sa.Text(), nullable=False),
    sa.Column('validations', sa.Integer(), nullable=False),
    sa.Column('charged_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('validations > 0', name=op.f('ck_usage_charges_validations_positive')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_usage_charges_account_id_accounts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['period_id'], ['usage_periods.id'], name=op.f('fk_usage_charges_period_id_usage_periods'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_usage_charges')),
    sa.UniqueConstraint('account_id', 'idempotency_key', name=op.f('uq_usage_charges_account_id'))
    )
    op.create_index('ix_usage_charges_account_charged_at', 'usage_charges', ['account_id', 'charged_at'], unique=False)
    op.create_index(op.f('ix_usage_charges_period_id'), 'usage_charges', ['period_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_usage_charges_period_id'), table_name='usage_charges')
    op.drop_index('ix_usage_charges_account_charged_at', table_name='usage_charges')
    op.drop_table('usage_charges')
    op.drop_index('ix_usage_periods_open_end', table_name='usage_periods')
    op.drop_table('usage_periods')
