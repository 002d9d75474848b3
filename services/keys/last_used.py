"""``last_used_at`` of API keys: when a key last authenticated a request, to the minute.

People retiring a key ask "is anything still using it?"; this answers. Writing it on every request would
turn each call into a Postgres UPDATE on a hot row, so it is written at most once per key and clock minute
(``services.once_a_minute``) and skipped while Redis is down: a convenience, never worth failing or
slowing a request for. ``updated_at`` is left alone: it says when the key's settings last changed.
Each process also remembers the keys it saw noted this minute, so only its first request per key and
minute asks Redis; the write keeps every process's key snapshots (``services.snapshots``).
"""

from __future__ import annotations

from sqlalchemy import update

from core import clock
from core.times import EPOCH
from models.keys import ApiKey
from models.session import transaction
from services import once_a_minute, snapshots

_SEEN_LIMIT = 10_000
_seen: dict[int, int] = {}  # key id -> the last minute this process knows its use was noted


def note_use(key: ApiKey) -> None:
    """Record that ``key`` authenticated a request now, unless it already did this minute."""
    now = clock.now()
    minute = int((now - EPOCH).total_seconds()) // 60
    if _seen.get(key.id) == minute:
        return
    first = once_a_minute.first_this_minute("key-used", key.id, if_redis_down=False)
    if len(_seen) >= _SEEN_LIMIT:
        _seen.clear()
    _seen[key.id] = minute
    if not first:
        return
    stmt = update(ApiKey).where(ApiKey.id == key.id).values(last_used_at=now, updated_at=ApiKey.updated_at)
    with transaction() as session:
        session.execute(stmt, execution_options={snapshots.KEEPS_SNAPSHOTS: True})
