"""Key rotation: milestones reached per secret generation, sealed auto-rotated secrets, outbound mail.

Revision ID: 0005_rotation
Revises: 0004_jobs
Create Date: 2026-11-21 08:00:01.088128
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005_rotation'
down_revision: str | None = '0004_jobs'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('outbound_mail',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('account_id', sa.BigInteger(), nullable=True),
    sa.Column('recipient', sa.String(length=254), nullable=False),
    sa.Column('subject', sa.Text(), nullable=False),
    sa.Column('text_body', sa.Text(), nullable=False),
    sa.Column('html_body', sa.Text(), nullable=False),
    sa.Column('message_id', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
    sa.Column('max_attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('queued_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('queued', 'sent', 'failed')", name=op.f('ck_outbound_mail_status_known')),
    sa.CheckConstraint('attempts >= 0', name=op.f('ck_outbound_mail_attempts_not_negative')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_outbound_mail_account_id_accounts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_outbound_mail')),
    sa.UniqueConstraint('message_id', name=op.f('uq_outbound_mail_message_id'))
    )
    op.create_index(op.f('ix_outbound_mail_account_id'), 'outbound_mail', ['account_id'], unique=False)
    op.create_index('ix_outbound_mail_due', 'outbound_mail', ['next_attempt_at'], unique=False, postgresql_where="status = 'queued'")
    op.create_table('key_rotation_notices',
    sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column('key_id', sa.BigInteger(), nullable=False),
    sa.Column('milestone', sa.String(length=32), nullable=False),
    sa.Column('secret_issued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reached_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('mail_id', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['key_id'], ['api_keys.id'], name=op.f('fk_key_rotation_notices_key_id_api_keys'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['mail_id'], ['outbound_mail.id'], name=op.f('fk_key_rotation_notices_mail_id_outbound_mail'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_key_rotation_notices')),
    sa.UniqueConstraint('key_id', 'milestone', 'secret_issued_at', name=op.f('uq_key_rotation_notices_key_id'))
    )
    op.create_index(op.f('ix_key_rotation_notices_mail_id'), 'key_rotation_notices', ['mail_id'], unique=False)
    op.create_table('sealed_secrets',
    sa.Column('key_id', sa.BigInteger(), nullable=False),
    sa.Column('secret_issued_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('nonce', sa.LargeBinary(), nullable=False),
    sa.Column('ciphertext', sa.LargeBinary(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('sealed_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['key_id'], ['api_keys.id'], name=op.f('fk_sealed_secrets_key_id_api_keys'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('key_id', name=op.f('pk_sealed_secrets'))
    )
    op.create_index(op.f('ix_sealed_secrets_expires_at'), 'sealed_secrets', ['expires_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_sealed_secrets_expires_at'), table_name='sealed_secrets')
    op.drop_table('sealed_secrets')
    op.drop_index(op.f('ix_key_rotation_notices_mail_id'), table_name='key_rotation_notices')
    op.drop_table('key_rotation_notices')
    op.drop_index('ix_outbound_mail_due', table_name='outbound_mail', postgresql_where="status = 'queued'")
    op.drop_index(op.f('ix_outbound_mail_account_id'), table_name='outbound_mail')
    op.drop_table('outbound_mail')
