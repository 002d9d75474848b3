"""Template filters of the dashboard's pages: ``{{ days|plural('day') }}``."""

from __future__ import annotations

from flask import Blueprint

from core.words import plural


def install(bp: Blueprint) -> None:
    bp.add_app_template_filter(plural, "plural")
