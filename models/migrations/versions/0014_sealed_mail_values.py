"""Outbound mail keeps the values its bodies must not hold in clear (reset and verification links) sealed
under KEY_SEALING_KEY until the message is sent or given up on.

Revision ID: 0014_sealed_mail_values
Revises: 0013_retired_secrets
Create Date: 2026-11-26 22:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014_sealed_mail_values'
down_revision: str | None = '0013_retired_secrets'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('outbound_mail', sa.Column('sealed_nonce', sa.LargeBinary(), nullable=True))
    op.add_column('outbound_mail', sa.Column('sealed_values', sa.LargeBinary(), nullable=True))
    # Reset links written in clear before: cut the token out of every stored body.
    for column in ('text_body', 'html_body'):
        op.execute(
            f"UPDATE outbound_mail SET {column} = regexp_replace({column}, "
            "'/dashboard/reset-password/[A-Za-z0-9_-]+', '/dashboard/reset-password/(removed)', 'g') "
            f"WHERE {column} LIKE '%/dashboard/reset-password/%'"
        )


def downgrade() -> None:
    op.drop_column('outbound_mail', 'sealed_values')
    op.drop_column('outbound_mail', 'sealed_nonce')
