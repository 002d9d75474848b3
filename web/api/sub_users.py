"""Sub-users (Enterprise Plus, spec 4.9): create, list, read, update, delete, and read one's usage."""

from __future__ import annotations

from flask import Response

from services.resellers import sub_users
from web.api.resellers import reseller_blueprint
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body, parse_query
from web.schemas.base import respond
from web.schemas.errors import CodedError, FlatError
from web.schemas.sub_users import (
    CreatedSubUserOut,
    CreateSubUserBody,
    DeletedSubUserOut,
    SubUserListQuery,
    SubUserOut,
    SubUserPageOut,
    UpdateSubUserBody,
)
from web.schemas.usage import UsageOut

bp = reseller_blueprint("sub_users", "/api/sub-users")


@bp.post("")
@document(
    "Create a sub-user: an account of its own, with its first admin key (shown once)",
    request=CreateSubUserBody,
    responses={201: CreatedSubUserOut, 409: CodedError},
    description="403 SUB_USER_LIMIT_REACHED beyond your maximum; 409 EMAIL_TAKEN for an email you already "
    "gave a sub-user.",
)
@require_scope("resellers:write")
def create() -> Response:
    created = sub_users.create(current_auth(), parse_body(CreateSubUserBody).to_new())
    return respond(CreatedSubUserOut.of_created(created), 201)


@bp.get("")
@document(
    "List your sub-users, oldest first",
    query=SubUserListQuery,
    responses={200: SubUserPageOut, 404: FlatError},
    description="404 when `startingAfter` names no sub-user of yours.",
)
@require_scope("resellers:read")
def list_all() -> Response:
    query = parse_query(SubUserListQuery)
    page = sub_users.list_page(current_auth(), starting_after=query.starting_after, limit=query.limit)
    return respond(SubUserPageOut.of(page))


@bp.get("/<sub_id>")
@document("Read a sub-user", responses={200: SubUserOut})
@require_scope("resellers:read")
def read(sub_id: str) -> Response:
    return respond(SubUserOut.of(sub_users.get(current_auth(), sub_id)))


@bp.patch("/<sub_id>")
@document(
    "Rename, change the tier of, suspend or reactivate a sub-user",
    request=UpdateSubUserBody,
    responses={200: SubUserOut},
)
@require_scope("resellers:write")
def update(sub_id: str) -> Response:
    view = sub_users.update(current_auth(), sub_id, parse_body(UpdateSubUserBody).to_changes())
    return respond(SubUserOut.of(view))


@bp.delete("/<sub_id>")
@document(
    "Delete a sub-user: its keys stop working at once; it stays in commission reports",
    responses={200: DeletedSubUserOut},
)
@require_scope("resellers:write")
def delete(sub_id: str) -> Response:
    sub_users.delete(current_auth(), sub_id)
    return respond(DeletedSubUserOut(id=sub_id))


@bp.get("/<sub_id>/usage")
@document("A sub-user's usage: the body of GET /api/usage for its account", responses={200: UsageOut})
@require_scope("resellers:read")
def usage(sub_id: str) -> Response:
    return respond(UsageOut.of(sub_users.usage(current_auth(), sub_id)))
