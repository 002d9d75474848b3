"""The dashboard blueprint, with its own templates and static files (served by the app: no CDN)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint

STATIC = Path(__file__).parent / "static"
bp = Blueprint("dashboard", __name__, url_prefix="/dashboard", template_folder="templates")
