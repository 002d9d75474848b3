"""Validation from web pages: ``POST /validate/browser`` (publishable key, CORS for the key's origins),
``POST /validate/confirm`` (the page's server, secret key) and the widget script, ``GET /widget.js``."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, request, send_file

from services.browser import confirmations, validation
from services.browser.errors import BudgetExhausted
from services.usage.errors import QuotaExhausted
from web.auth import current_auth, public, require_scope
from web.branding import link_host
from web.client_ip import client_ip
from web.cors import browser_endpoint
from web.limits import budgeted, charged
from web.openapi import document
from web.parsing import parse_body
from web.pipeline import time_left
from web.schemas.base import respond
from web.schemas.browser import (
    BrowserAnswerOut,
    BrowserValidateBody,
    ConfirmBody,
    ConfirmedOut,
    TokenRefusedOut,
    TokenReplayedOut,
)

bp = Blueprint("browser", __name__)
WIDGET = Path(__file__).resolve().parents[1] / "static" / "widget.js"
WIDGET_MAX_AGE = 3600  # an hour: a fixed widget reaches pages soon, and browsers revalidate by ETag after


@bp.post("/validate/browser")
@document(
    "Validate an address from a web page (publishable key)",
    request=BrowserValidateBody,
    responses={200: BrowserAnswerOut},
    errors=(BudgetExhausted, QuotaExhausted),
    description="Called by the widget (GET /widget.js) or a page's own script with the publishable key in "
    "`X-API-Key`, from a page on one of the key's `allowedOrigins` (CORS: other pages cannot read the "
    "answer, and the service refuses them with 403 ORIGIN_NOT_ALLOWED; a script off any page can send any "
    "Origin, so the key's budget is what bounds its cost); secret keys are refused. The answer comes within "
    "`timeout` seconds. Each counts one validation against the account's quota and against the key's own "
    "`publishableDailyBudget` and `publishableMonthlyBudget`, never against the account's request windows. "
    "Past the budget: 429 PUBLISHABLE_KEY_BUDGET_EXCEEDED; the quota used up: 429 RATE_LIMIT_EXCEEDED (a "
    "publishable key never runs into billed overage); the per-visitor and per-key minute throttles answer "
    "200 with verdict `unknown` and reason `throttled`. Give `token` to the form's server, which confirms "
    "it with POST /validate/confirm. `authoritative` is true only when the verdict is the result of a "
    "check the service finished (not throttled, not cut short by `timeout`).",
)
@browser_endpoint
@require_scope("validate:write", publishable_only=True)
def validate_browser() -> Response:
    body = parse_body(BrowserValidateBody)
    auth = current_auth()
    answer = validation.answer(
        auth,
        body.email,
        origin=request.headers.get("Origin"),
        visitor_ip=client_ip(),
        seconds=time_left(body.timeout),
    )
    charged(answer.quota)
    budgeted(answer.budget)
    return respond(BrowserAnswerOut.of(answer, auth.livemode))


@bp.post("/validate/confirm")
@document(
    "Confirm a verdict token a web page passed on (secret key)",
    request=ConfirmBody,
    responses={200: ConfirmedOut, 409: TokenReplayedOut, 422: TokenRefusedOut},
    description="The form's server sends the token its page got from POST /validate/browser and the "
    "address the form submitted. A token confirms once: refused with 422 TOKEN_INVALID (forged or "
    "altered), TOKEN_EXPIRED, TOKEN_KEY_RETIRED (sealed with a token key since rotated out), "
    "TOKEN_OF_ANOTHER_ACCOUNT or TOKEN_EMAIL_MISMATCH, and with 409 TOKEN_ALREADY_CONFIRMED the second "
    "time (a replay). A genuine token whose verdict is not authoritative (throttled, or answered before "
    "the check finished) answers 200 with `confirmed` and `authoritative` false and a `message`: it "
    "confirms nothing, and the server validates the address itself with POST /validate. Not charged.",
)
@require_scope("validate:read")
def confirm() -> Response:
    body = parse_body(ConfirmBody)
    auth = current_auth()
    confirmed = confirmations.confirm(auth, body.token, body.email)
    return respond(ConfirmedOut.of(confirmed, link_host(), auth.livemode))


@bp.get("/widget.js")
@document(
    "The form widget script",
    responses={},
    raw_responses={200: {"text/javascript": {"type": "string"}}},
    raw_description="The script; cached for an hour, then revalidated by its ETag",
    description="One plain script, no build step and nothing else to load: it attaches to email inputs "
    "marked `data-email-check-key` (the publishable key) and `data-email-check-block` (what stops the form: "
    "`invalid`, `disposable`, `role`), checks them on blur and puts the verdict token in the form.",
)
@public
def widget() -> Response:
    response = send_file(WIDGET, mimetype="text/javascript", max_age=WIDGET_MAX_AGE, conditional=True)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
