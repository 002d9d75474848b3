"""Retired secrets: the SHA-256 of a secret a key was rotated away from or deleted with, so that a request
presenting it is a failed authentication in its account's audit log.

Revision ID: 0013_retired_secrets
Revises: 0012_charges_period_index
Create Date: 2026-11-26 21:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013_retired_secrets'
down_revision: str | None = '0012_charges_period_index'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'retired_secrets',
        sa.Column('secret_hash', sa.String(length=64), nullable=False),
        sa.Column('account_id', sa.BigInteger(), nullable=False),
        sa.Column('key_id', sa.BigInteger(), nullable=False),
        sa.Column('reason', sa.String(length=16), nullable=False),
        sa.Column('retired_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
        sa.ForeignKeyConstraint(
            ['account_id'], ['accounts.id'], name=op.f('fk_retired_secrets_account_id_accounts'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('secret_hash', name=op.f('pk_retired_secrets')),
    )
    op.create_index(op.f('ix_retired_secrets_account_id'), 'retired_secrets', ['account_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_retired_secrets_account_id'), table_name='retired_secrets')
    op.drop_table('retired_secrets')
