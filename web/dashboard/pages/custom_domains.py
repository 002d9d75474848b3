"""Reseller custom domains: add a hostname, the TXT record to publish, verify it (success, or the record
expected beside the values DNS answered), delete: ``services.resellers.custom_domains``, as the API's."""

from __future__ import annotations

from dataclasses import dataclass

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from services.resellers import custom_domains
from services.resellers.errors import DomainNotVerified
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.resellers import reseller_required
from web.schemas.custom_domains import AddDomainBody, CustomDomainOut

Page = tuple[str, int, dict[str, str]]


@dataclass(frozen=True)
class Unverified:
    """A verification that found no matching record: shown on the domain's card."""

    domain_id: str
    message: str
    found: list[str]


@bp.get("/reseller/custom-domains")
@reseller_required
def reseller_custom_domains() -> Page:
    return _page()


@bp.post("/reseller/custom-domains")
@reseller_required
def reseller_custom_domains_add() -> Response:
    body = forms.as_model(AddDomainBody, {"hostname": forms.text("hostname")})
    domain = custom_domains.add(session.actor(), body.hostname)
    flash(f"{domain.hostname} was added: publish its TXT record, then press Verify.", "success")
    return redirect(url_for("dashboard.reseller_custom_domains", _anchor=f"domain-{domain.public_id}"))


@bp.post("/reseller/custom-domains/<domain_id>/verify")
@reseller_required
def reseller_custom_domain_verify(domain_id: str) -> Page | Response:
    try:
        domain = custom_domains.verify(session.actor(), domain_id)
    except DomainNotVerified as error:
        found = error.extra.get("found")
        return _page(
            422, Unverified(domain_id, error.message, list(found) if isinstance(found, list) else [])
        )
    flash(f"{domain.hostname} is verified: requests to it are served under your brand.", "success")
    return redirect(url_for("dashboard.reseller_custom_domains", _anchor=f"domain-{domain_id}"))


@bp.post("/reseller/custom-domains/<domain_id>/delete")
@reseller_required
def reseller_custom_domain_delete(domain_id: str) -> Response:
    hostname = custom_domains.get(session.actor(), domain_id).hostname
    custom_domains.delete(session.actor(), domain_id)
    flash(f"{hostname} was deleted: it stops serving at once.", "success")
    return redirect(url_for("dashboard.reseller_custom_domains"))


def _page(status: int = 200, unverified: Unverified | None = None) -> Page:
    domains = [CustomDomainOut.of(domain) for domain in custom_domains.list_all(session.actor())]
    return forms.render("custom_domains.html", status, domains=domains, unverified=unverified)
