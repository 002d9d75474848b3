"""Politeness toward receiving servers, fleet-wide in Redis: spacing between new sessions to one MX IP, and
backing off from a server that answered 421. Real Redis, the mail lab, the engine's own prober."""

from __future__ import annotations

import secrets
import time

from maillab import MailLab
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet import politeness
from services.probing.fleet.policy import Politeness, place
from services.redis_client import get_redis, key
from verifier.dns import MailResolver
from verifier.egress import DIRECT
from verifier.smtp import ProbeOutcome, ReplyEvidence, probe_domain_group


def _ip() -> str:
    """An address of our own per test: the rules are per IP, and the run's Redis is shared."""
    return f"192.0.2.{secrets.randbelow(250) + 1}-{secrets.token_hex(3)}"


def _rules(**changes: float) -> Politeness:
    values: dict[str, float] = {"per_host": 3, "lease_seconds": 30, "interval_seconds": 0}
    values |= {"backoff_seconds": 30, "backoff_max_seconds": 600, "slow_reply_seconds": 5} | changes
    return Politeness(**values)  # type: ignore[arg-type]


def _reply(code: int, latency_ms: float = 5.0, text: str = "") -> ReplyEvidence:
    return ReplyEvidence(
        "mx.example.test", "192.0.2.1", "RCPT TO:<a@example.test>", code, None, text, False, latency_ms
    )


def test_new_sessions_to_one_ip_are_spaced_by_the_minimum_interval() -> None:
    ip, limiter = _ip(), RedisSessionLimiter(_rules(interval_seconds=0.4))
    first = limiter.acquire(ip, timeout=1)
    assert first is not None

    token, wait = politeness.try_open(place(DIRECT.id, ip), limiter.rules)
    assert token is None
    assert 0.2 < wait <= 0.4  # Redis says how long is left of the interval
    started = time.monotonic()
    second = limiter.acquire(ip, timeout=2)
    assert second is not None
    assert time.monotonic() - started >= 0.2
    assert limiter.active(ip) == 2  # the interval spaces sessions; it does not end the first


def test_spacing_is_per_ip() -> None:
    limiter = RedisSessionLimiter(_rules(interval_seconds=5))
    assert limiter.acquire(_ip(), timeout=1) is not None
    assert limiter.acquire(_ip(), timeout=0.1) is not None


def test_a_421_stops_new_sessions_to_that_server_for_the_backoff_which_doubles() -> None:
    ip, limiter = _ip(), RedisSessionLimiter(_rules(backoff_seconds=20, backoff_max_seconds=60))

    crowded = _reply(421, text="4.7.0 Too many connections from your IP")
    limiter.session_ended(ip, [_reply(220), crowded])

    assert limiter.acquire(ip, timeout=0.2) is None
    assert 19 < limiter.backing_off(ip) <= 20
    limiter.session_ended(ip, [crowded])
    assert 39 < limiter.backing_off(ip) <= 40
    assert limiter.blocked(ip) == 0  # a server asking us to slow down does not block us
    limiter.session_ended(ip, [crowded])
    # at SMTP_BACKOFF_MAX_SECONDS "too many connections" still coming refuses this egress: blocked, longer
    assert limiter.blocked(ip) > 60
    assert abs(limiter.backing_off(ip) - limiter.blocked(ip)) < 1


def test_slow_replies_count_as_a_complaint_and_quick_ones_do_not() -> None:
    ip, limiter = _ip(), RedisSessionLimiter(_rules(slow_reply_seconds=2))
    limiter.session_ended(ip, [_reply(250, latency_ms=1_900)])
    assert limiter.backing_off(ip) == 0
    limiter.session_ended(ip, [_reply(250, latency_ms=2_500)])
    assert limiter.backing_off(ip) > 0


def test_the_prober_backs_off_from_a_server_that_said_421(lab: MailLab) -> None:
    """busy.test greets with 421: the first group meets it; the next one does not even connect, and does
    not wait out its deadline for a backoff that outlasts it: it answers at once, saying why."""
    config = lab.engine_config(smtp_deadline=20.0)
    domain = MailResolver(config).resolve("busy.test")
    limiter = RedisSessionLimiter(_rules(backoff_seconds=30))
    _forget_backoff("127.0.0.18")

    first = probe_domain_group(domain, ["alice@busy.test"], config=config, limiter=limiter)
    asked = time.monotonic()
    second = probe_domain_group(domain, ["bob@busy.test"], config=config, limiter=limiter)

    assert time.monotonic() - asked < 10  # not held until its 20 s deadline by a 30 s backoff
    assert lab.servers["busy"].sessions_opened == 1
    assert first.results[0].outcome is not ProbeOutcome.ACCEPTED
    assert second.sessions_opened == 0
    assert second.results[0].reason == "backing_off"
    assert politeness.backing_off(place(DIRECT.id, "127.0.0.18")) > 0  # counted for the pair
    _forget_backoff("127.0.0.18")


def _forget_backoff(ip: str) -> None:
    """So later tests of the run may talk to the lab server again."""
    where = place(DIRECT.id, ip)
    get_redis().delete(key("smtp-backoff", where), key("smtp-backoff-level", where))
