"""The API blueprints, one module per capability, all registered from ``BLUEPRINTS``."""

from __future__ import annotations

from flask import Blueprint, Flask

from web.api import audit, batches, bulk, keys, meta, usage, validate, webhooks

BLUEPRINTS: tuple[Blueprint, ...] = (
    meta.bp,
    keys.bp,
    audit.bp,
    webhooks.bp,
    usage.bp,
    validate.bp,
    batches.bp,
    bulk.bp,
)


def register(app: Flask) -> None:
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
