"""Readiness of what the web tier depends on: Postgres and Redis answer."""

from __future__ import annotations

from sqlalchemy import text

from models.session import transaction
from services.redis_client import get_redis


def check() -> dict[str, bool]:
    """Each dependency -> reachable; a failure is reported, not raised (health pages must answer)."""
    return {"database": _database_ok(), "redis": _redis_ok()}


def _database_ok() -> bool:
    try:
        with transaction() as session:
            session.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any failure means "not ready"; the detail goes to the log, not the probe
        return False
    return True


def _redis_ok() -> bool:
    try:
        return bool(get_redis().ping())
    except Exception:  # noqa: BLE001 - as above
        return False
