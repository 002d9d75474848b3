"""Keys: create (secret shown once), publishable keys any time, refresh, revoke, revoke-all, auto-rotation,
reveal of an auto-rotated secret, the web pages a publishable key serves and its budget. Every action is
``services.keys``' own, as the API's."""

from __future__ import annotations

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from core import clock
from core.words import plural
from services.errors import InvalidField
from services.keys import lifecycle, scopes, sealed
from services.keys.scopes import DEFAULT_SCOPES
from services.resellers.access import is_reseller
from web.dashboard import forms, once, present, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.keys import CreateKeyBody, UpdateKeyBody

Page = tuple[str, int, dict[str, str]]
REVOKE_ALL_PHRASE = "REVOKE ALL"
NOT_STORED = "If you did not store it, refresh the key to get a new one."


@bp.get("/keys")
@sign_in_required
def keys() -> Page:
    actor, now = session.actor(), clock.now()
    listed = lifecycle.list_keys(actor)
    return forms.render(
        "keys.html",
        keys=listed,
        days={key.id: present.days_to_rotation(key, now) for key in listed},
        waiting=sealed.waiting_for_reveal(actor),
        # reseller scopes only where they can work: a reseller's live keys (test mode refuses them)
        scopes=scopes.for_account(is_reseller(actor.account) and actor.livemode),
        default_scopes=DEFAULT_SCOPES,
        phrase=REVOKE_ALL_PHRASE,
    )


@bp.post("/keys")
@sign_in_required
def keys_create() -> Response:
    body = forms.as_model(
        CreateKeyBody,
        {
            "name": forms.text("name"),
            "scopes": forms.many("scopes") or None,
            "allowedIps": forms.many("allowed_ips"),
            "autoRotate": forms.checked("auto_rotate"),
            "allowedOrigins": forms.many("allowed_origins"),
        },
    )
    actor = session.actor()
    return _show(lifecycle.create_key(actor, body.to_spec(actor.livemode)), "created")


@bp.post("/keys/<int:key_id>/refresh")
@sign_in_required
def keys_refresh(key_id: int) -> Response:
    return _show(lifecycle.refresh_key(session.actor(), key_id), "refreshed")


@bp.post("/keys/<int:key_id>/reveal")
@sign_in_required
def keys_reveal(key_id: int) -> Response:
    return _show(sealed.reveal(session.actor(), key_id), "revealed")


@bp.get("/keys/<int:key_id>/secret")
@sign_in_required
def keys_secret(key_id: int) -> Page | Response:
    """The secret a form just issued, on this page's first load only (a reload issues nothing new)."""
    key = lifecycle.get_key(session.actor(), key_id)
    return once.show(
        lambda shown: forms.render("key_secret.html", key=key, secret=shown.secret, what=shown.what),
        otherwise=url_for("dashboard.keys", _anchor=f"key-{key_id}"),
        said=f"The secret of “{key.name}” was shown once and is not shown again. {NOT_STORED}",
    )


@bp.post("/keys/<int:key_id>/auto-rotate")
@sign_in_required
def keys_auto_rotate(key_id: int) -> Response:
    turn_on = forms.checked("auto_rotate")
    key = lifecycle.update_key(session.actor(), key_id, lifecycle.KeyChanges(auto_rotate=turn_on))
    flash(f"Automatic rotation is {'on' if turn_on else 'off'} for “{key.name}”.", "success")
    return redirect(url_for("dashboard.keys"))


@bp.post("/keys/<int:key_id>/origins")
@sign_in_required
def keys_origins(key_id: int) -> Response:
    body = forms.as_model(UpdateKeyBody, {"allowedOrigins": forms.many("allowed_origins")})
    key = lifecycle.update_key(session.actor(), key_id, body.to_changes())
    pages = ", ".join(key.allowed_origins)
    usable = f"may now be used on pages of {pages}" if pages else "may now be used on no web page"
    flash(f"The publishable key of “{key.name}” {usable}.", "success")
    return redirect(url_for("dashboard.keys", _anchor=f"key-{key_id}"))


@bp.post("/keys/<int:key_id>/budget")
@sign_in_required
def keys_budget(key_id: int) -> Response:
    body = forms.as_model(
        UpdateKeyBody,
        {
            "publishableDailyBudget": forms.whole("publishable_daily_budget"),
            "publishableMonthlyBudget": forms.whole("publishable_monthly_budget"),
        },
    )
    key = lifecycle.update_key(session.actor(), key_id, body.to_changes())
    flash(
        f"The web pages of “{key.name}” may now have {key.publishable_daily_budget} validations a day and "
        f"{key.publishable_monthly_budget} a billing period answered.",
        "success",
    )
    return redirect(url_for("dashboard.keys", _anchor=f"key-{key_id}"))


@bp.post("/keys/<int:key_id>/delete")
@sign_in_required
def keys_delete(key_id: int) -> Response:
    lifecycle.delete_key(session.actor(), key_id)
    flash(f"Key {key_id} was revoked and deleted; requests with it are refused from now on.", "success")
    return redirect(url_for("dashboard.keys"))


@bp.post("/keys/revoke-all")
@sign_in_required
def keys_revoke_all() -> Response:
    if forms.text("confirm") != REVOKE_ALL_PHRASE:
        raise InvalidField("confirm", f"Nothing was revoked: type {REVOKE_ALL_PHRASE} exactly to confirm.")
    count = lifecycle.revoke_all(session.actor())
    flash(f"Deactivated {plural(count, 'key')}. Create a new key to use the API again.", "success")
    return redirect(url_for("dashboard.keys"))


def _show(issued: lifecycle.IssuedKey, what: str) -> Response:
    return once.redirect_to(url_for("dashboard.keys_secret", key_id=issued.key.id), issued.secret, what)
