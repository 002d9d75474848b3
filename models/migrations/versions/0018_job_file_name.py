"""A bulk list keeps the name of the file it was uploaded as, to be shown and downloaded by it.

Revision ID: 0018_job_file_name
Revises: 0017_dashboard_sessions
Create Date: 2026-11-27 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018_job_file_name'
down_revision: str | None = '0017_dashboard_sessions'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('validation_jobs', sa.Column('file_name', sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column('validation_jobs', 'file_name')
