"""Verified custom domains are looked up again on a schedule: since when a domain's record has been missing.

Revision ID: 0015_custom_domain_recheck
Revises: 0014_sealed_mail_values
Create Date: 2026-11-26 22:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0015_custom_domain_recheck'
down_revision: str | None = '0014_sealed_mail_values'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('custom_domains', sa.Column('missing_since', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column('custom_domains', 'missing_since')
