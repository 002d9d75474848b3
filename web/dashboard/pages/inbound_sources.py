"""Inbound sources: one signed endpoint per sending service, its secret and URL shown once, revocable,
with what each has received: ``services.suppression.sources``."""

from __future__ import annotations

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from models.suppression import SourceKind
from services import links
from services.suppression import sources
from web.dashboard import forms, once, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.suppression import CreateSourceBody, SourceOut

Page = tuple[str, int, dict[str, str]]
KINDS = {
    "ses": "Amazon SES (through SNS)",
    "sendgrid": "SendGrid Event Webhook",
    "postmark": "Postmark",
    "mailgun": "Mailgun",
    "upload": "CSV or JSON upload",
}


@bp.get("/inbound-sources")
@sign_in_required
def inbound_sources() -> Page:
    listed = [SourceOut.of(source) for source in sources.list_sources(session.actor())]
    return forms.render("inbound_sources.html", sources=listed, kinds=KINDS)


@bp.post("/inbound-sources")
@sign_in_required
def inbound_sources_create() -> Response:
    fields = {"kind": forms.text("kind"), "name": forms.text("name")}
    for field, name in (("verificationKey", "verification_key"), ("signingKey", "signing_key")):
        if forms.text(name):
            fields[field] = forms.text(name)
    body = forms.as_model(CreateSourceBody, fields)
    spec = sources.SourceSpec(SourceKind(body.kind), body.name, body.verification_key, body.signing_key)
    created = sources.create(session.actor(), spec)
    page = url_for("dashboard.inbound_sources_secret", source_id=created.source.public_id)
    return once.redirect_to(page, created.secret, "created")


@bp.get("/inbound-sources/<source_id>/secret")
@sign_in_required
def inbound_sources_secret(source_id: str) -> Page | Response:
    """The secret and the URL to paste, on this page's first load only."""
    source = sources.get(session.actor(), source_id)
    return once.show(
        lambda shown: forms.render(
            "inbound_source_secret.html",
            source=source,
            kind=KINDS[source.kind],
            secret=shown.secret,
            url=links.inbound_url(source.public_id, shown.secret),
        ),
        otherwise=url_for("dashboard.inbound_sources"),
        said="The secret was shown once and is not shown again. If you did not store it, revoke the source "
        "and create another.",
    )


@bp.post("/inbound-sources/<source_id>/revoke")
@sign_in_required
def inbound_sources_revoke(source_id: str) -> Response:
    source = sources.revoke(session.actor(), source_id)
    flash(f"{source.name} was revoked: it accepts nothing from now on.", "success")
    return redirect(url_for("dashboard.inbound_sources"))
