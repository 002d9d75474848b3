"""Readiness of what the web tier depends on: Postgres and Redis answer, each within ``CHECK_SECONDS``.

Both are asked at once on a small pool of this module's own threads, and a store that has not answered
by the deadline is reported down: a load balancer's probe gets its answer in ``CHECK_SECONDS`` whatever
hangs. Trade-off accepted: a hung check keeps its thread until its own client gives up (Redis's socket
timeout, Postgres's connect timeout); with every thread of the pool hung, later checks report the store
down at their deadline without asking it, which is what it is.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as NoAnswer

from redis.exceptions import RedisError
from sqlalchemy import text

from models.session import transaction
from services.egress import pool
from services.redis_client import get_redis
from settings import Settings
from verifier.results import JsonValue

CHECK_SECONDS = 3.0
NAMES = {"database": "Postgres", "redis": "Redis"}  # what each check is called where the body names it
log = logging.getLogger(__name__)
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="health")


def check() -> dict[str, bool]:
    """Each dependency -> reachable; a failure is reported, not raised (health pages must answer)."""
    asked = {name: _POOL.submit(probe) for name, probe in PROBES.items()}
    deadline = time.monotonic() + CHECK_SECONDS
    return {name: _answered(name, future, deadline) for name, future in asked.items()}


def down(checks: dict[str, bool]) -> list[str]:
    """The names of the dependencies that did not answer, as an operator calls them."""
    return [NAMES[name] for name, ok in checks.items() if not ok]


def _answered(name: str, future: Future[None], deadline: float) -> bool:
    try:
        future.result(timeout=max(0.0, deadline - time.monotonic()))
    except NoAnswer:
        log.warning("health: %s did not answer within %g s", NAMES[name], CHECK_SECONDS)
        return False
    except Exception as error:  # noqa: BLE001 - any failure means "not ready"; the detail goes to the log
        log.warning("health: %s unreachable: %s", NAMES[name], error)
        return False
    return True


def _database() -> None:
    with transaction() as session:
        session.execute(text("SELECT 1"))


def _redis() -> None:
    if not get_redis().ping():
        raise RuntimeError("PING was not answered with PONG")


PROBES: dict[str, Callable[[], None]] = {"database": _database, "redis": _redis}


def operator(presented: str | None, settings: Settings) -> bool:
    """Is ``presented`` the operator's token (``OPERATOR_TOKEN_SHA256``)? Compared in constant time."""
    expected = settings.operator_token_sha256
    if not expected or not presented:
        return False
    return hmac.compare_digest(hashlib.sha256(presented.encode()).hexdigest(), expected)


def egresses() -> list[dict[str, JsonValue]] | None:
    """The egress pool with its counters, for the operator (None while Redis does not answer: the
    answer says so already)."""
    try:
        return [status.to_dict() for status in pool.pool_status()]
    except RedisError as error:
        log.warning("egress counters not read: %s", error)
        return None
