"""Sign-up, sign-in, sign-out and password reset: the only pages served without a session."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from werkzeug.wrappers import Response

from models.accounts import Tier
from services.errors import InvalidField, ServiceError
from services.usage.plans import PLANS
from services.users import reset, signin, signup, verification
from services.users.errors import ResetLinkInvalid, SignInThrottled, Throttled
from web.auth import origin
from web.dashboard import forms, session
from web.dashboard.blueprint import bp

Page = tuple[str, int, dict[str, str]]


@bp.route("/sign-up", methods=["GET", "POST"])
def sign_up() -> Page:
    """Answers alike for every address (``services.users.signup``): the email tells the rest."""
    if request.method == "GET":
        return _sign_up_form(200, chosen=request.args.get("plan", Tier.GROWTH.value))
    try:
        signup.sign_up(forms.email(), _requested_tier(), forms.text("name") or None, origin())
    except Throttled as error:
        page = _sign_up_form(429, chosen=forms.text("tier"), error=error.message)
        return page[0], page[1], {**page[2], "Retry-After": str(error.retry_after)}
    except ServiceError as error:
        return _sign_up_form(400, chosen=forms.text("tier"), error=error.message)
    return forms.render("check_inbox.html", email=signup.normalized(forms.text("email")))


def _requested_tier() -> Tier:
    try:
        return Tier(forms.text("tier"))
    except ValueError:
        raise InvalidField("tier", "Choose one of the plans offered.") from None


def _sign_up_form(status: int, *, chosen: str, error: str | None = None) -> Page:
    plans = [PLANS[tier] for tier in signup.REQUESTABLE]
    return forms.render(
        "sign_up.html", status, plans=plans, trial=PLANS[Tier.TRIAL], chosen=chosen, error=error
    )


@bp.route("/verify-email/<token>", methods=["GET", "POST"])
def verify_email(token: str) -> Page | Response:
    """The emailed link: confirm the address, choose the password, and land signed in."""
    try:
        pending = verification.check_link(token)
        if request.method == "POST":
            user = verification.complete(token, request.form.get("password", ""), origin())
            session.start(user)
            return redirect(url_for("dashboard.get_started"))
    except ResetLinkInvalid as error:
        return forms.render("verify_email.html", 400, token=token, error=error.message, invalid=True)
    except ServiceError as error:
        plan = _plan(pending)
        return forms.render(
            "verify_email.html", 400, token=token, pending=pending, plan=plan, error=error.message
        )
    return forms.render("verify_email.html", token=token, pending=pending, plan=_plan(pending))


def _plan(pending: verification.Pending) -> object:
    return PLANS[Tier(pending.requested_tier)] if pending.requested_tier else None


@bp.route("/sign-in", methods=["GET", "POST"])
def sign_in() -> Page | Response:
    if request.method == "GET":
        return forms.render("sign_in.html", next=request.args.get("next", ""))
    try:
        user = signin.sign_in(forms.text("email"), request.form.get("password", ""), origin())
    except SignInThrottled as error:
        page = forms.render("sign_in.html", 429, error=error.message, email=forms.text("email"))
        return page[0], page[1], {**page[2], "Retry-After": str(error.retry_after)}
    except ServiceError as error:
        return forms.render("sign_in.html", 401, error=error.message, email=forms.text("email"))
    session.start(user)
    return redirect(_safe_next(forms.text("next")))


@bp.post("/sign-out")
def sign_out() -> Response:
    found = session.signed_in()
    if found is not None:
        signin.sign_out(found.user, origin())
    session.end()
    flash("You are signed out.", "info")
    return redirect(url_for("dashboard.sign_in"))


@bp.route("/forgot-password", methods=["GET", "POST"])
def forgot_password() -> Page:
    if request.method == "GET":
        return forms.render("forgot_password.html")
    try:
        reset.request_reset(forms.email(), origin())
    except Throttled as error:
        page = forms.render("forgot_password.html", 429, error=error.message)
        return page[0], page[1], {**page[2], "Retry-After": str(error.retry_after)}
    except ServiceError as error:
        return forms.render("forgot_password.html", 400, error=error.message)
    return forms.render("forgot_password.html", sent=True)


@bp.route("/reset-password/<token>", methods=["GET", "POST"])
def reset_password(token: str) -> Page | Response:
    try:
        if request.method == "GET":
            reset.check_link(token)
            return forms.render("reset_password.html", token=token)
        user = reset.reset_password(token, request.form.get("password", ""), origin())
    except ResetLinkInvalid as error:
        return forms.render("reset_password.html", 400, token=token, error=error.message, invalid=True)
    except ServiceError as error:
        return forms.render("reset_password.html", 400, token=token, error=error.message)
    session.start(user)
    flash("Your password was changed; other sessions were signed out.", "success")
    return redirect(url_for("dashboard.overview"))


def _safe_next(target: str) -> str:
    """Only a path inside the dashboard: ``next`` is attacker-controlled, never a redirect elsewhere."""
    if target.startswith("/dashboard") and not target.startswith("//"):
        return target
    return url_for("dashboard.overview")
