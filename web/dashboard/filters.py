"""Template filters of the dashboard's pages: ``{{ days|plural('day') }}``, ``{{ name|human_name }}``."""

from __future__ import annotations

from flask import Blueprint

from core.words import plural
from web.dashboard.names import human_name


def install(bp: Blueprint) -> None:
    bp.add_app_template_filter(plural, "plural")
    bp.add_app_template_filter(human_name, "human_name")
