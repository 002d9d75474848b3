"""Operator commands: ``flask --app web accounts create|issue-key``; each prints one JSON object."""

from __future__ import annotations

import json

import click
from email_validator import EmailNotValidError, validate_email
from flask.cli import AppGroup

from models.accounts import Tier
from services import accounts as accounts_service

accounts = AppGroup("accounts", help="Open accounts and issue their admin keys.")


def checked_email(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise click.BadParameter(str(error)) from None


@accounts.command("create")
@click.option("--email", required=True, callback=checked_email, help="The owner's email address.")
@click.option("--tier", required=True, type=click.Choice([tier.value for tier in Tier]), help="The plan.")
@click.option("--name", default=None, help="A display name for the account.")
def create(email: str, tier: str, name: str | None) -> None:
    """Open an account with an admin key (scope *:*); the secret is printed once, here."""
    opened = accounts_service.open_account(email, Tier(tier), name)
    key = opened.admin_key
    click.echo(
        json.dumps(
            {
                "accountId": opened.account.id,
                "tier": opened.account.tier,
                "secretKey": key.secret,
                "publishableKey": key.key.publishable_key,
            }
        )
    )


@accounts.command("issue-key")
@click.option("--account-id", required=True, type=int, help="The account that needs a new admin key.")
def issue_key(account_id: int) -> None:
    """Issue a new admin key for an account, e.g. after revoke-all left it without any."""
    issued = accounts_service.issue_admin_key(account_id)
    click.echo(
        json.dumps(
            {
                "accountId": account_id,
                "keyId": issued.key.id,
                "secretKey": issued.secret,
                "publishableKey": issued.key.publishable_key,
            }
        )
    )
