"""Suppression: the account's list (of the mode shown) with each address's evidence and history, added
and removed by hand, imported and exported as CSV: ``services.suppression``, as the API calls it."""

from __future__ import annotations

from flask import Response as FlaskResponse
from flask import flash, redirect, request, stream_with_context, url_for
from werkzeug.wrappers import Response

from services.errors import InvalidField
from services.suppression import entries, exports
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.suppression import SuppressionEntryOut, SuppressionPageOut, SuppressionQuery

Page = tuple[str, int, dict[str, str]]
PAGE = 50


@bp.get("/suppression")
@sign_in_required
def suppression() -> Page:
    query = forms.as_model(
        SuppressionQuery,
        {
            "limit": PAGE,
            "startingAfter": request.args.get("after") or None,
            "email": request.args.get("email") or None,
        },
    )
    actor = session.actor()
    page = entries.list_page(actor, limit=PAGE, starting_after=query.starting_after, email=query.email)
    return forms.render(
        "suppression.html", page=SuppressionPageOut.of(page, actor.livemode), searched=query.email
    )


@bp.get("/suppression/entry")
@sign_in_required
def suppression_entry() -> Page:
    actor = session.actor()
    entry = SuppressionEntryOut.of(entries.read(actor, request.args.get("email", "")), actor.livemode)
    return forms.render("suppression_entry.html", entry=entry)


@bp.post("/suppression")
@sign_in_required
def suppression_add() -> Response:
    email = forms.text("email")
    row, added = entries.add(session.actor(), email, forms.text("reason") or None, source="dashboard")
    flash(f"{row.email} is {'now' if added else 'already'} suppressed.", "success")
    return redirect(url_for("dashboard.suppression"))


@bp.post("/suppression/remove")
@sign_in_required
def suppression_remove() -> Response:
    row = entries.remove(session.actor(), forms.text("email"))
    flash(f"{row.address} was taken off the list; its history is kept.", "success")
    return redirect(url_for("dashboard.suppression"))


@bp.post("/suppression/import")
@sign_in_required
def suppression_import() -> Response:
    upload = request.files.get("list")
    if upload is None or not upload.filename:
        raise InvalidField("list", "Choose a CSV file to import.")
    counts, read = exports.import_csv(session.actor(), upload.read().decode("utf-8-sig", errors="replace"))
    said = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items())) or "nothing new"
    flash(f"Imported: {said}; {read.refused_count} rows could not be read.", "success")
    return redirect(url_for("dashboard.suppression"))


@bp.get("/suppression/export")
@sign_in_required
def suppression_export() -> FlaskResponse:
    chunks = stream_with_context(exports.export_csv(session.actor()))
    response = FlaskResponse(chunks, mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="suppression.csv"'
    return response
