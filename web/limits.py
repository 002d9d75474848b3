"""Rate limits and quota on the wire, in one place: admission, the 429 answers and the headers.

Headers (docs/plans.md lists them for clients):

- ``X-RateLimit-Limit`` / ``-Remaining`` / ``-Reset`` on every API response. They describe the window the
  caller is closest to exhausting (usually the minute, the day late in a busy day; see
  ``RateStatus.binding``); ``Reset`` is Unix seconds, the same number as the 429 body's ``reset``.
  Routes that do not validate are not counted, but still report the windows. A caller without a valid
  key is described by its client's anonymous windows (``ANONYMOUS_REQUESTS_PER_MINUTE``/``_PER_DAY``):
  failed authentications count there, and past them are answered 429.
- ``X-Quota-State``, ``X-Quota-Limit``, ``X-Quota-Used``, ``X-Quota-Reset`` (Unix seconds) and a readable
  ``X-Quota-Warning`` once the monthly quota is at 80% or more (``warning``, ``grace``, ``blocked``).
- An answer to a publishable key counted in its own budget (``POST /validate/browser``) describes, in
  ``X-RateLimit-*``, the budget window (day or billing period) closest to exhaustion instead: the
  account's windows are its servers', and the page's answers do not count in them.
- ``Retry-After`` (seconds) on every 429, equal to the body's ``retryAfter``.

Reading the windows and the quota for headers is best effort: if Redis or Postgres is unreachable the response
goes out without them rather than failing (or masking the real error of) a request that had nothing to do
with rate_limits. Admission itself is not best effort.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import Flask, Response, g, request
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from services.auth import Actor, AuthContext
from services.browser.errors import BudgetExhausted
from services.usage import charging, rate_limits, recent_errors
from services.usage.errors import QuotaExhausted, RateLimited
from services.usage.quota import QuotaState, QuotaStatus
from services.usage.rate_limits import RateStatus, Window
from web import errors
from web.auth import RATE_LIMITED, current_auth, guarding
from web.client_ip import client_ip

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger(__name__)
DASHBOARD = "dashboard"  # the blueprint of the pages for people


def rate_limited(view: Callable[P, R]) -> Callable[P, R]:
    """Count the request against the rate limit before the view runs (put it under ``@require_scope``,
    so a key without the scope is refused without using up its account's allowance)."""

    @wraps(view)
    def admitted(*args: P.args, **kwargs: P.kwargs) -> R:
        g.auth, g.rate_status = guarding(lambda: rate_limits.admit_request(current_auth()))
        return view(*args, **kwargs)

    setattr(admitted, RATE_LIMITED, True)  # read by /openapi.json (its 429 answers)
    return admitted


def rate_limited_as(actor: Callable[[], Actor]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``rate_limited`` for a dashboard page that validates: the request counted against ``actor()``'s
    account, the same windows, refusal and audit entry as a key's, before the page reads its form (put it
    under ``@sign_in_required``). Pages carry no limit headers, so nothing is kept for them."""

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def admitted(*args: P.args, **kwargs: P.kwargs) -> R:
            rate_limits.admit_request(actor())
            return view(*args, **kwargs)

        return admitted

    return decorate


def charged(quota: QuotaStatus | None) -> None:
    """The quota this request's charge left, for its headers (``add_limit_headers``); None when it charged
    nothing (a replayed request): the headers then read the period as it stands."""
    if quota is not None:
        g.quota_status = quota


def budgeted(window: Window | None) -> None:
    """The publishable key's budget window this answer was counted in, for its headers in place of the
    account's windows (which a publishable key's answers do not count in); None: it was not counted."""
    if window is not None:
        g.limit_window = window


def on_budget_exhausted(error: BudgetExhausted) -> Response:
    g.limit_window = error.window
    return _with_retry_after(errors.on_service_error(error), error.extra["retryAfter"])


def on_rate_limited(error: RateLimited) -> Response:
    g.rate_status = error.status
    return _with_retry_after(errors.on_service_error(error), error.extra["retryAfter"])


def on_quota_exhausted(error: QuotaExhausted) -> Response:
    g.quota_status = error.status
    return _with_retry_after(errors.on_service_error(error), error.extra["retryAfter"])


def _with_retry_after(response: Response, seconds: object) -> Response:
    response.headers["Retry-After"] = str(seconds)
    return response


def add_limit_headers(response: Response) -> Response:
    """``after_request``: the rate-limit headers on every API response and, from 80% of the quota, the quota
    headers. A caller without a valid key (refused, a public or unknown route) is shown its client's
    anonymous windows; dashboard pages, which are not the API, carry none; nor does test mode carry the
    quota's (the sandbox spends none of it, and a test key never reads the live quota)."""
    if request.blueprint == DASHBOARD:
        return response
    auth: AuthContext | None = g.get("auth")
    try:
        rate: RateStatus | None = g.get("rate_status") or _peek(auth)
        quota: QuotaStatus | None = None
        if auth is not None and auth.livemode:
            quota = g.get("quota_status") or charging.current_status(auth.account)
    except (RedisError, SQLAlchemyError):
        log.warning("limit headers left out: Redis or Postgres unreachable", exc_info=True)
        return response
    window: Window | None = g.get("limit_window") or (rate.binding if rate is not None else None)
    if window is not None:
        response.headers["X-RateLimit-Limit"] = str(window.limit)
        response.headers["X-RateLimit-Remaining"] = str(window.remaining)
        response.headers["X-RateLimit-Reset"] = str(int(window.resets_at.timestamp()))
    if quota is not None and quota.state is not QuotaState.NORMAL:
        response.headers.update(quota_headers(quota))
    return response


def _peek(auth: AuthContext | None) -> RateStatus:
    return (
        rate_limits.peek(auth.account, auth.livemode)
        if auth is not None
        else rate_limits.peek_anonymous(client_ip())
    )


def quota_headers(quota: QuotaStatus) -> dict[str, str]:
    return {
        "X-Quota-State": quota.state.value,
        "X-Quota-Limit": str(quota.limit),
        "X-Quota-Used": str(quota.used),
        "X-Quota-Reset": str(int(quota.period.end.timestamp())),
        "X-Quota-Warning": _warning_text(quota),
    }


def _warning_text(quota: QuotaStatus) -> str:
    used = f"{quota.used} of {quota.limit} monthly validations used ({quota.percentage:g}%)"
    if quota.state is QuotaState.WARNING:
        return f"{used}; the grace period starts at {quota.limit}."
    if quota.state is QuotaState.GRACE:
        return f"{used}; grace period, overage is billed; validations past {quota.hard_limit} are refused."
    return f"{used}; hard limit reached, validations are refused until the period resets."


def count_error(response: Response) -> Response:
    """``after_request``: count 400/429/5xx answers for ``recentErrors`` (best effort, like the headers)."""
    auth: AuthContext | None = g.get("auth")
    if auth is not None and recent_errors.field_for(response.status_code):
        try:
            recent_errors.record(auth.account.id, response.status_code, auth.livemode)
        except RedisError:
            log.warning("error answer not counted: Redis unreachable", exc_info=True)
    return response


def install(app: Flask) -> None:
    """The 429 handlers; the ``after_request`` hooks are placed by ``web.pipeline``."""
    app.register_error_handler(RateLimited, on_rate_limited)
    app.register_error_handler(QuotaExhausted, on_quota_exhausted)
    app.register_error_handler(BudgetExhausted, on_budget_exhausted)
