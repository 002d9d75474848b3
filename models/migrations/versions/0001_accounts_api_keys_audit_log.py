"""Foundation schema: accounts (tier, billing anchor, reseller parent), API keys, audit log.

Revision ID: 0001
Revises: 
Create Date: 2026-11-21 07:54:02.584341
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    
    op.create_table('accounts',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('owner_email', sa.String(length=254), nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('tier', sa.String(length=32), nullable=False),
    sa.Column('billing_anchor', sa.DateTime(timezone=True), nullable=False),
    sa.Column('parent_account_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("tier IN ('growth', 'pro', 'business', 'scale', 'enterprise', 'enterprise_plus')", name=op.f('ck_accounts_tier_known')),
    sa.ForeignKeyConstraint(['parent_account_id'], ['accounts.id'], name=op.f('fk_accounts_parent_account_id_accounts'), ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_accounts'))
    )
    op.create_index(op.f('ix_accounts_parent_account_id'), 'accounts', ['parent_account_id'], unique=False)
    op.create_table('api_keys',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('scopes', postgresql.ARRAY(sa.Text()), nullable=False),
    sa.Column('allowed_ips', postgresql.ARRAY(sa.Text()), server_default='{}', nullable=False),
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('secret_last4', sa.String(length=4), nullable=False),
    sa.Column('publishable_key', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('secret_issued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('auto_rotate', sa.Boolean(), server_default=sa.text('false'), nullable=False),
    sa.Column('deactivated_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('active', 'grace', 'inactive')", name=op.f('ck_api_keys_status_known')),
    sa.CheckConstraint('char_length(name) BETWEEN 5 AND 100', name=op.f('ck_api_keys_name_length')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_api_keys_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_keys')),
    sa.UniqueConstraint('publishable_key', name=op.f('uq_api_keys_publishable_key')),
    sa.UniqueConstraint('secret_hash', name=op.f('uq_api_keys_secret_hash'))
    )
    op.create_index(op.f('ix_api_keys_account_id'), 'api_keys', ['account_id'], unique=False)
    op.create_index(op.f('ix_api_keys_secret_issued_at'), 'api_keys', ['secret_issued_at'], unique=False)
    op.create_table('audit_log',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=True),
    sa.Column('key_id', sa.BigInteger(), nullable=True),
    sa.Column('event', sa.String(length=64), nullable=False),
    sa.Column('ip', sa.String(length=64), nullable=True),
    sa.Column('user_agent', sa.Text(), nullable=True),
    sa.Column('details', postgresql.JSONB(astext_type=sa.Text()), server_default='{}', nullable=False),
    sa.Column('occurred_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_audit_log_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    op.create_index('ix_audit_log_account_event_time', 'audit_log', ['account_id', 'event', 'occurred_at'], unique=False)
    op.create_index('ix_audit_log_account_id_id', 'audit_log', ['account_id', 'id'], unique=False)



def downgrade() -> None:
    
    op.drop_index('ix_audit_log_account_id_id', table_name='audit_log')
    op.drop_index('ix_audit_log_account_event_time', table_name='audit_log')
    op.drop_table('audit_log')
    op.drop_index(op.f('ix_api_keys_secret_issued_at'), table_name='api_keys')
    op.drop_index(op.f('ix_api_keys_account_id'), table_name='api_keys')
    op.drop_table('api_keys')
    op.drop_index(op.f('ix_accounts_parent_account_id'), table_name='accounts')
    op.drop_table('accounts')

