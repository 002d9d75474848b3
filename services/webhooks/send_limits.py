"""How often an account may ask for test sends and redeliveries: ``SENDS_PER_MINUTE`` per clock minute.

Each one makes our workers POST to a URL the customer chose, so without a limit a key could turn the
webhook workers into a load generator against a third party (or against its own slow receiver, to tie
workers up). Redis counts per account, mode and minute (the service clock's, like the rate-limit windows):
test mode has its own count, so a test key's sends never use up the live ones, nor the reverse.
"""

from __future__ import annotations

from core import clock
from core.times import EPOCH
from services.redis_client import get_redis, key
from services.webhooks.errors import SendsLimited

SENDS_PER_MINUTE = 10
TTL_SECONDS = 120


def admit(account_id: int, livemode: bool) -> None:
    """Count one send of ``account_id`` in ``livemode``'s mode this minute, or raise ``SendsLimited`` past
    the limit."""
    seconds = int((clock.now() - EPOCH).total_seconds())
    minute = seconds // 60
    counter = key("webhook-sends" if livemode else "webhook-sends-test", account_id, minute)
    pipe = get_redis().pipeline()
    pipe.incr(counter)
    pipe.expire(counter, TTL_SECONDS)
    count = int(pipe.execute()[0])
    if count > SENDS_PER_MINUTE:
        raise SendsLimited(SENDS_PER_MINUTE, retry_after=60 - seconds % 60, reset=(minute + 1) * 60)
