"""How many times a client network did something this hour (an IPv6 client by its /64), refused past a limit:
forms anyone can post without signing in (sign-up, password reset) must not become a way to open accounts
or send email in bulk."""

from __future__ import annotations

from services.networks import client_network
from services.redis_client import get_redis, key
from services.users.errors import Throttled

HOUR_SECONDS = 3600


def count(kind: str, ip: str | None, per_hour: int, refusal: str) -> None:
    """Count one ``kind`` from ``ip``'s network; raise ``Throttled`` (with ``refusal``) past ``per_hour``."""
    name = key(kind, "per-network", client_network(ip))
    pipe = get_redis().pipeline()
    pipe.incr(name)
    pipe.expire(name, HOUR_SECONDS, nx=True)
    used, _ = pipe.execute()
    if int(used) > per_hour:
        raise Throttled(refusal, retry_after=HOUR_SECONDS)
