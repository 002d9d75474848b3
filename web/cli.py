"""Operator commands: ``flask --app web accounts create|grant|issue-key``, ``resellers set``, ``egress
status`` and ``openapi``; each prints one JSON object (``egress status`` a table, unless ``--json``)."""

from __future__ import annotations

import json
import sys
from decimal import Decimal, InvalidOperation

import click
from email_validator import EmailNotValidError, validate_email
from flask import current_app
from flask.cli import AppGroup, with_appcontext

from models.accounts import PAID_TIERS, Tier
from services import accounts as accounts_service
from services.egress import pool
from services.errors import ServiceError
from services.resellers import terms as terms_service
from services.users import passwords, signup
from services.users.errors import WeakPassword
from web import openapi

accounts = AppGroup("accounts", help="Open accounts and issue their admin keys.")


def checked_email(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise click.BadParameter(str(error)) from None


@accounts.command("create")
@click.option("--email", required=True, callback=checked_email, help="The owner's email address.")
@click.option(
    "--tier", required=True, type=click.Choice([tier.value for tier in PAID_TIERS]), help="The plan."
)
@click.option("--name", default=None, help="A display name for the account.")
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Also give the owner a dashboard sign-in, with the password read from standard input.",
)
def create(email: str, tier: str, name: str | None, password_stdin: bool) -> None:
    """Open an account with an admin key (scope *:*); the secret is printed once, here."""
    password = read_password() if password_stdin else None
    if password is not None and not signup.email_free(email):
        raise click.UsageError(f"{email} already signs in to a dashboard; choose another email.")
    opened = accounts_service.open_account(email, Tier(tier), name)
    if password is not None:
        signup.add_owner(opened.account.id, password)
    key = opened.admin_key
    click.echo(
        json.dumps(
            {
                "accountId": opened.account.id,
                "tier": opened.account.tier,
                "secretKey": key.secret,
                "publishableKey": key.key.publishable_key,
                "testSecretKey": opened.test_key.secret,
                "testPublishableKey": opened.test_key.key.publishable_key,
            }
        )
    )


def read_password() -> str:
    """The first line of standard input (``printf '%s' "$PW" | flask ... --password-stdin``), checked first,
    so a weak password opens no account."""
    password = sys.stdin.readline().rstrip("\r\n")
    try:
        passwords.check_strength(password)
    except WeakPassword as error:
        raise click.BadParameter(error.message, param_hint="--password-stdin") from None
    return password


@accounts.command("grant")
@click.option("--account", "account_id", required=True, type=int, help="The account to put on a plan.")
@click.option(
    "--tier", required=True, type=click.Choice([tier.value for tier in PAID_TIERS]), help="The plan."
)
def grant(account_id: int, tier: str) -> None:
    """Grant a plan (after payment, or a contract): limits, quota and features follow at once."""
    try:
        account = accounts_service.grant_plan(account_id, Tier(tier))
    except ServiceError as error:
        raise click.UsageError(error.message) from None
    click.echo(json.dumps({"accountId": account.id, "tier": account.tier, "requestedTier": None}))


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


resellers = AppGroup("resellers", help="Set Enterprise Plus resellers' terms.")
UNLIMITED = "unlimited"


def sub_user_cap(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> int | terms_service.Keep | None:
    if value is None:
        return terms_service.Keep.KEEP
    if value.strip().lower() == UNLIMITED:
        return None
    if not value.strip().isdigit():
        raise click.BadParameter("a whole number (0 or more) or 'unlimited'")
    return int(value)


def percent(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Decimal | terms_service.Keep:
    if value is None:
        return terms_service.Keep.KEEP
    try:
        return Decimal(value.strip())
    except InvalidOperation:
        raise click.BadParameter("a percentage such as 20 or 17.5") from None


@resellers.command("set")
@click.option("--account", "account_id", required=True, type=int, help="The reseller's account id.")
@click.option("--max-sub-users", callback=sub_user_cap, help="A whole number, or 'unlimited'.")
@click.option("--commission-rate", callback=percent, help="Percent of sub-users' revenue (default 20).")
def set_terms(
    account_id: int,
    max_sub_users: int | terms_service.Keep | None,
    commission_rate: Decimal | terms_service.Keep,
) -> None:
    """Cap a reseller's sub-users and/or set its commission rate; prints the terms now in force."""
    try:
        terms = terms_service.set_terms(
            account_id, max_sub_users=max_sub_users, commission_rate=commission_rate
        )
    except ServiceError as error:
        raise click.ClickException(error.message) from None
    cap = UNLIMITED if terms.max_sub_users is None else terms.max_sub_users
    click.echo(
        json.dumps(
            {"accountId": account_id, "maxSubUsers": cap, "commissionRate": float(terms.commission_rate)}
        )
    )


egress = AppGroup("egress", help="See the egress pool probes leave from (SMTP_EGRESS).")


@egress.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def egress_status(as_json: bool) -> None:
    """Every configured egress: id, kind, address or proxy (never its password), HELO name, sender, and its
    counters (sessions open/total, RCPTs, blocks by MX address, out of use until, last error); ``*``
    marks the egresses new sessions leave over."""
    statuses = pool.pool_status()
    if as_json:
        click.echo(json.dumps({"egresses": [status.to_dict() for status in statuses]}))
        return
    for status in statuses:
        mark = "*" if status.in_use else " "
        click.echo(f"{mark} {status.egress.id}  helo={status.helo}  mailFrom={status.mail_from}")
        blocked = ", ".join(f"{mx} x{count}" for mx, count in status.blocks.items()) or "none"
        counted = f"sessions={status.sessions_open}/{status.sessions_total}  rcpts={status.rcpts}"
        click.echo(f"    {counted}  blocks={blocked}")
        if status.backoff_until or status.last_error:
            click.echo(f"    backoffUntil={status.backoff_until}  lastError={status.last_error}")


@click.command("openapi")
@with_appcontext
def openapi_document() -> None:
    """Print the API description that GET /openapi.json serves (no database needed): the TypeScript client
    generates its types from it (clients/typescript: npm run generate)."""
    click.echo(json.dumps(openapi.cached(current_app), indent=2))
