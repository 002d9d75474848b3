"""Politeness per (egress, MX address): an MX address takes the session cap once per egress, a complaint
backs off one pair, the fleet knows its live egresses, and a verdict is the same whichever egress asked.
Real Redis, the mail lab, sessions leaving from loopback source addresses (``direct://127.0.0.x``)."""

from __future__ import annotations

import secrets
import time
from concurrent.futures import ThreadPoolExecutor

from maillab import MailLab
from services.probing.egress import registry
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet import policy
from services.probing.fleet.policy import Politeness
from services.probing.rounds import routes
from settings import get_settings
from verifier.dns import MailResolver
from verifier.egress import parse_egress
from verifier.smtp import probe_domain_group
from verifier.smtp.limiter import EgressLease

FIRST, SECOND = parse_egress("direct://127.0.0.62"), parse_egress("direct://127.0.0.63")


def _rules(per_host: int = 1) -> Politeness:
    return Politeness(per_host, 30, 0, 30, 600, 60)


def _ip() -> str:
    """An MX address of our own per test: the rules are per address, and the run's Redis is shared."""
    return f"192.0.2.{secrets.randbelow(250) + 1}-{secrets.token_hex(3)}"


def test_the_sharing_policy_gives_seats_per_egress_and_spreads_sessions() -> None:
    assert [policy.seats(3, count) for count in (0, 1, 2, 4)] == [3, 3, 6, 12]
    assert policy.egress_order(["a", "b", "c"], 4) == ["b", "c", "a"]
    assert policy.egress_order(["a", "b", "c"], 0, [5.0, 0.0, 0.0]) == ["b", "c", "a"]  # backing off last
    assert policy.pool_wait([3.0, 0.0]) == 0.0  # a full pair is polled rather than waiting out a backoff
    assert policy.pool_wait([3.0, 1.5]) == 1.5
    assert policy.place("direct://", "192.0.2.1") != policy.place("direct://127.0.0.62", "192.0.2.1")


def test_an_mx_address_takes_the_cap_once_per_egress() -> None:
    ip, one, two = (
        _ip(),
        RedisSessionLimiter(_rules(), (FIRST,)),
        RedisSessionLimiter(_rules(), (FIRST, SECOND)),
    )
    leases = [two.acquire(ip, 0.1), two.acquire(ip, 0.1)]
    assert all(isinstance(lease, EgressLease) for lease in leases)
    assert {lease.egress for lease in leases if isinstance(lease, EgressLease)} == {FIRST, SECOND}
    assert two.acquire(ip, 0.2) is None  # both pairs at their cap of one
    assert one.acquire(ip, 0.2) is None  # FIRST's pair is counted fleet-wide, whichever process asks
    for lease in leases:
        assert lease is not None
        two.release(ip, lease)
    assert two.active(ip) == 0


def test_a_complaint_backs_off_only_the_pair_that_received_it() -> None:
    ip, limiter = _ip(), RedisSessionLimiter(_rules(), (FIRST, SECOND))
    lease = limiter.acquire(ip, 0.1)
    assert isinstance(lease, EgressLease)
    limiter.release(ip, lease)
    limiter.session_ended(ip, [], lease)  # nothing to complain about
    assert limiter.backing_off(ip) == 0
    from tests.probing.test_politeness import _reply  # noqa: PLC0415 - one reply builder for both files

    limiter.session_ended(ip, [_reply(421)], lease)
    other = limiter.acquire(ip, 0.2)
    assert isinstance(other, EgressLease)
    assert other.egress != lease.egress  # the other egress still may
    assert limiter.backing_off(ip) == 0  # some egress of the process may open a session there
    limiter.release(ip, other)


def test_the_fleet_knows_every_live_egress_and_gives_lanes_seats_for_each() -> None:
    before = len(registry.live())
    registry.register((FIRST, SECOND))
    try:
        assert {registry.member(FIRST), registry.member(SECOND)} <= set(registry.live())
        time.sleep(registry.MEMO_SECONDS)
        per_host = get_settings().jobs.sessions_per_mx_host
        assert routes.seats_for("mx/192.0.2.7") == policy.seats(per_host, before + 2)
        assert routes.seats_for("example.test") == 1  # a domain's own lane: one seat
    finally:
        registry.leave()
    assert registry.member(FIRST) not in registry.live()


def test_a_busy_mx_address_serves_sessions_over_both_egresses_at_once(lab: MailLab) -> None:
    """sluggish.test answers every command after 0.3 s: two groups at once share its one session per
    egress when there is one egress, and run side by side over two."""
    config = lab.engine_config(smtp_deadline=20.0)
    domain = MailResolver(config).resolve("sluggish.test")
    peaks = []
    for egresses in ((FIRST,), (FIRST, SECOND)):
        limiter = RedisSessionLimiter(_rules(), egresses)
        lab.servers["sluggish"].reset()
        with ThreadPoolExecutor(2) as pool:
            groups = [(["alice@sluggish.test"], limiter), (["bob@sluggish.test"], limiter)]
            done = list(
                pool.map(
                    lambda group: probe_domain_group(domain, group[0], config=config, limiter=group[1]),
                    groups,
                )
            )
        assert all(result.results[0].outcome.value == "accepted" for result in done)
        peaks.append(lab.servers["sluggish"].peak_concurrent_sessions)
    assert peaks == [1, 2]


def test_a_verdict_is_the_same_whichever_egress_asked(lab: MailLab) -> None:
    config = lab.engine_config()
    domain = MailResolver(config).resolve("mailbox.test")
    emails = ["alice@mailbox.test", "zed@mailbox.test", "info@mailbox.test"]
    answers = []
    for egress in (FIRST, SECOND):
        limiter = RedisSessionLimiter(_rules(), (egress,))
        result = probe_domain_group(domain, emails, config=config, limiter=limiter, check_catch_all=True)
        assert result.egress == egress.id
        answers.append(
            (result.catch_all, [(probe.address, probe.outcome, probe.reason) for probe in result.results])
        )
    assert answers[0] == answers[1]
    assert answers[0][0] is False
