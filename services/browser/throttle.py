"""The browser endpoint's own windows: per visitor and per key, before the account's rate limits.

A publishable key is public: anyone can script requests with it. Two fixed one-minute windows bound what
they can do. Per visitor network (an IPv4 address or an IPv6 /64, ``BROWSER_VISITOR_PER_MINUTE``): one
person blurring a field a few times never meets it, a script hammering from one place does. Per key
(``BROWSER_KEY_SHARE_PERCENT`` of the plan's requests per minute): visitors together cannot spend the key's
day (``budget``) in a burst. Neither is the account's window, which is its servers' alone. Both are counted
in one script, the visitor's first (a visitor over its own limit does not use up the key's), each attempt
counting, so a flood stays throttled.

A throttled request is not an error: the form is told ``unknown`` and goes on (``verdicts.throttled``),
nothing is validated or charged.
"""

from __future__ import annotations

import math

from core import clock
from models.accounts import Account
from services.networks import client_network
from services.redis_client import key, script
from services.usage.plans import plan_for
from settings import get_settings

WINDOW_SECONDS = 60
# KEYS: the visitor's counter, the key's counter. ARGV: window seconds, visitor limit, key limit.
# Returns 1 when the request may go ahead.
_COUNT = """
local visitor = redis.call('INCR', KEYS[1])
if visitor == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
if visitor > tonumber(ARGV[2]) then return 0 end
local per_key = redis.call('INCR', KEYS[2])
if per_key == 1 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
if per_key > tonumber(ARGV[3]) then return 0 end
return 1
"""


def admit(account: Account, key_id: int, visitor_ip: str | None) -> bool:
    """Count this request in the visitor's and the key's windows; False when either is full."""
    settings = get_settings().browser
    minute = int(clock.now().timestamp()) // WINDOW_SECONDS
    keys = [
        key("browser", "visitor", client_network(visitor_ip), minute),
        key("browser", "key", key_id, minute),
    ]
    args = [WINDOW_SECONDS * 2, settings.visitor_per_minute, key_limit(account)]
    return bool(script(_COUNT)(keys=keys, args=args))


def key_limit(account: Account) -> int:
    """The key's share of its plan's requests per minute, at least one."""
    share = get_settings().browser.key_share_percent
    return max(1, math.ceil(plan_for(account.tier).requests_per_minute * share / 100))
