"""Plans are granted, not taken: a self-serve account opens on the trial with the plan it asked for beside
it, and its owner's email must be verified before its keys work.

Accounts that exist already were opened by the operator, by a reseller or by a sign-up that kept its plan:
they keep their tier and are taken as verified, so no customer's keys stop working with this migration.

Revision ID: 0016_verified_owners_and_trials
Revises: 0015_custom_domain_recheck
Create Date: 2026-11-26 23:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016_verified_owners_and_trials'
down_revision: str | None = '0015_custom_domain_recheck'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIERS = "'trial', 'growth', 'pro', 'business', 'scale', 'enterprise', 'enterprise_plus'"
OLD_TIERS = "'growth', 'pro', 'business', 'scale', 'enterprise', 'enterprise_plus'"


def upgrade() -> None:
    op.drop_constraint(op.f('ck_accounts_tier_known'), 'accounts', type_='check')
    op.create_check_constraint(op.f('ck_accounts_tier_known'), 'accounts', f"tier IN ({TIERS})")
    op.add_column('accounts', sa.Column('email_verified_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('accounts', sa.Column('requested_tier', sa.String(length=32), nullable=True))
    op.execute("UPDATE accounts SET email_verified_at = created_at")
    op.create_table(
        'email_verification_tokens',
        sa.Column('id', sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column('user_id', sa.BigInteger(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['dashboard_users.id'], name=op.f('fk_email_verification_tokens_user_id_dashboard_users'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_email_verification_tokens')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_email_verification_tokens_token_hash')),
    )
    op.create_index(
        op.f('ix_email_verification_tokens_user_id'), 'email_verification_tokens', ['user_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_email_verification_tokens_user_id'), table_name='email_verification_tokens')
    op.drop_table('email_verification_tokens')
    op.drop_column('accounts', 'requested_tier')
    op.drop_column('accounts', 'email_verified_at')
    op.drop_constraint(op.f('ck_accounts_tier_known'), 'accounts', type_='check')
    op.create_check_constraint(op.f('ck_accounts_tier_known'), 'accounts', f"tier IN ({OLD_TIERS})")
