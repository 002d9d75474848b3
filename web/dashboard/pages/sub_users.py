"""Reseller sub-users: the list (paginated), create (the first admin key's secret shown once), one sub-user
with its usage, rename / change tier, suspend / reactivate, delete behind a typed confirmation. Every action
is ``services.resellers.sub_users``' own, as the API's ``/api/sub-users``."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from werkzeug.wrappers import Response

from services.errors import InvalidField
from services.resellers import sub_users
from services.usage.plans import PLANS
from web.dashboard import forms, once, present, session
from web.dashboard.blueprint import bp
from web.dashboard.resellers import reseller_required
from web.schemas.sub_users import (
    CreatedSubUserOut,
    CreateSubUserBody,
    SubUserListQuery,
    SubUserOut,
    SubUserPageOut,
    UpdateSubUserBody,
)
from web.schemas.usage import UsageOut

Page = tuple[str, int, dict[str, str]]
PAGE = 20
TIERS = [PLANS[tier] for tier in sub_users.SUB_USER_TIERS]


@bp.get("/reseller")
@reseller_required
def reseller() -> Response:
    return redirect(url_for("dashboard.reseller_sub_users"))


@bp.get("/reseller/sub-users")
@reseller_required
def reseller_sub_users() -> Page:
    after = request.args.get("after") or None
    query = forms.as_model(SubUserListQuery, {"startingAfter": after, "limit": PAGE})
    listed = sub_users.list_page(session.actor(), starting_after=query.starting_after, limit=query.limit)
    return forms.render(
        "sub_users.html", page=SubUserPageOut.of(listed), tiers=TIERS, paged=after is not None
    )


@bp.post("/reseller/sub-users")
@reseller_required
def reseller_sub_users_create() -> Response:
    fields = ("email", "name", "tier")
    body = forms.as_model(CreateSubUserBody, {name: forms.text(name) for name in fields})
    created = CreatedSubUserOut.of_created(sub_users.create(session.actor(), body.to_new()))
    page = url_for("dashboard.reseller_sub_user_created", sub_id=created.id)
    return once.redirect_to(
        page, created.secret_key, "created", key_id=created.key_id, publishable_key=created.publishable_key
    )


@bp.get("/reseller/sub-users/<sub_id>/created")
@reseller_required
def reseller_sub_user_created(sub_id: str) -> Page | Response:
    """The new sub-user's first key, on this page's first load only (a reload creates nothing)."""
    sub = SubUserOut.of(sub_users.get(session.actor(), sub_id))
    return once.show(
        lambda shown: forms.render(
            "sub_user_created.html",
            sub=sub,
            secret=shown.secret,
            key_id=shown.facts.get("key_id"),
            publishable_key=shown.facts.get("publishable_key"),
        ),
        otherwise=url_for("dashboard.reseller_sub_user", sub_id=sub_id),
        said=f"The first key of {sub.email} was shown once and is not shown again.",
    )


@bp.get("/reseller/sub-users/<sub_id>")
@reseller_required
def reseller_sub_user(sub_id: str) -> Page:
    actor = session.actor()
    sub = SubUserOut.of(sub_users.get(actor, sub_id))
    report = sub_users.usage(actor, sub_id)
    return forms.render(
        "sub_user.html",
        sub=sub,
        usage=UsageOut.of(report),
        gauge=present.Gauge.of(report.quota),
        marks=present.GAUGE_MARKS,
        tiers=TIERS,
    )


@bp.post("/reseller/sub-users/<sub_id>")
@reseller_required
def reseller_sub_user_update(sub_id: str) -> Response:
    """Name and tier from one form; only what differs is sent, as a PATCH would be."""
    actor = session.actor()
    current = SubUserOut.of(sub_users.get(actor, sub_id))
    wanted = {"name": forms.text("name"), "tier": forms.text("tier")}
    changed = {name: value for name, value in wanted.items() if value != getattr(current, name)}
    if changed:
        body = forms.as_model(UpdateSubUserBody, changed)
        sub_users.update(actor, sub_id, body.to_changes())
        flash(f"Saved: {' and '.join(sorted(changed))} of {current.email} changed.", "success")
    else:
        flash("Nothing changed: the name and tier are as they were.", "info")
    return redirect(url_for("dashboard.reseller_sub_user", sub_id=sub_id))


@bp.post("/reseller/sub-users/<sub_id>/status")
@reseller_required
def reseller_sub_user_status(sub_id: str) -> Response:
    body = forms.as_model(UpdateSubUserBody, {"status": forms.text("status")})
    view = SubUserOut.of(sub_users.update(session.actor(), sub_id, body.to_changes()))
    if view.status == "suspended":
        flash(f"{view.email} is suspended: its keys answer 401 until you reactivate it.", "success")
    else:
        flash(f"{view.email} is active again: its keys work as before.", "success")
    return redirect(url_for("dashboard.reseller_sub_user", sub_id=sub_id))


@bp.post("/reseller/sub-users/<sub_id>/delete")
@reseller_required
def reseller_sub_user_delete(sub_id: str) -> Response:
    actor = session.actor()
    email = sub_users.get(actor, sub_id).sub.email
    if forms.text("confirm").lower() != email:
        raise InvalidField("confirm", f"Nothing was deleted: type {email} exactly to confirm.")
    sub_users.delete(actor, sub_id)
    flash(f"{email} was deleted: its keys stopped working; it stays in this month's commissions.", "success")
    return redirect(url_for("dashboard.reseller_sub_users"))
