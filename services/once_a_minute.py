"""Bounding the audit writes a stranger can cause at will: the first per source and minute, the rest dropped.

A request with a made-up key costs its sender nothing, and each one would otherwise be a Postgres row
that belongs to no account (operators only). One entry per source IP and minute keeps the trail ("this
address was guessing keys at 10:02") without letting a loop turn the audit log into a write amplifier.
The trade-off accepted: the entry says that it happened and from where, not how often.
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError

from services.redis_client import get_redis, key

WINDOW_SECONDS = 60
log = logging.getLogger(__name__)


def first_in_window(kind: str, source: str | None) -> bool:
    """True for the first ``kind`` event from ``source`` in the window (the one to record).

    If Redis is unreachable the event is recorded anyway: losing the trail is worse than a few extra rows.
    """
    try:
        marked = get_redis().set(key("audit-gate", kind, source or "-"), "1", nx=True, ex=WINDOW_SECONDS)
    except RedisError:
        log.warning("audit gate unavailable: recording the event", exc_info=True)
        return True
    return bool(marked)
