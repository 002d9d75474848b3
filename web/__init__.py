"""The web tier: ``create_app()`` builds the app (``gunicorn 'web:create_app()'``, ``flask --app web``)."""

from __future__ import annotations

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from settings import Settings, get_settings
from web import client_ip, config, dashboard, errors, limits, logs, parsing, pipeline
from web.api import register as register_blueprints
from web.cli import accounts, egress, openapi_document, resellers


def create_app(settings: Settings | None = None) -> Flask:
    """An app configured from ``settings`` (default: the environment, read once by ``settings.py``).

    ``settings`` governs the web tier (APP_ENV, TRUSTED_PROXIES, MAX_BODY_BYTES); Postgres and Redis
    connections are process-wide and always follow ``get_settings()``.
    """
    settings = settings or get_settings()
    logs.configure()
    app = Flask(__name__, static_folder=None)  # an API: no /static route to authenticate or document
    app.url_map.converters["int"] = parsing.DatabaseIdConverter
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False  # keep fields in the order the schemas declare them
    config.store(app, settings)
    client_ip.install(app, settings.trusted_proxies)
    pipeline.install(app)
    errors.install(app)
    limits.install(app)
    register_blueprints(app)
    dashboard.install(app, settings)
    app.cli.add_command(accounts)
    app.cli.add_command(resellers)
    app.cli.add_command(egress)
    app.cli.add_command(openapi_document)
    return app


__all__ = ["create_app"]
