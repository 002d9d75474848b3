"""Monitored lists: keep a finished list (from its page), see each list's runs, download a run's changes,
change its schedule, pause, stop: ``services.monitoring``, as the API's ``/monitored-lists``."""

from __future__ import annotations

from flask import Response, flash, redirect, stream_with_context, url_for
from werkzeug.wrappers import Response as BaseResponse

from models.monitoring import Schedule
from services.monitoring import diff, lists
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.monitoring import KeepListBody, MonitoredListOut, UpdateMonitoredListBody

Page = tuple[str, int, dict[str, str]]


@bp.get("/monitored-lists")
@sign_in_required
def monitored_lists() -> Page:
    kept = [MonitoredListOut.of(each) for each in lists.all_lists(session.actor())]
    return forms.render("monitored_lists.html", lists=kept)


@bp.post("/monitored-lists")
@sign_in_required
def monitored_lists_keep() -> BaseResponse:
    body = forms.as_model(KeepListBody, {"jobId": forms.text("job_id"), "schedule": forms.text("schedule")})
    kept = lists.keep(session.actor(), body.job_id, Schedule(body.schedule))
    flash(
        f"{kept.kept.name} is monitored: re-checked {body.schedule}, each run charged as a list.", "success"
    )
    return redirect(url_for("dashboard.monitored_lists", _anchor=f"list-{kept.kept.public_id}"))


@bp.post("/monitored-lists/<list_id>")
@sign_in_required
def monitored_lists_update(list_id: str) -> BaseResponse:
    fields: dict[str, object] = {"schedule": forms.text("schedule")} if forms.text("schedule") else {}
    if forms.text("paused"):
        fields["paused"] = forms.checked("paused")
    changes = forms.as_model(UpdateMonitoredListBody, fields).to_changes()
    lists.update(session.actor(), list_id, changes)
    flash("The monitored list was updated.", "success")
    return redirect(url_for("dashboard.monitored_lists", _anchor=f"list-{list_id}"))


@bp.post("/monitored-lists/<list_id>/delete")
@sign_in_required
def monitored_lists_delete(list_id: str) -> BaseResponse:
    lists.remove(session.actor(), list_id)
    flash("The list is no longer monitored; its runs' lists stay under Lists.", "success")
    return redirect(url_for("dashboard.monitored_lists"))


@bp.get("/monitored-lists/<list_id>/runs/<int:number>/diff")
@sign_in_required
def monitored_lists_diff(list_id: str, number: int) -> Response:
    chunks = diff.download(session.actor(), list_id, number)
    response = Response(stream_with_context(chunks), mimetype="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{list_id}-run-{number}-diff.csv"'
    return response
