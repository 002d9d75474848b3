"""The API blueprints, one module per capability, all registered from ``BLUEPRINTS``."""

from __future__ import annotations

from flask import Blueprint, Flask

from web.api import (
    audit,
    batches,
    browser,
    bulk,
    commissions,
    custom_domains,
    keys,
    listeners,
    meta,
    monitoring,
    sub_users,
    suppression,
    suppression_inbound,
    usage,
    validate,
    webhooks,
    white_label,
)

BLUEPRINTS: tuple[Blueprint, ...] = (
    meta.bp,
    keys.bp,
    audit.bp,
    webhooks.bp,
    listeners.bp,
    usage.bp,
    validate.bp,
    batches.bp,
    browser.bp,
    bulk.bp,
    monitoring.bp,
    sub_users.bp,
    commissions.bp,
    white_label.bp,
    custom_domains.bp,
    suppression.bp,
    suppression_inbound.bp,
)


def register(app: Flask) -> None:
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
