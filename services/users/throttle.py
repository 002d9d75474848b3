"""Sign-in attempts limited per email and per client IP (Redis, fixed 15-minute windows).

Failures are counted, successes are not: an owner who mistypes twice and then gets in is not held back,
while a guesser is stopped after ``EMAIL_FAILURES`` tries at one account (or ``IP_FAILURES`` from one address
across accounts, the credential-stuffing pattern). A limited email answers "try later" even to the right
password; that is the point (a correct guess must not be told apart). Trade-off accepted: someone who knows
an owner's email can keep that owner out for 15 minutes at a time; the reset link still works. If Redis is
down sign-in fails closed (the error propagates): an unlimited guessing window is worse than a brief outage.
"""

from __future__ import annotations

import hashlib

from services.redis_client import get_redis, key
from services.users.errors import SignInThrottled

WINDOW_SECONDS = 15 * 60
EMAIL_FAILURES = 5
IP_FAILURES = 20


def _keys(email: str, ip: str | None) -> list[tuple[str, int]]:
    # The email is hashed: Redis key names show up in monitoring, addresses need not.
    digest = hashlib.sha256(email.encode()).hexdigest()[:32]
    pairs = [(key("sign-in", "email", digest), EMAIL_FAILURES)]
    if ip:
        pairs.append((key("sign-in", "ip", ip), IP_FAILURES))
    return pairs


def check(email: str, ip: str | None) -> None:
    """Raise ``SignInThrottled`` if this email or this address has used up its failures."""
    redis = get_redis()
    for name, limit in _keys(email, ip):
        if int(redis.get(name) or 0) >= limit:
            wait = max(int(redis.ttl(name)), 1)
            minutes = -(-wait // 60)
            raise SignInThrottled(
                f"Too many failed sign-ins. Try again in {minutes} minute(s), or reset your password.",
                retry_after=wait,
            )


def note_failure(email: str, ip: str | None) -> None:
    pipe = get_redis().pipeline()
    for name, _limit in _keys(email, ip):
        pipe.incr(name)
        pipe.expire(name, WINDOW_SECONDS, nx=True)
    pipe.execute()


def clear(email: str) -> None:
    """A successful sign-in (or password reset) forgets the email's failures; the IP's count stays."""
    get_redis().delete(_keys(email, None)[0][0])
