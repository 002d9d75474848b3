"""Validate one address, as ``POST /validate`` does: admitted by the rate limit, charged to the quota, probed
by the workers (quick mode answers here), answered by the same service (``services.validation.answers``),
every check shown with its evidence and the recommendations. A validation still running when the wait ends
has a page of its own, where its result will be (what the results URL is to the API)."""

from __future__ import annotations

from services.validation import answers
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.check_rows import check_rows
from web.dashboard.session import sign_in_required
from web.limits import rate_limited_as
from web.schemas.validation_bodies import ValidateBody, job_options

Page = tuple[str, int, dict[str, str]]


@bp.get("/validate")
@sign_in_required
def validate() -> Page:
    return forms.render("validate.html")


@bp.post("/validate")
@sign_in_required
@rate_limited_as(session.actor)
def validate_address() -> Page:
    data = {"email": forms.text("email"), "options": {"quickMode": forms.checked("quick_mode")}}
    body = forms.as_model(ValidateBody, data)
    actor = session.actor()
    answer = answers.validate_one(actor, body.email, job_options(actor, body.options))
    return _shown(answer.outcome, email=body.email, quick=body.options.quick_mode)


@bp.get("/validate/<job_id>")
@sign_in_required
def validate_job(job_id: str) -> Page:
    """One validation's answer as it stands: the result once settled, else that it is still running."""
    return _shown(answers.single_of(session.actor(), job_id).outcome)


def _shown(
    outcome: answers.Single | answers.Accepted, *, email: str | None = None, quick: bool = False
) -> Page:
    if isinstance(outcome, answers.Accepted):
        return forms.render("validate.html", email=email, quick=quick, accepted=outcome.job.public_id)
    result = outcome.result
    return forms.render(
        "validate.html",
        email=email or result.get("email"),
        result=result,
        rows=check_rows(result),
        quick=quick,
        retrying=outcome.retrying,
        job_id=outcome.public_id,
    )
