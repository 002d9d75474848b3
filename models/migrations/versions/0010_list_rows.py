"""Lists users can trust: each item's duplicate key and first occurrence, an uploaded CSV row's own cells,
and the header of the uploaded file.

Revision ID: 0010_list_rows
Revises: 0009_resellers
Create Date: 2026-11-26 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0010_list_rows'
down_revision: str | None = '0009_resellers'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('job_items', sa.Column('key', sa.Text(), nullable=True))
    op.add_column('job_items', sa.Column('duplicate_of', sa.Integer(), nullable=True))
    op.add_column('job_items', sa.Column('cells', postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.add_column('validation_jobs', sa.Column('columns', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('validation_jobs', 'columns')
    op.drop_column('job_items', 'cells')
    op.drop_column('job_items', 'duplicate_of')
    op.drop_column('job_items', 'key')
