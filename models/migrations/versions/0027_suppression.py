"""The suppression list: suppressed addresses per account and mode with their evidence, every bounce
received (the history), soft-bounce counters, and the signed inbound sources (secrets hashed).

Revision ID: 0027_suppression
Revises: 0026_monitored_lists
Create Date: 2026-12-07 23:58:10.191433
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0027_suppression'
down_revision: str | None = '0026_monitored_lists'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('inbound_sources',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('public_id', sa.String(length=40), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('livemode', sa.Boolean(), server_default=sa.text('true'), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('secret_hash', sa.LargeBinary(), nullable=False),
    sa.Column('secret_hint', sa.String(length=8), nullable=False),
    sa.Column('verification_key', sa.Text(), nullable=True),
    sa.Column('signing_key_nonce', sa.LargeBinary(), nullable=True),
    sa.Column('signing_key_sealed', sa.LargeBinary(), nullable=True),
    sa.Column('topic_arn', sa.Text(), nullable=True),
    sa.Column('confirm_url', sa.Text(), nullable=True),
    sa.Column('received', sa.BigInteger(), server_default='0', nullable=False),
    sa.Column('last_received_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("kind IN ('ses', 'sendgrid', 'postmark', 'mailgun', 'upload')", name=op.f('ck_inbound_sources_kind_known')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_inbound_sources_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_inbound_sources')),
    sa.UniqueConstraint('public_id', name=op.f('uq_inbound_sources_public_id'))
    )
    op.create_index('ix_inbound_sources_account_mode', 'inbound_sources', ['account_id', 'livemode'], unique=False)
    op.create_table('soft_bounces',
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('livemode', sa.Boolean(), nullable=False),
    sa.Column('address', sa.Text(), nullable=False),
    sa.Column('count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('last_diagnostic_code', sa.Text(), nullable=True),
    sa.Column('last_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_soft_bounces_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('account_id', 'livemode', 'address', name=op.f('pk_soft_bounces'))
    )
    op.create_table('bounce_events',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('livemode', sa.Boolean(), server_default=sa.text('true'), nullable=False),
    sa.Column('source_id', sa.BigInteger(), nullable=True),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('message_id', sa.Text(), nullable=True),
    sa.Column('address', sa.Text(), nullable=False),
    sa.Column('email', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('diagnostic_code', sa.Text(), nullable=True),
    sa.Column('occurred_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("kind IN ('hard', 'soft', 'complaint', 'manual')", name=op.f('ck_bounce_events_kind_known')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_bounce_events_account_id_accounts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_id'], ['inbound_sources.id'], name=op.f('fk_bounce_events_source_id_inbound_sources'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_bounce_events')),
    sa.UniqueConstraint('source_id', 'message_id', 'address', name='uq_bounce_events_message')
    )
    op.create_index('ix_bounce_events_address', 'bounce_events', ['account_id', 'livemode', 'address'], unique=False)
    op.create_table('suppressed_addresses',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=False),
    sa.Column('livemode', sa.Boolean(), server_default=sa.text('true'), nullable=False),
    sa.Column('address', sa.Text(), nullable=False),
    sa.Column('email', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('source_id', sa.BigInteger(), nullable=True),
    sa.Column('diagnostic_code', sa.Text(), nullable=True),
    sa.Column('bounced_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("kind IN ('hard', 'soft', 'complaint', 'manual')", name=op.f('ck_suppressed_addresses_kind_known')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_suppressed_addresses_account_id_accounts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_id'], ['inbound_sources.id'], name=op.f('fk_suppressed_addresses_source_id_inbound_sources'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_suppressed_addresses')),
    sa.UniqueConstraint('account_id', 'livemode', 'address', name='uq_suppressed_addresses_key')
    )
    op.create_index('ix_suppressed_addresses_page', 'suppressed_addresses', ['account_id', 'livemode', 'id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_suppressed_addresses_page', table_name='suppressed_addresses')
    op.drop_table('suppressed_addresses')
    op.drop_index('ix_bounce_events_address', table_name='bounce_events')
    op.drop_table('bounce_events')
    op.drop_table('soft_bounces')
    op.drop_index('ix_inbound_sources_account_mode', table_name='inbound_sources')
    op.drop_table('inbound_sources')
