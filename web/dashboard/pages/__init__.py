"""One module per page; importing them attaches their routes to ``web.dashboard.blueprint.bp``."""

from __future__ import annotations


def load() -> None:
    from web.dashboard.pages import (  # noqa: F401, PLC0415 - imported for their routes
        account,
        assets,
        audit_log,
        commissions,
        custom_domains,
        devices,
        get_started,
        inbound_sources,
        keys,
        lists,
        mode,
        monitoring,
        overview,
        sub_users,
        suppression,
        usage,
        validate,
        webhooks,
        white_label,
    )
