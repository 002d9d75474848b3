"""``POST /validate/browser``: a web page validates the address a visitor typed, with a publishable key.

In order: the page's origin must be one the key allows (else 403, before anything is counted); then the
visitor's and the key's minute windows (``throttle``: full, the form is answered ``unknown``, reason
``throttled``, and goes on); then the key's own daily and monthly budget (``budget``: past it, 429
``PUBLISHABLE_KEY_BUDGET_EXCEEDED``); then one validation is charged to the account's quota under the job's
id, marked as the key's: it stops at the quota (429, never billed overage) and never counts in the
account's request windows, which are its servers'. Then the validation runs within the page's time budget
(``answers.validate_within``); each answer carries a verdict token for the page's server to confirm, saying
whether the verdict is authoritative (``authoritative``): only the result of a check the service finished
is. A refusal is an answer the widget fails open on: the form goes on, and its server decides alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from models.audit import AuditEvent
from services import audit_folding
from services.auth import AuthContext
from services.browser import budget, throttle, tokens
from services.browser.errors import OriginNotAllowed
from services.browser.verdicts import Verdict, checker_degraded, summarise, throttled
from services.jobs.options import JobOptions
from services.keys import origins
from services.usage.errors import QuotaExhausted
from services.usage.quota import QuotaStatus
from services.usage.rate_limits import Window
from services.validation import answers
from services.validation.answers import Single
from settings import get_settings
from verifier.syntax import result_email

ORIGIN_SHOWN_MAX = 300  # an Origin header is the caller's text: the audit entry keeps this much of it


@dataclass(frozen=True)
class BrowserAnswer:
    verdict: Verdict
    token: str
    expires_at: datetime
    authoritative: bool
    quota: QuotaStatus | None = None  # what its charge left (None: nothing was charged)
    budget: Window | None = None  # the key's budget window closest to exhaustion (None: not counted)


def answer(
    auth: AuthContext, email: str, *, origin: str | None, visitor_ip: str | None, seconds: float
) -> BrowserAnswer:
    """The form's answer for ``email`` within ``seconds``, with its token."""
    ensure_origin(auth, origin)
    if not throttle.admit(auth.account, auth.key.id, visitor_ip):
        return _answered(auth, throttled(result_email(email)), None, authoritative=False)
    spent = budget.spend(auth)
    try:
        single, quota = answers.validate_within(auth, email, _options(auth), seconds)
    except QuotaExhausted:
        budget.give_back(auth)
        raise
    verdict = summarise(single.result)
    return _answered(
        auth, verdict, single.public_id, quota, spent.binding, authoritative=authoritative(single)
    )


def _options(auth: AuthContext) -> JobOptions:
    max_age = get_settings().jobs.recent_max_age
    return JobOptions.for_account(
        auth.account, quick_mode=False, skip_catch_all=False, max_age=max_age, livemode=auth.livemode
    )


def authoritative(single: Single) -> bool:
    """Whether ``single`` is the service's finished word on the address: its settled result (or a recent
    one it reuses), not one drawn as the time budget ran out, not an interim one while retries go on, not
    from a checker that reached no mail server at all. A mail server that would not say (greylisting, a
    slow reply past the SMTP deadline) is part of a finished check: validating again says the same."""
    return not (single.timed_out or single.retrying or checker_degraded(single.result))


def ensure_origin(auth: AuthContext, origin: str | None) -> None:
    """Refuse a page not on the key's allowed origins (audited, folded per key, visitor and minute)."""
    if origins.permits(auth.key.allowed_origins, origin):
        return
    shown = (origin or "")[:ORIGIN_SHOWN_MAX] or None
    audit_folding.record_folded(
        AuditEvent.ORIGIN_DENIED,
        account_id=auth.account.id,
        key_id=auth.key.id,
        origin=auth.origin,
        details={"origin": shown},
    )
    page = f"the page at {shown}" if shown else "a request without an Origin header"
    raise OriginNotAllowed(
        f"This publishable key may be used only from the web pages its owner allowed, and {page} is not "
        "one of them. The owner lists them as allowedOrigins on the key (dashboard: API keys)."
    )


def _answered(
    auth: AuthContext,
    verdict: Verdict,
    validation_id: str | None,
    quota: QuotaStatus | None = None,
    spent: Window | None = None,
    *,
    authoritative: bool,
) -> BrowserAnswer:
    issued = tokens.issue(
        auth.account.id,
        auth.key.id,
        verdict,
        validation_id,
        authoritative=authoritative,
        livemode=auth.livemode,
    )
    return BrowserAnswer(verdict, issued.token, issued.expires_at, authoritative, quota, spent)
