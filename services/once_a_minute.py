"""At most one of something per subject and minute: writes a caller can trigger at will, bounded.

Two users: failed authentications with a made-up key (one audit row per source IP and minute, however
hard a loop hammers us) and a key's ``last_used_at`` (one UPDATE per key and minute, not one per
request). The minute is the service clock's (UTC-aligned), so tests move time instead of sleeping; the
Redis marker only has to outlive its minute.
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError

from core import clock
from core.times import EPOCH
from services.redis_client import get_redis, key

MARKER_TTL_SECONDS = 120
log = logging.getLogger(__name__)


def first_this_minute(kind: str, subject: str | int | None, *, if_redis_down: bool) -> bool:
    """True for the first ``kind`` event of ``subject`` in this clock minute (the one to act on).

    ``if_redis_down`` is the answer when Redis is unreachable: True where losing the event is worse than
    a few extra rows (the audit trail), False where the write is a convenience (``last_used_at``).
    """
    minute = int((clock.now() - EPOCH).total_seconds()) // 60
    marker = key("once-a-minute", kind, subject if subject is not None else "-", minute)
    try:
        return bool(get_redis().set(marker, "1", nx=True, ex=MARKER_TTL_SECONDS))
    except RedisError:
        log.warning("once-a-minute gate unavailable for %s", kind, exc_info=True)
        return if_redis_down
