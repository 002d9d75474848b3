"""Lists: upload a CSV (or JSON) list, watch it, download the cleaned list, cancel; the history of batches
and lists. Uploads go through ``services.validation.bulk`` like ``POST /bulk/jobs``: rate limit, quota,
workers."""

from __future__ import annotations

import unicodedata
from urllib.parse import quote

from flask import Response, jsonify, redirect, request, stream_with_context, url_for
from werkzeug.wrappers import Response as BaseResponse

from models.jobs import JobKind, JobStatus
from services import branding
from services.errors import InvalidField
from services.validation import bulk, history, list_names, submit
from web.body_limits import body_limit
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.security import owner_upload_limit
from web.dashboard.session import sign_in_required
from web.limits import rate_limited_as
from web.parsing import parse_query
from web.schemas.bulk import BulkJobOut, DownloadQuery, UploadQuery
from web.schemas.validation_bodies import job_options

Page = tuple[str, int, dict[str, str]]
FORMATS = {".csv": "csv", ".txt": "csv", ".json": "json"}
DOWNLOAD_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}
BULK = [JobKind.BULK]
ATTR_CHARS = "!#$&+-.^_`|~"  # RFC 5987 attr-char besides letters and digits: left unencoded in filename*


@bp.get("/lists")
@sign_in_required
def lists() -> Page:
    jobs = history.recent_jobs(session.actor(), [JobKind.BULK, JobKind.BATCH])
    return forms.render("lists.html", jobs=jobs)


@bp.post("/lists")
@body_limit(owner_upload_limit)
@sign_in_required
@rate_limited_as(session.actor)
def lists_upload() -> BaseResponse:
    upload = request.files.get("list")
    if upload is None or not upload.filename:
        raise InvalidField("list", "Choose a CSV file to upload.")
    fmt = FORMATS.get("." + upload.filename.rsplit(".", 1)[-1].lower())
    if fmt is None:
        raise InvalidField("list", "Upload a .csv file (one address per row) or a .json array of addresses.")
    actor = session.actor()
    options = job_options(actor, forms.as_model(UploadQuery, {"quickMode": forms.checked("quick_mode")}))
    submitted = bulk.upload(actor, upload.stream, fmt, options, file_name=upload.filename)
    return redirect(url_for("dashboard.lists_job", job_id=submitted.job.public_id))


@bp.get("/lists/<job_id>")
@sign_in_required
def lists_job(job_id: str) -> Page:
    job = submit.find(session.actor(), job_id, BULK)
    finished = JobStatus(job.status).finished
    return forms.render("list_job.html", job=_progress(job_id), name=job.file_name, finished=finished)


@bp.get("/lists/<job_id>/progress")
@sign_in_required
def lists_job_progress(job_id: str) -> Response:
    return jsonify(_progress(job_id))


@bp.get("/lists/<job_id>/download")
@sign_in_required
def lists_download(job_id: str) -> Response:
    fmt = parse_query(DownloadQuery).format
    actor = session.actor()
    metadata = branding.brand_of(actor.account, via_custom_domain=False).metadata()
    job = submit.find(actor, job_id, BULK)
    response = Response(stream_with_context(bulk.download(job, fmt, metadata)), mimetype=DOWNLOAD_TYPES[fmt])
    response.headers.set(
        "Content-Disposition", "attachment", **_file_name(list_names.download_name(job, fmt))
    )
    return response


@bp.post("/lists/<job_id>/cancel")
@sign_in_required
def lists_cancel(job_id: str) -> BaseResponse:
    submit.cancel(session.actor(), job_id, BULK)
    return redirect(url_for("dashboard.lists_job", job_id=job_id))


def _progress(job_id: str) -> dict[str, object]:
    """The API's ``BulkJobOut`` plus what the page shows: percent, readable time left, finished."""
    # The dashboard is served on the service's own host, so its links use PUBLIC_BASE_URL.
    out = BulkJobOut.of(bulk.progress(submit.find(session.actor(), job_id, BULK)), None)
    body: dict[str, object] = out.model_dump(mode="json")
    body["percent"] = int(out.processed * 100 / out.total) if out.total else 0
    body["finished"] = JobStatus(out.status).finished
    body["eta"] = _readable(out.eta_seconds, finished=bool(body["finished"]))
    return body


def _file_name(name: str) -> dict[str, str]:
    """Content-Disposition's file name: ASCII for old clients, the exact name as ``filename*`` (RFC 6266)
    when it has more. Quotes and backslashes become "_" rather than trusting every client's unescaping."""
    safe = name.replace('"', "_").replace("\\", "_")
    ascii_only = unicodedata.normalize("NFKD", safe).encode("ascii", "ignore").decode("ascii")
    if ascii_only == safe:
        return {"filename": safe}
    return {"filename": ascii_only, "filename*": f"UTF-8''{quote(safe, safe=ATTR_CHARS)}"}


def _readable(seconds: int | None, *, finished: bool) -> str:
    if finished:
        return "done"
    if seconds is None:
        return "estimating…"
    minutes, rest = divmod(seconds, 60)
    return f"about {minutes} min {rest} s" if minutes else f"about {rest} s"
