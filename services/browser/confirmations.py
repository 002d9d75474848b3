"""``POST /validate/confirm``: a form's server checks the verdict token its page passed on, once.

The server sends the token and the address the form submitted, with its secret key. It gets the verdict
back only when the token is genuine, unexpired, issued to a key of the same account (and mode), about that
very address, and confirmed for the first time; each refusal names its reason (``services.browser.errors``).
A genuine token whose verdict is not authoritative (throttled, or answered before the check finished)
confirms nothing: the answer says so and tells the server to validate the address itself, and the token is
not spent, since there is nothing to replay.

The first confirmation is remembered in Postgres (``confirmed_verdict_tokens``, one row per token until it
would have expired anyway): a Redis restart or failover must not let a token be confirmed twice, and the
rows are few (one per form submitted) and purged by the retention sweep (``services.retention``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.dialects.postgresql import insert

from core import clock
from models.browser import ConfirmedToken
from models.session import transaction
from services.auth import AuthContext
from services.browser import tokens
from services.browser.errors import TokenAlreadyConfirmed, TokenEmailMismatch, TokenOfAnotherAccount
from services.browser.tokens import Claims
from verifier.syntax import result_email


@dataclass(frozen=True)
class Confirmed:
    """A genuine token's claims: confirmed now (``confirmed_at``) when authoritative, else not, with the
    reason and what to do instead (``advice``)."""

    claims: Claims
    confirmed_at: datetime | None
    advice: str | None = None


def confirm(auth: AuthContext, token: str, email: str) -> Confirmed:
    """The token's claims, confirmed now for the first and only time if its verdict is authoritative."""
    claims = tokens.read(token)
    # A test key's tokens (sandbox verdicts) confirm with test keys only, live ones with live keys only.
    if claims.account_id != auth.account.id or claims.mode != tokens.mode_of(auth.livemode):
        raise TokenOfAnotherAccount(
            "This verdict token was issued to another account's key, or in the other mode (test or live): "
            "confirm tokens with a secret key of the account and mode whose publishable key the page used."
        )
    if result_email(email) != claims.verdict.email:
        raise TokenEmailMismatch(
            f"This verdict token is about {claims.verdict.email}, not the address the form submitted: the "
            "visitor changed the address after it was checked, or the token belongs to another form."
        )
    if not claims.authoritative:
        return Confirmed(claims, None, _not_a_check(claims))
    return Confirmed(claims, _remember(auth, claims))


def _not_a_check(claims: Claims) -> str:
    why = (
        "nothing was validated (the page's request was throttled)"
        if claims.verdict.reason == "throttled"
        else "the page was answered before the check finished (or with no mail server reached)"
    )
    return (
        f"This verdict is not confirmed: it is not the result of a completed check, since {why}. Do not "
        f"trust it; validate {claims.verdict.email} from your server with POST /validate."
    )


def _remember(auth: AuthContext, claims: Claims) -> datetime:
    """Record the confirmation; ``TokenAlreadyConfirmed`` when this token was confirmed before."""
    now = clock.now()
    row = {"token_id": claims.token_id, "account_id": auth.account.id, "confirmed_at": now}
    stmt = insert(ConfirmedToken).values(**row, expires_at=claims.expires_at)
    with transaction() as session:
        first = session.execute(stmt.on_conflict_do_nothing().returning(ConfirmedToken.token_id)).first()
    if first is None:
        raise TokenAlreadyConfirmed(
            "This verdict token was confirmed before: a token confirms one form submission. A second one "
            "is a replay (the same token sent with another submission); validate the address again."
        )
    return now
