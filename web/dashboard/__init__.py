"""The dashboard: server-rendered pages for account owners, at ``/dashboard``.

Pages call the same services as the API (``services.keys``, ``services.webhooks``, ``services.validation``,
``services.usage``, ``services.audit``, and ``services.resellers`` for Enterprise Plus) as the owner
(``services.users.acting.Owner``); only sign-up, sign-in and password reset are the dashboard's own
(``services.users``). Views are thin: parse the form, call one service, render. Sessions live in a signed
cookie scoped to ``/dashboard`` (HttpOnly, SameSite=Lax, Secure in production); every POST needs its CSRF
token (Flask-WTF).
"""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from settings import Settings
from web.auth import PUBLIC
from web.branding import host_brand
from web.dashboard import errors, filters, pages, resellers, security, session
from web.dashboard.blueprint import bp
from web.dashboard.cookies import CookieSessions

SESSION_LIFETIME = timedelta(hours=12)
csrf = CSRFProtect()

# The blueprint is set up once per process (a blueprint cannot change after its first registration); each
# app made by ``create_app`` registers it and gets its own configuration below.
pages.load()
bp.after_request(security.add_headers)
bp.before_request(csrf.protect)  # every POST form carries its token, or is refused with a readable page


@bp.context_processor
def page_context() -> dict[str, object]:
    """Who is signed in, whether the Reseller section shows, whose name the page wears (on a reseller's
    verified domain the reseller's, never this service's). The outage page asks no store for any of it."""
    if errors.stores_down():
        return {"me": None, "livemode": True, "is_reseller": False, "brand_name": errors.outage_brand()}
    me = session.signed_in()
    live = me is None or session.livemode()
    return {"me": me, "livemode": live, **resellers.nav(), "brand_name": host_brand().provider}


errors.install(bp)
filters.install(bp)


def install(app: Flask, settings: Settings) -> None:
    app.config.update(
        SECRET_KEY=settings.secret_key,
        SESSION_COOKIE_NAME="dashboard_session",
        SESSION_COOKIE_PATH="/dashboard",  # never sent to the API's paths
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.is_production or settings.base_url.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=SESSION_LIFETIME,
        WTF_CSRF_CHECK_DEFAULT=False,  # the JSON API is keyed, not cookie-authenticated: nothing to forge
        WTF_CSRF_TIME_LIMIT=None,  # a token lives as long as its session
    )
    app.session_interface = CookieSessions()
    csrf.init_app(app)
    app.register_blueprint(bp)
    # Pages are not API operations: no key is asked for (the session is), and /openapi.json leaves them out.
    for endpoint, view in app.view_functions.items():
        if endpoint.startswith(f"{bp.name}."):
            setattr(view, PUBLIC, True)


__all__ = ["install"]
