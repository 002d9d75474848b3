"""The dashboard's CSS and JavaScript, served by the app itself (pages load nothing from elsewhere)."""

from __future__ import annotations

from flask import Response, send_from_directory

from web.dashboard.blueprint import STATIC, bp

MAX_AGE_SECONDS = 3600


@bp.get("/static/<path:filename>")
def static(filename: str) -> Response:
    return send_from_directory(STATIC, filename, max_age=MAX_AGE_SECONDS)
