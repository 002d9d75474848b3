"""A claimed group names the hold it was claimed under, so the sweeper can tell a live claim from one whose
worker is gone without waiting for its lease.

Revision ID: 0020_group_held_by
Revises: 0019_browser_validation
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020_group_held_by'
down_revision: str | None = '0019_browser_validation'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('job_groups', sa.Column('held_by', sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column('job_groups', 'held_by')
