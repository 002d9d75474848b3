"""Sign-up, sign-in, sign-out and password reset: the only pages served without a session."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from werkzeug.wrappers import Response

from models.accounts import Tier
from services.errors import ServiceError
from services.usage.plans import PLANS
from services.users import reset, signin, signup
from services.users.errors import EmailTaken, ResetLinkInvalid, SignInThrottled
from web.auth import origin
from web.branding import host_brand
from web.dashboard import forms, session
from web.dashboard.blueprint import bp

Page = tuple[str, int, dict[str, str]]


@bp.route("/sign-up", methods=["GET", "POST"])
def sign_up() -> Page | Response:
    if request.method == "GET":
        return forms.render("sign_up.html", plans=PLANS.values(), chosen=request.args.get("plan", "growth"))
    try:
        tier = Tier(forms.text("tier"))
        user = signup.sign_up(
            forms.email(), request.form.get("password", ""), tier, forms.text("name") or None, origin()
        )
    except (ServiceError, ValueError) as error:
        message = error.message if isinstance(error, ServiceError) else "Choose one of the plans."
        status = 409 if isinstance(error, EmailTaken) else 400
        return forms.render(
            "sign_up.html", status, plans=PLANS.values(), chosen=forms.text("tier"), error=message
        )
    session.start(user)
    flash(f"Welcome to {host_brand().provider}. Create your first API key to start validating.", "success")
    return redirect(url_for("dashboard.keys"))


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
