"""Browser validation: the web origins allowed to use a key's publishable half, and the verdict tokens
confirmed so far (a second confirmation of one is refused).

Revision ID: 0019_browser_validation
Revises: 0018_job_file_name
Create Date: 2026-12-01 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0019_browser_validation'
down_revision: str | None = '0018_job_file_name'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        'api_keys',
        sa.Column('allowed_origins', postgresql.ARRAY(sa.Text()), server_default='{}', nullable=False),
    )
    op.create_table(
        'confirmed_verdict_tokens',
        sa.Column('token_id', sa.String(length=32), nullable=False),
        sa.Column('account_id', sa.BigInteger(), nullable=False),
        sa.Column('confirmed_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['account_id'],
            ['accounts.id'],
            name=op.f('fk_confirmed_verdict_tokens_account_id_accounts'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('token_id', name=op.f('pk_confirmed_verdict_tokens')),
    )
    op.create_index(
        op.f('ix_confirmed_verdict_tokens_expires_at'), 'confirmed_verdict_tokens', ['expires_at'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_confirmed_verdict_tokens_expires_at'), table_name='confirmed_verdict_tokens')
    op.drop_table('confirmed_verdict_tokens')
    op.drop_column('api_keys', 'allowed_origins')
