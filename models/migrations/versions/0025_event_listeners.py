"""Event listeners (``python -m verimail_webhooks listen``) and the events queued for each.

Revision ID: 0025_event_listeners
Revises: 0024_sandbox_usage
Create Date: 2026-12-08 00:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0025_event_listeners'
down_revision: str | None = '0024_sandbox_usage'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'event_listeners',
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('account_id', sa.BigInteger(), nullable=False),
        sa.Column('livemode', sa.Boolean(), nullable=False),
        sa.Column('events', postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column('key_id', sa.BigInteger(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['account_id'],
            ['accounts.id'],
            name=op.f('fk_event_listeners_account_id_accounts'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_event_listeners')),
    )
    op.create_index(
        'ix_event_listeners_account_mode_expires',
        'event_listeners',
        ['account_id', 'livemode', 'expires_at'],
        unique=False,
    )
    op.create_table(
        'listener_events',
        sa.Column('listener_id', sa.String(length=40), nullable=False),
        sa.Column('event_id', sa.String(length=40), nullable=False),
        sa.ForeignKeyConstraint(
            ['event_id'], ['events.id'], name=op.f('fk_listener_events_event_id_events'), ondelete='CASCADE'
        ),
        sa.ForeignKeyConstraint(
            ['listener_id'],
            ['event_listeners.id'],
            name=op.f('fk_listener_events_listener_id_event_listeners'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('listener_id', 'event_id', name=op.f('pk_listener_events')),
    )
    op.create_index(op.f('ix_listener_events_event_id'), 'listener_events', ['event_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_listener_events_event_id'), table_name='listener_events')
    op.drop_table('listener_events')
    op.drop_index('ix_event_listeners_account_mode_expires', table_name='event_listeners')
    op.drop_table('event_listeners')
