"""Failed authentications and denials in the audit log, folded: one entry per key, event type, source IP
and clock minute, carrying ``details.folded``, how many more like it that minute brought.

Each of these is caused by a caller at will (a loop with a revoked key, a scanner on a fenced key, a
client retrying a route its key may not use), so recording every one would let anyone with a key - or
with a key's id - write rows into an account's trail as fast as they can send requests. The first failure
of a window writes its entry; the others only count in Redis (``HINCRBY``), and ``fold_counts`` (beat,
every ``FOLD_SECONDS``) writes the counts into their entries: one UPDATE per entry and sweep, however
hard the flood. While Redis is down every failure is recorded: losing the trail is worse than extra rows.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from redis.exceptions import RedisError
from sqlalchemy import func, update

from core import clock
from core.times import EPOCH
from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from services import audit
from services.redis_client import get_redis, key

log = logging.getLogger(__name__)
FOLD_SECONDS = 30.0
WINDOW_TTL_SECONDS = 600  # outlives its minute by enough sweeps to fold its last count
_WINDOWS = "audit-fold-windows"


def record_folded(
    event: AuditEvent,
    *,
    account_id: int | None,
    key_id: int | None,
    origin: audit.Origin,
    details: Mapping[str, object],
    livemode: bool = True,
) -> None:
    """Record ``event`` unless one like it (same key, type and IP) was recorded this minute; then count it.
    ``livemode`` False: a test key's entry, in the test-mode trail."""
    minute = int((clock.now() - EPOCH).total_seconds()) // 60
    window = key("audit-fold", event.value, key_id if key_id is not None else "-", origin.ip or "-", minute)
    try:
        seen = int(get_redis().hincrby(window, "count", 1))
        get_redis().expire(window, WINDOW_TTL_SECONDS)
    except RedisError:
        log.warning("audit folding unavailable; recording every failure", exc_info=True)
        seen = 1
    if seen > 1:
        return
    entry = audit.record(
        event,
        account_id=account_id,
        key_id=key_id,
        origin=origin,
        details={**details, "folded": 0},
        livemode=livemode,
    )
    try:
        pipe = get_redis().pipeline()
        pipe.hset(window, "entry", entry.id)
        pipe.sadd(key(_WINDOWS), window)
        pipe.execute()
    except RedisError:
        log.warning("audit entry %s will not show its folded count", entry.id, exc_info=True)


def fold_counts() -> int:
    """Write each window's count into its entry (``details.folded``); forget windows past their minute.
    Returns how many entries were updated."""
    redis = get_redis()
    current = int((clock.now() - EPOCH).total_seconds()) // 60
    updated = 0
    for window in redis.smembers(key(_WINDOWS)):
        fields = redis.hgetall(window)
        if "entry" in fields and int(fields.get("count", 1)) > 1:
            _set_folded(int(fields["entry"]), int(fields["count"]) - 1)
            updated += 1
        if not fields or int(str(window).rsplit(":", 1)[1]) < current:
            redis.srem(key(_WINDOWS), window)
            redis.delete(window)
    return updated


def _set_folded(entry_id: int, folded: int) -> None:
    with transaction() as session:
        session.execute(
            update(AuditEntry)
            .where(AuditEntry.id == entry_id)
            .values(details=AuditEntry.details.op("||")(func.jsonb_build_object("folded", folded)))
        )
