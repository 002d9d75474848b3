"""The settings of the running app: ``create_app(settings)`` stores them, the web tier reads them here.

Tests build apps with their own settings (production mode, trusted proxies) in one process, so the web
tier reads the app's copy rather than the process-wide ``get_settings()``.
"""

from __future__ import annotations

from flask import Flask, current_app

from settings import Settings

EXTENSION = "verimail.settings"


def store(app: Flask, settings: Settings) -> None:
    app.extensions[EXTENSION] = settings


def app_settings() -> Settings:
    settings: Settings = current_app.extensions[EXTENSION]
    return settings
