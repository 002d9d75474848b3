"""Custom domains (Enterprise Plus, spec 1): register, verify through DNS, list, read, delete."""

from __future__ import annotations

from flask import Response

from services.resellers import custom_domains
from web.api.resellers import reseller_blueprint
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body
from web.schemas.base import respond
from web.schemas.custom_domains import AddDomainBody, CustomDomainListOut, CustomDomainOut, DeletedDomainOut
from web.schemas.errors import CodedError

bp = reseller_blueprint("custom_domains", "/api/custom-domains")


@bp.post("")
@document(
    "Register a hostname; publish its TXT record, then verify it",
    request=AddDomainBody,
    responses={201: CustomDomainOut, 409: CodedError},
)
@require_scope("resellers:write")
def add() -> Response:
    domain = custom_domains.add(current_auth(), parse_body(AddDomainBody).hostname)
    return respond(CustomDomainOut.of(domain), 201)


@bp.get("")
@document("List your custom domains", responses={200: CustomDomainListOut})
@require_scope("resellers:read")
def list_all() -> Response:
    domains = custom_domains.list_all(current_auth())
    return respond(CustomDomainListOut(data=[CustomDomainOut.of(domain) for domain in domains]))


@bp.get("/<domain_id>")
@document("Read a custom domain", responses={200: CustomDomainOut})
@require_scope("resellers:read")
def read(domain_id: str) -> Response:
    return respond(CustomDomainOut.of(custom_domains.get(current_auth(), domain_id)))


@bp.post("/<domain_id>/verify")
@document(
    "Look the TXT challenge up now and verify the domain",
    responses={200: CustomDomainOut, 409: CodedError, 422: CodedError},
    description="422 DOMAIN_NOT_VERIFIED (with the record expected and the values found) until the record "
    "is published; 409 DOMAIN_TAKEN if another account verified this hostname first.",
)
@require_scope("resellers:write")
def verify(domain_id: str) -> Response:
    return respond(CustomDomainOut.of(custom_domains.verify(current_auth(), domain_id)))


@bp.delete("/<domain_id>")
@document("Delete a custom domain; it stops serving at once", responses={200: DeletedDomainOut})
@require_scope("resellers:write")
def delete(domain_id: str) -> Response:
    custom_domains.delete(current_auth(), domain_id)
    return respond(DeletedDomainOut(id=domain_id))
