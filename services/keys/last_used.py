"""``last_used_at`` of API keys: when a key last authenticated a request, to the minute.

People retiring a key ask "is anything still using it?"; this answers. Writing it on every request would
turn each call into a Postgres UPDATE on a hot row, so it is written at most once per key and clock minute
(``services.once_a_minute``) and skipped while Redis is down: a convenience, never worth failing or
slowing a request for. ``updated_at`` is left alone: it says when the key's settings last changed.
"""

from __future__ import annotations

from sqlalchemy import update

from core import clock
from models.keys import ApiKey
from models.session import transaction
from services import once_a_minute


def note_use(key: ApiKey) -> None:
    """Record that ``key`` authenticated a request now, unless it already did this minute."""
    if not once_a_minute.first_this_minute("key-used", key.id, if_redis_down=False):
        return
    now = clock.now()
    stmt = update(ApiKey).where(ApiKey.id == key.id)
    with transaction() as session:
        session.execute(stmt.values(last_used_at=now, updated_at=ApiKey.updated_at))
    key.last_used_at = now
