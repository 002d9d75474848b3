"""Sign-in attempts limited per email and per client network (Redis, fixed 15-minute windows).

Every attempt is counted before its password is looked at, in one script, so a burst of concurrent guesses
cannot slip past a check-then-count race: with a limit of 5, exactly 5 of 16 simultaneous tries reach the
password check. A success then gives its attempt back (the email's count is cleared, the network's
decremented): an owner who mistypes twice and then gets in is not held back, while a guesser is stopped
after ``EMAIL_FAILURES`` tries at one account (or ``IP_FAILURES`` from one network across accounts, the
credential-stuffing pattern; an IPv6 client by its /64, since one subscriber holds the whole /64). A limited
email answers "try later" even to the right password; that is the point (a correct guess must not be told
apart). Trade-off accepted: someone who knows an owner's email can keep that owner out for 15 minutes at a
time; the reset link still works. If Redis is down sign-in fails closed (the error propagates): an unlimited
guessing window is worse than a brief outage.
"""

from __future__ import annotations

import hashlib

from core.words import plural
from services.networks import client_network
from services.redis_client import get_redis, key, script
from services.users.errors import SignInThrottled

WINDOW_SECONDS = 15 * 60
EMAIL_FAILURES = 5
IP_FAILURES = 20

# KEYS: counters; ARGV: window seconds, then each counter's limit. Counts this attempt on every counter and
# returns the seconds to wait on the first counter past its limit (0: the attempt may go ahead).
_COUNT = """
for index, name in ipairs(KEYS) do
  local count = redis.call('INCR', name)
  if count == 1 then redis.call('EXPIRE', name, ARGV[1]) end
end
for index, name in ipairs(KEYS) do
  if tonumber(redis.call('GET', name)) > tonumber(ARGV[index + 1]) then
    return math.max(redis.call('TTL', name), 1)
  end
end
return 0
"""


def _keys(email: str, ip: str | None) -> list[tuple[str, int]]:
    # The email is hashed: Redis key names show up in monitoring, addresses need not.
    digest = hashlib.sha256(email.encode()).hexdigest()[:32]
    pairs = [(key("sign-in", "email", digest), EMAIL_FAILURES)]
    if ip:
        pairs.append((key("sign-in", "ip", client_network(ip)), IP_FAILURES))
    return pairs


def count_attempt(email: str, ip: str | None) -> None:
    """Count this attempt against the email and the network; raise ``SignInThrottled`` past either limit."""
    pairs = _keys(email, ip)
    wait = int(
        script(_COUNT)(keys=[name for name, _ in pairs], args=[WINDOW_SECONDS, *(n for _, n in pairs)])
    )
    if wait:
        minutes = plural(-(-wait // 60), "minute")
        raise SignInThrottled(
            f"Too many failed sign-ins. Try again in {minutes}, or reset your password.", retry_after=wait
        )


def give_back(email: str, ip: str | None) -> None:
    """A successful sign-in: the email's failures are forgotten, and the network's count loses this try."""
    email_key, *network = _keys(email, ip)
    pipe = get_redis().pipeline()
    pipe.delete(email_key[0])
    for name, _limit in network:
        pipe.decr(name)
    pipe.execute()


def clear(email: str) -> None:
    """A password reset forgets the email's failures; the network's count stays."""
    get_redis().delete(_keys(email, None)[0][0])
