"""Dashboard sessions live on the server: a row per signed-in browser, ended by sign-out, a password change or
its owner; the cookie holds only a random token.

Revision ID: 0017_dashboard_sessions
Revises: 0016_verified_owners_and_trials
Create Date: 2026-11-26 23:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017_dashboard_sessions'
down_revision: str | None = '0016_verified_owners_and_trials'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'dashboard_sessions',
        sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column('user_id', sa.BigInteger(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('last_seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('ip', sa.String(length=64), nullable=True),
        sa.Column('user_agent', sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['dashboard_users.id'], name=op.f('fk_dashboard_sessions_user_id_dashboard_users'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_dashboard_sessions')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_dashboard_sessions_token_hash')),
    )
    op.create_index(op.f('ix_dashboard_sessions_user_id'), 'dashboard_sessions', ['user_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_dashboard_sessions_user_id'), table_name='dashboard_sessions')
    op.drop_table('dashboard_sessions')
