"""Enterprise Plus resellers: terms, sub-users and their tier history, white-label, custom domains,
commission reports; account suspension; a per-email sender.

Revision ID: 0009_resellers
Revises: 0007_job_idempotency
Create Date: 2026-11-24 15:58:08.814483
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009_resellers'
down_revision: str | None = "0008_dashboard"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('commission_reports',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('reseller_id', sa.BigInteger(), nullable=False),
    sa.Column('period', sa.String(length=7), nullable=False),
    sa.Column('commission_rate', sa.Numeric(precision=5, scale=2), nullable=False),
    sa.Column('total_revenue_cents', sa.BigInteger(), nullable=False),
    sa.Column('commission_cents', sa.BigInteger(), nullable=False),
    sa.Column('closed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['reseller_id'], ['accounts.id'], name=op.f('fk_commission_reports_reseller_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_commission_reports')),
    sa.UniqueConstraint('reseller_id', 'period', name=op.f('uq_commission_reports_reseller_id'))
    )
    op.create_table('custom_domains',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('reseller_id', sa.BigInteger(), nullable=False),
    sa.Column('hostname', sa.String(length=253), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('verified_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['reseller_id'], ['accounts.id'], name=op.f('fk_custom_domains_reseller_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_custom_domains')),
    sa.UniqueConstraint('public_id', name=op.f('uq_custom_domains_public_id')),
    sa.UniqueConstraint('reseller_id', 'hostname', name=op.f('uq_custom_domains_reseller_id'))
    )
    op.create_index('uq_custom_domains_verified_hostname', 'custom_domains', ['hostname'], unique=True, postgresql_where='verified_at IS NOT NULL')
    op.create_table('reseller_terms',
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('max_sub_users', sa.Integer(), nullable=True),
    sa.Column('commission_rate', sa.Numeric(precision=5, scale=2), server_default='20.00', nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('commission_rate BETWEEN 0 AND 100', name=op.f('ck_reseller_terms_commission_rate_percent')),
    sa.CheckConstraint('max_sub_users IS NULL OR max_sub_users >= 0', name=op.f('ck_reseller_terms_max_sub_users_not_negative')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_reseller_terms_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('account_id', name=op.f('pk_reseller_terms'))
    )
    op.create_table('sub_users',
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('reseller_id', sa.BigInteger(), nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_sub_users_account_id_accounts'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['reseller_id'], ['accounts.id'], name=op.f('fk_sub_users_reseller_id_accounts'), ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('account_id', name=op.f('pk_sub_users')),
    sa.UniqueConstraint('public_id', name=op.f('uq_sub_users_public_id'))
    )
    op.create_index(op.f('ix_sub_users_reseller_id'), 'sub_users', ['reseller_id'], unique=False)
    op.create_index('uq_sub_users_reseller_email_live', 'sub_users', ['reseller_id', 'email'], unique=True, postgresql_where='deleted_at IS NULL')
    op.create_table('white_labels',
    sa.Column('reseller_id', sa.BigInteger(), nullable=False),
    sa.Column('enabled', sa.Boolean(), server_default=sa.text('false'), nullable=False),
    sa.Column('provider', sa.Text(), nullable=True),
    sa.Column('support', sa.Text(), nullable=True),
    sa.Column('documentation', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint('NOT enabled OR (provider IS NOT NULL AND support IS NOT NULL AND documentation IS NOT NULL)', name=op.f('ck_white_labels_complete_when_enabled')),
    sa.ForeignKeyConstraint(['reseller_id'], ['accounts.id'], name=op.f('fk_white_labels_reseller_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('reseller_id', name=op.f('pk_white_labels'))
    )
    op.create_table('commission_lines',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('report_id', sa.BigInteger(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('sub_user_id', sa.String(length=40), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('requests', sa.BigInteger(), nullable=False),
    sa.Column('revenue_cents', sa.BigInteger(), nullable=False),
    sa.Column('commission_cents', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['report_id'], ['commission_reports.id'], name=op.f('fk_commission_lines_report_id_commission_reports'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_commission_lines')),
    sa.UniqueConstraint('report_id', 'position', name=op.f('uq_commission_lines_report_id'))
    )
    op.create_table('sub_user_tiers',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('tier', sa.String(length=32), nullable=False),
    sa.Column('effective_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['sub_users.account_id'], name=op.f('fk_sub_user_tiers_account_id_sub_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sub_user_tiers'))
    )
    op.create_index('ix_sub_user_tiers_account_effective', 'sub_user_tiers', ['account_id', 'effective_at'], unique=False)
    op.add_column('accounts', sa.Column('suspended_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('outbound_mail', sa.Column('sender', sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column('outbound_mail', 'sender')
    op.drop_column('accounts', 'suspended_at')
    op.drop_index('ix_sub_user_tiers_account_effective', table_name='sub_user_tiers')
    op.drop_table('sub_user_tiers')
    op.drop_table('commission_lines')
    op.drop_table('white_labels')
    op.drop_index('uq_sub_users_reseller_email_live', table_name='sub_users', postgresql_where='deleted_at IS NULL')
    op.drop_index(op.f('ix_sub_users_reseller_id'), table_name='sub_users')
    op.drop_table('sub_users')
    op.drop_table('reseller_terms')
    op.drop_index('uq_custom_domains_verified_hostname', table_name='custom_domains', postgresql_where='verified_at IS NOT NULL')
    op.drop_table('custom_domains')
    op.drop_table('commission_reports')
