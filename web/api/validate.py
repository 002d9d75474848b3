"""``POST /validate`` (spec 4.1): one address; quickMode answers from the web process, the rest from the
workers (the web process never opens an SMTP connection)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response

from core.clock import now
from core.times import iso
from services import links
from services.jobs.recent import verdict_metadata
from services.validation import answers
from verifier.results import JsonValue
from web.auth import current_auth, require_scope
from web.branding import brand, link_host
from web.client_ip import client_ip
from web.geo import country_of
from web.limits import charged, rate_limited
from web.openapi import document
from web.parsing import parse_body
from web.pipeline import time_left
from web.schemas.base import json_response, respond
from web.schemas.results import AcceptedOut, SingleResultOut
from web.schemas.single_result import single_result_json
from web.schemas.validation_bodies import ValidateBody, job_options

bp = Blueprint("validate", __name__)


@bp.post("/validate")
@document(
    "Validate one email address",
    request=ValidateBody,
    responses={200: SingleResultOut, 202: AcceptedOut},
    description="200 also when the address is invalid. Without quickMode the SMTP probe runs on a worker; "
    "if it has not finished within VALIDATE_WAIT_SECONDS the answer is 202 with a resultsUrl. A temporary "
    "failure (greylisting, 421, timeout) is answered at once, `smtp` unknown with `retryAfter`; with "
    "`options.retryTemporary` that answer is interim (`retrying`, `resultsUrl`) and the service retries it "
    "in the background (`validation.completed` fires once, when the retries end). With `options.timeout` "
    "the answer is 200 within that many seconds: checks not finished by then are unknown with the reason "
    "`timeout` (`timedOut`, `resultsUrl`) and the validation goes on, charged once.",
)
@require_scope("validate:write")
@rate_limited
def validate() -> Response:
    started = time.perf_counter()
    body = parse_body(ValidateBody)
    auth = current_auth()
    options, timeout = job_options(auth, body.options), body.options.timeout
    if timeout is not None:
        single, quota = answers.validate_within(auth, body.email, options, time_left(timeout))
        charged(quota)
        return json_response(
            single_result_json(shown(single, auth.livemode), metadata(started, single.result))
        )
    answer = answers.validate_one(auth, body.email, options)
    charged(answer.quota)
    if isinstance(answer.outcome, answers.Accepted):
        return respond(AcceptedOut.of(answer.outcome.job, link_host()), 202)
    shown_result = shown(answer.outcome, auth.livemode)
    return json_response(single_result_json(shown_result, metadata(started, answer.outcome.result)))


def shown(single: answers.Single, livemode: bool) -> dict[str, JsonValue]:
    """An interim or timed-out answer says so, with the results URL where the settled one will be; a
    test-mode answer says ``livemode: false``."""
    mode: dict[str, JsonValue] = {"livemode": livemode}
    if not (single.retrying or single.timed_out):
        return single.result | mode
    flag: dict[str, JsonValue] = {"retrying": True} if single.retrying else {"timedOut": True}
    return single.result | flag | {"resultsUrl": links.results_url(single.public_id, link_host())} | mode


def metadata(started: float, result: Mapping[str, Any]) -> dict[str, JsonValue]:
    """Spec 2.3 with the brand fields, and whether the ``result`` was checked now or answered from a
    recent verdict (``cached``, ``checkedAt``: a timed-out answer's is now); ``country`` is null for
    private, loopback and unknown addresses."""
    ip, timestamp = client_ip(), iso(now())
    verdict = verdict_metadata(result)
    return {
        "processingTime": round((time.perf_counter() - started) * 1000),
        "timestamp": timestamp,
        "ipAddress": ip,
        "country": country_of(ip),
        **brand().metadata(),
        **verdict,
        "checkedAt": verdict["checkedAt"] or timestamp,
    }
