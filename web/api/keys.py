"""API keys: create, list, read, update, delete, refresh the secret, revoke all (spec 4.3-4.5)."""

from __future__ import annotations

from flask import Blueprint, Response

from services.errors import LiveModeRequired
from services.keys import lifecycle, sealed
from services.keys.errors import KeyInactive
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body
from web.schemas.base import respond
from web.schemas.keys import (
    CreatedKeyOut,
    CreateKeyBody,
    DeletedKeyOut,
    KeyListOut,
    KeyOut,
    RefreshOut,
    RevealOut,
    RevokeAllOut,
    UpdateKeyBody,
)

bp = Blueprint("keys", __name__, url_prefix="/api/keys")


@bp.post("")
@document(
    "Create an API key (its secret is shown once)",
    request=CreateKeyBody,
    responses={201: CreatedKeyOut},
    errors=(LiveModeRequired,),
)
@require_scope("keys:write")
def create() -> Response:
    auth = current_auth()
    issued = lifecycle.create_key(auth, parse_body(CreateKeyBody).to_spec(auth.livemode))
    return respond(CreatedKeyOut.of_issued(issued), 201)


@bp.get("")
@document("List the account's keys (never their secrets)", responses={200: KeyListOut})
@require_scope("keys:write")
def list_all() -> Response:
    auth = current_auth()
    return respond(
        KeyListOut(data=[KeyOut.of(key) for key in lifecycle.list_keys(auth)], livemode=auth.livemode)
    )


@bp.get("/<int:key_id>")
@document("Read one key", responses={200: KeyOut})
@require_scope("keys:write")
def read(key_id: int) -> Response:
    return respond(KeyOut.of(lifecycle.get_key(current_auth(), key_id)))


@bp.patch("/<int:key_id>")
@document(
    "Change a key's name, scopes, allowed IPs or auto-rotation",
    request=UpdateKeyBody,
    responses={200: KeyOut},
)
@require_scope("keys:write")
def update(key_id: int) -> Response:
    key = lifecycle.update_key(current_auth(), key_id, parse_body(UpdateKeyBody).to_changes())
    return respond(KeyOut.of(key))


@bp.delete("/<int:key_id>")
@document("Delete a key for good", responses={200: DeletedKeyOut})
@require_scope("keys:write")
def delete(key_id: int) -> Response:
    auth = current_auth()
    lifecycle.delete_key(auth, key_id)
    return respond(DeletedKeyOut(id=key_id, livemode=auth.livemode))


@bp.post("/<int:key_id>/refresh")
@document(
    "Issue a new secret for a key; the old one stops working at once",
    responses={200: RefreshOut},
    errors=(KeyInactive,),
)
@require_scope("keys:write")
def refresh(key_id: int) -> Response:
    return respond(RefreshOut.of_issued(lifecycle.refresh_key(current_auth(), key_id)))


@bp.post("/<int:key_id>/reveal-secret")
@document(
    "Show, once, the secret an automatic 90-day rotation gave this key",
    responses={200: RevealOut},
    description="Available for 7 days after the rotation; 404 once revealed, expired or refreshed.",
)
@require_scope("keys:write")
def reveal_secret(key_id: int) -> Response:
    return respond(RevealOut.of_issued(sealed.reveal(current_auth(), key_id)))


@bp.post("/revoke-all")
@document("Emergency: deactivate every key of the account", responses={200: RevokeAllOut})
@require_scope("*:*")
def revoke_all() -> Response:
    auth = current_auth()
    count = lifecycle.revoke_all(auth)
    message = f"{count} key(s) of the account were deactivated."
    return respond(RevokeAllOut(message=message, revoked_count=count, livemode=auth.livemode))
