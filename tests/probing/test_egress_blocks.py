"""Blocks routed around by the service's limiter: a server refusing one egress closes that (egress, MX
address) pair for a growing while, the addresses are asked again over another egress, a blocked session
never gives a verdict, and with every egress blocked the answer is unknown, reason "blocked", with the
time the service will try again. A proxy that fails is the egress's fault, shown, never a verdict.
Real Redis, the lab's block-list server (127.0.0.45, refusing source 127.0.0.61), a Dante proxy."""

from __future__ import annotations

import logging

import pytest

from maillab import MailLab
from maillab.world import BLOCKED_SOURCE, CLEAN_SOURCE, SPAMHAUS
from services.probing.egress import blocks
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet import policy
from services.probing.fleet.policy import Politeness
from services.redis_client import get_redis, key
from tests.fixtures.socks import StartProxy
from tests.verifier.test_smtp_egress import SLOW, kill_once_greeted
from verifier.dns import MailResolver
from verifier.egress import Egress, parse_egress
from verifier.smtp import DomainProbeResult, ReplyEvidence, SmtpVerdict, probe_over_egresses
from verifier.smtp.limiter import EgressLease

BLOCKED = parse_egress(f"direct://{BLOCKED_SOURCE}")
CLEAN = parse_egress(f"direct://{CLEAN_SOURCE}")
LIST_SERVER = "127.0.0.45"
RULES = Politeness(3, 30, 0, 30, 600, 60)


def _forget(*egresses: Egress, mx_ip: str = LIST_SERVER) -> None:
    """So each test meets the lab server as new: earlier tests of the run may have blocked a pair."""
    redis = get_redis()
    for egress in egresses:
        where = policy.place(egress.id, mx_ip)
        names = ("egress-blocked", "egress-blocked-level", "smtp-backoff", "smtp-backoff-level")
        redis.delete(*(key(name, where) for name in names), key("egress-block-shown", where))
        redis.delete(key("egress-blocked-by", egress.id), key("egress-out", egress.id))
        redis.delete(key("egress-fault", egress.id))
    redis.delete(key("mx-answered", mx_ip))


def _probe(
    lab: MailLab, limiter: RedisSessionLimiter, domain: str, *locals_: str, **config_values: float
) -> DomainProbeResult:
    config = lab.engine_config(smtp_egress=limiter.egresses, **config_values)
    addresses = [f"{local}@{domain}" for local in locals_]
    return probe_over_egresses(
        MailResolver(config).resolve(domain), addresses, config=config, limiter=limiter
    )


def _answers(result: DomainProbeResult) -> dict[str, tuple[str, str]]:
    return {item.address: (item.verdict.value, item.reason) for item in result.results}


def _reply(command: str, code: int | None, text: str) -> ReplyEvidence:
    return ReplyEvidence("mx.example.test", "192.0.2.1", command, code, None, text, False, 5.0)


def test_the_policy_reads_blocks_faults_and_their_lengths() -> None:
    greeting = policy.block_in([_reply("CONNECT", 554, SPAMHAUS.removeprefix("554 "))])
    assert greeting is not None
    assert not greeting.refused
    refused = policy.block_in([_reply("CONNECT", None, "connection refused")])
    assert refused is not None
    assert refused.refused
    assert policy.block_in([_reply("RCPT TO:<zed@example.test>", 550, "5.1.1 User unknown")]) is None
    assert policy.fault_in([_reply("CONNECT", None, "egress fault: proxy failed")]) is not None
    assert [policy.block_seconds(level) for level in (1, 2, 3)] == [300, 600, 1200]
    assert policy.block_seconds(20) == policy.BLOCK_MAX_SECONDS
    crowded = policy.complaint([_reply("CONNECT", 421, "4.7.0 Too many connections from your IP")], RULES)
    assert crowded == policy.TOO_MANY
    assert not policy.complaint_blocks(crowded, 300, RULES)
    assert policy.complaint_blocks(crowded, 600, RULES)
    busy = policy.complaint([_reply("CONNECT", 421, "4.3.2 Service not available")], RULES)
    assert busy == "421"
    assert not policy.complaint_blocks(busy, 600, RULES)  # a busy server asks for patience, not another way
    flat = Politeness(3, 30, 0, 60, 60, 60)  # the first backoff already the longest: no 421 blocks
    assert not policy.complaint_blocks(crowded, 60, flat)
    assert not policy.out_of_pool(policy.OUT_OF_POOL_MX - 1)
    assert policy.out_of_pool(policy.OUT_OF_POOL_MX)


def test_a_blocked_egress_is_routed_around_and_the_block_logged_once(
    lab: MailLab, caplog: pytest.LogCaptureFixture
) -> None:
    _forget(BLOCKED, CLEAN)
    limiter = RedisSessionLimiter(RULES, (BLOCKED, CLEAN))  # its first session leaves from BLOCKED
    caplog.set_level(logging.INFO, logger=blocks.__name__)

    first = _probe(lab, limiter, "blocklist.test", "alice", "zed", "bob")
    again = _probe(lab, limiter, "blocklist.test", "carol", "nobody")

    assert _answers(first) == {
        "alice@blocklist.test": ("deliverable", "accepted"),
        "zed@blocklist.test": ("undeliverable", "mailbox_rejected"),
        "bob@blocklist.test": ("deliverable", "accepted"),
    }
    assert _answers(again) == {
        "carol@blocklist.test": ("deliverable", "accepted"),
        "nobody@blocklist.test": ("undeliverable", "mailbox_rejected"),
    }
    assert first.egress == again.egress == CLEAN.id
    assert 250 < blocks.blocked_for(BLOCKED.id, LIST_SERVER) <= 300
    assert blocks.blocked_for(CLEAN.id, LIST_SERVER) == 0
    logged = [record.getMessage() for record in caplog.records if "blocked by" in record.getMessage()]
    assert len(logged) == 1, logged  # once, not per address or session
    assert logged[0].startswith(f"egress {BLOCKED.id} blocked by {LIST_SERVER} for 300 s: 554 ")
    assert f"Client host [{BLOCKED_SOURCE}] blocked using zen.spamhaus.org" in logged[0]


def test_with_every_egress_blocked_the_answer_is_unknown_blocked_with_the_retry_time(lab: MailLab) -> None:
    _forget(BLOCKED)
    limiter = RedisSessionLimiter(RULES, (BLOCKED,))

    met = _probe(lab, limiter, "blocklist.test", "zed")  # the session that meets the block
    later = _probe(lab, limiter, "blocklist.test", "zed", "alice")  # every egress blocked: not asked

    zed = met["zed@blocklist.test"]
    assert zed.verdict is SmtpVerdict.UNKNOWN
    assert zed.blocked
    sessions = lab.servers["blocklist"].sessions_opened
    for probe in later.results:
        assert (probe.verdict, probe.reason) == (SmtpVerdict.UNKNOWN, "blocked")
        assert probe.retry_after is not None
        assert 250 < probe.retry_after <= 300
    assert later.sessions_opened == 0
    assert lab.servers["blocklist"].sessions_opened == sessions
    assert limiter.blocked(LIST_SERVER) > 250


def test_a_refused_connection_blocks_only_when_the_server_answers_another_egress() -> None:
    ip = "192.0.2.77"
    _forget(BLOCKED, CLEAN, mx_ip=ip)
    limiter = RedisSessionLimiter(RULES, (BLOCKED, CLEAN))
    refused = [_reply("CONNECT", None, "connection refused")]

    limiter.session_ended(ip, refused, _lease(BLOCKED))
    assert blocks.blocked_for(BLOCKED.id, ip) == 0  # refused to everyone so far: down, not blocking

    limiter.session_ended(ip, [_reply("CONNECT", 220, "ready")], _lease(CLEAN))
    limiter.session_ended(ip, refused, _lease(BLOCKED))
    assert blocks.blocked_for(BLOCKED.id, ip) > 0
    assert blocks.blocked_for(CLEAN.id, ip) == 0


def test_a_proxy_with_wrong_credentials_is_an_egress_fault_shown_and_routed_around(
    lab: MailLab, socks_proxy: StartProxy
) -> None:
    wrong = socks_proxy(auth=True).egress(password="not-the-password")
    _forget(wrong, CLEAN, mx_ip="127.0.0.11")
    limiter = RedisSessionLimiter(RULES, (wrong, CLEAN))

    result = _probe(lab, limiter, "mailbox.test", "alice", "zed")

    assert _answers(result) == {
        "alice@mailbox.test": ("deliverable", "accepted"),
        "zed@mailbox.test": ("undeliverable", "mailbox_rejected"),
    }
    assert blocks.unavailable([wrong.id, CLEAN.id])[0] > 0  # tried last for a while
    shown = get_redis().get(key("egress-fault", wrong.id))
    assert shown is not None
    assert "proxy" in str(shown)
    assert "not-the-password" not in str(shown)
    assert blocks.blocked_for(wrong.id, "127.0.0.11") == 0  # a fault is not a block


def test_a_proxy_dying_mid_session_is_an_egress_fault_routed_around(
    lab: MailLab, socks_proxy: StartProxy
) -> None:
    proxy = socks_proxy()
    dying = proxy.egress()
    _forget(dying, CLEAN, mx_ip="127.0.0.16")
    limiter = RedisSessionLimiter(RULES, (dying, CLEAN))
    watcher = kill_once_greeted(lab, "slow", proxy)
    result = _probe(lab, limiter, "slow.test", "alice", "zed", **SLOW)
    watcher.join()
    assert _answers(result) == {
        "alice@slow.test": ("deliverable", "accepted"),
        "zed@slow.test": ("undeliverable", "mailbox_rejected"),
    }
    assert get_redis().get(key("egress-fault", dying.id)) is not None


def _lease(egress: Egress) -> str:
    """A lease as the limiter answers it for a session over ``egress``."""
    return EgressLease("t", egress)


def test_an_egress_blocked_by_many_mx_addresses_leaves_the_pool_for_a_while() -> None:
    addresses = [f"192.0.2.{200 + n}" for n in range(policy.OUT_OF_POOL_MX)]
    _forget(BLOCKED, CLEAN)
    for ip in addresses:
        _forget(BLOCKED, CLEAN, mx_ip=ip)
    limiter = RedisSessionLimiter(RULES, (BLOCKED, CLEAN))
    for ip in addresses[:-1]:
        blocks.block(BLOCKED.id, ip, "554 5.7.1 blocked using zen.spamhaus.org")
    assert blocks.unavailable([BLOCKED.id])[0] == 0  # blocked at a few addresses: still in the pool
    blocks.block(BLOCKED.id, addresses[-1], "554 5.7.1 blocked using zen.spamhaus.org")

    assert 1790 < blocks.unavailable([BLOCKED.id])[0] <= policy.OUT_OF_POOL_SECONDS
    leases = [limiter.acquire("192.0.2.99", 0.1) for _ in range(2)]  # elsewhere, CLEAN goes first
    assert [lease.egress for lease in leases if isinstance(lease, EgressLease)] == [CLEAN, CLEAN]
    for lease in leases:
        assert lease is not None
        limiter.release("192.0.2.99", lease)
    get_redis().delete(key("egress-out", BLOCKED.id), key("egress-blocked-by", BLOCKED.id))
