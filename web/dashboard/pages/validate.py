"""Validate one address, as ``POST /validate`` does: admitted by the rate limit, charged to the quota, probed
by the workers (quick mode answers here), every check shown with its evidence and the recommendations."""

from __future__ import annotations

from flask import request

from models.jobs import JobKind, JobStatus
from services.auth import Actor
from services.usage import rate_limits
from services.validation import quick, submit
from settings import get_settings
from verifier.results import JsonValue
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.check_rows import check_rows
from web.dashboard.session import sign_in_required
from web.schemas.validation_bodies import ValidateBody, job_options

Page = tuple[str, int, dict[str, str]]


@bp.route("/validate", methods=["GET", "POST"])
@sign_in_required
def validate() -> Page:
    if request.method == "GET":
        return forms.render("validate.html")
    data = {"email": forms.text("email"), "options": {"quickMode": forms.checked("quick_mode")}}
    body = forms.as_model(ValidateBody, data)
    auth = session.actor()
    rate_limits.admit_request(auth)  # the dashboard's owner is read for this request: nothing to confirm
    result = _validate(auth, body)
    return forms.render(
        "validate.html",
        email=body.email,
        result=result,
        rows=check_rows(result),
        quick=body.options.quick_mode,
    )


def _validate(auth: Actor, body: ValidateBody) -> dict[str, JsonValue] | None:
    """The result, or None if the workers have not finished within the wait (the page says so)."""
    options = job_options(auth.account, body.options)
    if options.quick_mode:
        return quick.validate_quick(auth, body.email, options).result
    submitted = submit.submit(auth, JobKind.SINGLE, [body.email], options)
    job = submit.wait(submitted.job, get_settings().jobs.single_wait)
    if job.status != JobStatus.COMPLETED.value:
        return None
    result: dict[str, JsonValue] = submit.results(job).results[0]
    return result
