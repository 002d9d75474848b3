"""Monitored lists (scope ``bulk:*``): keep a finished bulk list and re-check it weekly or monthly.

Each run is a bulk list of its own, charged and probed as one; when it finishes, every address whose
severity or reason changed gets an ``address.changed`` event and the run a ``list.rechecked`` one.
"""

from __future__ import annotations

from flask import Blueprint, Response, stream_with_context

from models.monitoring import Schedule
from services.errors import NotFound
from services.monitoring import diff, lists
from services.monitoring.errors import AlreadyMonitored, NotMonitorable, RunNotCompared
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body
from web.schemas.base import respond
from web.schemas.monitoring import (
    DeletedMonitoredListOut,
    KeepListBody,
    MonitoredListOut,
    MonitoredListsOut,
    UpdateMonitoredListBody,
)

bp = Blueprint("monitoring", __name__, url_prefix="/monitored-lists")
DIFF = {
    "text/csv": {
        "type": "string",
        "description": "The list's own header and cells (padded to the widest row), then result_email, "
        "previous_severity, previous_reason, current_severity, current_reason; one row per row of the list "
        "whose address changed in this run, in order; cells a spreadsheet would run as a formula escaped.",
    }
}


@bp.post("")
@document(
    "Keep a completed bulk list as a monitored list, re-checked weekly or monthly",
    request=KeepListBody,
    responses={201: MonitoredListOut},
    description="The first re-check is one schedule step from now. Each run is charged as a bulk list of "
    "the same addresses (one validation per distinct address) and appears among the account's lists. "
    "404 if this account (in this mode) has no such list; 409 if it is not completed, or is monitored "
    "already (`listId` names it).",
    errors=(AlreadyMonitored, NotMonitorable, NotFound),
)
@require_scope("bulk:*")
def keep() -> Response:
    body = parse_body(KeepListBody)
    return respond(MonitoredListOut.of(lists.keep(current_auth(), body.job_id, Schedule(body.schedule))), 201)


@bp.get("")
@document("List the account's monitored lists with their runs", responses={200: MonitoredListsOut})
@require_scope("bulk:*")
def list_all() -> Response:
    auth = current_auth()
    kept = [MonitoredListOut.of(each) for each in lists.all_lists(auth)]
    return respond(MonitoredListsOut(data=kept, livemode=auth.livemode))


@bp.get("/<list_id>")
@document("Read one monitored list and its run history", responses={200: MonitoredListOut})
@require_scope("bulk:*")
def read(list_id: str) -> Response:
    return respond(MonitoredListOut.of(lists.one(current_auth(), list_id)))


@bp.patch("/<list_id>")
@document(
    "Change a monitored list's schedule, or pause and resume it",
    request=UpdateMonitoredListBody,
    responses={200: MonitoredListOut},
    description="A new schedule counts from the last run. A paused list starts no run; resumed past its "
    "date, it runs within a minute.",
)
@require_scope("bulk:*")
def update(list_id: str) -> Response:
    changes = parse_body(UpdateMonitoredListBody).to_changes()
    return respond(MonitoredListOut.of(lists.update(current_auth(), list_id, changes)))


@bp.delete("/<list_id>")
@document("Stop monitoring a list (its runs' bulk lists stay)", responses={200: DeletedMonitoredListOut})
@require_scope("bulk:*")
def delete(list_id: str) -> Response:
    auth = current_auth()
    lists.remove(auth, list_id)
    return respond(DeletedMonitoredListOut(id=list_id, livemode=auth.livemode))


@bp.get("/<list_id>/runs/<int:number>/diff")
@document(
    "Download the rows a run changed, with both verdicts (CSV, streamed)",
    responses={},
    raw_responses={200: DIFF},
    description="409 while the run has not completed.",
    errors=(RunNotCompared,),
)
@require_scope("bulk:*")
def download_diff(list_id: str, number: int) -> Response:
    chunks = diff.download(current_auth(), list_id, number)
    response = Response(stream_with_context(chunks), mimetype="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{list_id}-run-{number}-diff.csv"'
    return response
