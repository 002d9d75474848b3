"""Recent verdicts: an account's latest final verdict per address, so ``options.maxAge`` answers it again
from its item without probing.

Revision ID: 0021_recent_verdicts
Revises: 0020_group_held_by
Create Date: 2026-12-04 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021_recent_verdicts'
down_revision: str | None = '0020_group_held_by'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'recent_verdicts',
        sa.Column('account_id', sa.BigInteger(), nullable=False),
        sa.Column('variant', sa.String(length=32), nullable=False),
        sa.Column('email', sa.Text(), nullable=False),
        sa.Column('checked_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('job_id', sa.BigInteger(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ['account_id'],
            ['accounts.id'],
            name=op.f('fk_recent_verdicts_account_id_accounts'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('account_id', 'variant', 'email', name=op.f('pk_recent_verdicts')),
    )


def downgrade() -> None:
    op.drop_table('recent_verdicts')
