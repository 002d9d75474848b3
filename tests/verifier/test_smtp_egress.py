"""Probes over an egress: a real SOCKS5 proxy (Dante), bound loopback source addresses, the lab's servers.

Whatever the egress, a verdict is the mailbox's: a proxy that fails is an egress fault, a refused source
address is a block, neither is ever "undeliverable", and the next egress settles the address.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from maillab import MailLab
from maillab.world import BLOCKED_SOURCE, CLEAN_SOURCE
from verifier.dns import MailResolver
from verifier.egress import Egress, parse_egress
from verifier.engine import Engine
from verifier.smtp import DomainProbeResult, SmtpVerdict, probe_domain_group, probe_over_egresses
from verifier.syntax import SyntaxPolicy

BLOCKED = parse_egress(f"direct://{BLOCKED_SOURCE}")
CLEAN = parse_egress(f"direct://{CLEAN_SOURCE}?helo=clean.verimail.test")
DIRECT = parse_egress("direct://")
# One address per kind of answer: deliverable, unknown mailbox, full, disabled, catch-all, Microsoft
# 365's "Access denied", a block-list refusal of the mailbox's server, greylisting, a server hanging up
# mid-session, a connection refused.
CASES = (
    ("mailbox.test", ("alice", "zed")),
    ("full.test", ("full",)),
    ("disabled.test", ("gone",)),
    ("catchall.test", ("anyone",)),
    ("m365.test", ("alice", "zed")),
    ("spamhaus.test", ("alice",)),
    ("greylist.test", ("bob",)),
    ("hangup.test", ("alice", "bob", "carol")),  # the server hangs up: its doing, not the proxy's
    ("dead.test", ("alice",)),  # refused by the MX, as the proxy reports it
)


def probe_over(lab: MailLab, domain: str, locals_: tuple[str, ...], *egresses: Egress, **config: object):
    engine_config = lab.engine_config(smtp_egress=egresses, **config)
    mail_domain = MailResolver(engine_config).resolve(domain)
    addresses = [f"{local}@{domain}" for local in locals_]
    return probe_over_egresses(mail_domain, addresses, config=engine_config)


def answers(result: DomainProbeResult) -> dict[str, tuple[str, str]]:
    return {item.address: (item.verdict.value, item.reason) for item in result.results}


def test_a_probe_through_the_socks5_proxy_gives_the_same_verdicts_as_direct(lab, socks_proxy):
    proxy = socks_proxy()
    over_proxy = proxy.egress(options="?helo=proxied.verimail.test&mailFrom=check@verimail.test")
    for domain, locals_ in CASES:
        lab.reset()  # greylisting and counters: the proxied probe meets the server as the direct one did
        direct = probe_over(lab, domain, locals_, DIRECT)
        lab.reset()
        proxied = probe_over(lab, domain, locals_, over_proxy)
        assert answers(proxied) == answers(direct), domain
        assert proxied.catch_all == direct.catch_all, domain
        assert proxied.egress == over_proxy.id
        if domain == "mailbox.test":  # the egress's own HELO name and sender were used
            assert lab.servers["mailbox"].commands()[:2] == [
                "ehlo proxied.verimail.test",
                "MAIL FROM:<check@verimail.test>",
            ]


def test_a_proxy_demanding_a_password_carries_probes_with_the_right_one(lab, socks_proxy):
    proxy = socks_proxy(auth=True)
    result = probe_over(lab, "mailbox.test", ("alice", "zed"), proxy.egress())
    assert answers(result) == {
        "alice@mailbox.test": ("deliverable", "accepted"),
        "zed@mailbox.test": ("undeliverable", "mailbox_rejected"),
    }


def test_wrong_proxy_credentials_are_an_egress_fault_never_invalid(lab, socks_proxy):
    wrong = socks_proxy(auth=True).egress(password="not-the-password")
    result = probe_over(lab, "mailbox.test", ("zed",), wrong)
    zed = result["zed@mailbox.test"]
    assert (zed.verdict, zed.reason, zed.egress_fault, zed.blocked) == (
        SmtpVerdict.UNKNOWN,
        "egress_fault",
        True,
        False,
    )
    assert zed.smtp_response.startswith("no reply: egress fault: proxy failed")
    assert "not-the-password" not in zed.smtp_response
    assert lab.servers["mailbox"].sessions_opened == 0  # the MX never heard of it


def test_the_next_egress_settles_what_wrong_credentials_left(lab, socks_proxy):
    wrong = socks_proxy(auth=True).egress(password="not-the-password")
    result = probe_over(lab, "mailbox.test", ("alice", "zed"), wrong, DIRECT)
    assert answers(result) == {
        "alice@mailbox.test": ("deliverable", "accepted"),
        "zed@mailbox.test": ("undeliverable", "mailbox_rejected"),
    }
    assert result.egress == DIRECT.id


def test_a_proxy_too_slow_to_answer_is_an_egress_fault(lab):
    # the lab's tarpit accepts TCP and never says a word: a proxy that never answers its handshake
    tarpit = parse_egress(f"socks5://127.0.0.17:{lab.smtp_port}")
    result = probe_over(lab, "mailbox.test", ("zed",), tarpit, smtp_connect_timeout=0.5)
    zed = result["zed@mailbox.test"]
    assert (zed.verdict, zed.egress_fault) == (SmtpVerdict.UNKNOWN, True)
    assert zed.smtp_response == "no reply: egress fault: proxy too slow"


def kill_once_greeted(lab: MailLab, server: str, proxy) -> threading.Thread:
    """Kill the proxy as soon as the server has the session's EHLO (its reply is 1.5 s away)."""

    def watch() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
            c.upper().startswith("EHLO") for c in lab.servers[server].commands()
        ):
            time.sleep(0.01)
        proxy.kill()

    watcher = threading.Thread(target=watch)
    watcher.start()
    return watcher


SLOW = {"smtp_banner_timeout": 5.0, "smtp_timeout": 5.0, "smtp_deadline": 40.0}


def test_a_proxy_that_dies_mid_session_is_an_egress_fault_never_invalid(lab, socks_proxy):
    proxy = socks_proxy()
    watcher = kill_once_greeted(lab, "slow", proxy)
    result = probe_over(lab, "slow.test", ("zed",), proxy.egress(), **SLOW)
    watcher.join()
    zed = result["zed@slow.test"]
    assert (zed.verdict, zed.reason, zed.egress_fault) == (SmtpVerdict.UNKNOWN, "egress_fault", True)
    assert "proxy went away mid-session" in zed.smtp_response


def test_the_next_egress_settles_what_a_dying_proxy_left(lab, socks_proxy):
    proxy = socks_proxy()
    watcher = kill_once_greeted(lab, "slow", proxy)
    result = probe_over(lab, "slow.test", ("alice", "zed"), proxy.egress(), DIRECT, **SLOW)
    watcher.join()
    assert answers(result) == {
        "alice@slow.test": ("deliverable", "accepted"),
        "zed@slow.test": ("undeliverable", "mailbox_rejected"),
    }
    assert any(item.text.startswith("egress fault") for item in result.transcript)


def test_a_blocked_source_address_is_a_block_never_invalid(lab):
    result = probe_over(lab, "blocklist.test", ("zed",), BLOCKED)
    zed = result["zed@blocklist.test"]
    assert (zed.verdict, zed.blocked, zed.prober_blocked) == (SmtpVerdict.UNKNOWN, True, True)
    assert zed.smtp_response == (
        f"554 5.7.1 Service unavailable; Client host [{BLOCKED_SOURCE}] blocked using zen.spamhaus.org"
    )


def test_the_next_egress_gives_the_real_verdict_where_one_address_is_blocked(lab):
    result = probe_over(lab, "blocklist.test", ("alice", "zed"), BLOCKED, CLEAN)
    assert answers(result) == {
        "alice@blocklist.test": ("deliverable", "accepted"),
        "zed@blocklist.test": ("undeliverable", "mailbox_rejected"),
    }
    assert result.catch_all is False
    assert "ehlo clean.verimail.test" in lab.servers["blocklist"].commands()  # the clean egress's own name


def test_a_proxy_leaving_from_a_blocked_address_is_blocked_too(lab, socks_proxy):
    listed = socks_proxy(external=BLOCKED_SOURCE).egress()
    blocked = probe_over(lab, "blocklist.test", ("zed",), listed)
    assert blocked["zed@blocklist.test"].blocked
    settled = probe_over(lab, "blocklist.test", ("zed",), listed, DIRECT)
    assert settled["zed@blocklist.test"].verdict is SmtpVerdict.UNDELIVERABLE


def test_the_verdict_is_the_same_whichever_egress_asked_first(lab):
    orders = [(BLOCKED, CLEAN), (CLEAN, BLOCKED), (DIRECT,), (CLEAN,)]
    seen = []
    for order in orders:
        lab.reset()
        engine = Engine(lab.engine_config(smtp_egress=order), policy=SyntaxPolicy(test_domains=True))
        results = engine.verify_many(["alice@blocklist.test", "zed@blocklist.test"])
        seen.append([(result.email, result.severity.value, result.score) for result in results])
    assert all(item == seen[0] for item in seen)
    assert [severity for _, severity, _ in seen[0]] == ["valid", "invalid"]


@pytest.mark.parametrize("egress", [DIRECT, CLEAN])
def test_a_single_egress_probe_names_its_egress(lab, egress):
    config = lab.engine_config(smtp_egress=(egress,))
    result = probe_domain_group(
        MailResolver(config).resolve("mailbox.test"), ["alice@mailbox.test"], config=config
    )
    assert result.egress == egress.id
    assert result.to_dict()["egress"] == egress.id
    assert DomainProbeResult.from_dict(result.to_dict()) == result


def test_a_client_sees_an_egress_fault_as_unknown_and_retryable_never_invalid(lab):
    tarpit = parse_egress(f"socks5://127.0.0.17:{lab.smtp_port}")
    config = lab.engine_config(smtp_egress=(tarpit,), smtp_connect_timeout=0.5)
    result: Any = Engine(config, policy=SyntaxPolicy(test_domains=True)).verify("zed@mailbox.test").to_dict()
    smtp = result["checks"]["smtp"]
    assert result["severity"] != "invalid"
    assert (smtp["status"], smtp["metadata"]["reason"], smtp["metadata"]["retryable"]) == (
        "unknown",
        "egress_fault",
        True,
    )
    assert (
        smtp["reason"]
        == "our outbound route to the mail server failed, so the mailbox was not asked; try again"
    )
    assert "127.0.0.17" not in smtp["metadata"]["smtpResponse"]  # the proxy is never named to a client


def test_a_source_address_this_host_lacks_is_an_egress_fault_and_the_next_egress_settles(lab):
    # 192.0.2.1 (TEST-NET-1) is no address of this host: the bind fails before any packet leaves
    absent = parse_egress("direct://192.0.2.1")
    alone = probe_over(lab, "mailbox.test", ("zed",), absent)["zed@mailbox.test"]
    assert (alone.verdict, alone.reason) == (SmtpVerdict.UNKNOWN, "egress_fault")
    assert alone.smtp_response.startswith("no reply: egress fault: source address not available")
    settled = probe_over(lab, "mailbox.test", ("zed",), absent, CLEAN)
    assert settled["zed@mailbox.test"].verdict is SmtpVerdict.UNDELIVERABLE


def test_a_proxy_refusing_connections_is_an_egress_fault(lab, socks_proxy):
    gone = socks_proxy()
    gone.kill()  # nothing listens on its port any more: the connection is refused at once
    result = probe_over(lab, "mailbox.test", ("zed",), gone.egress())
    zed = result["zed@mailbox.test"]
    assert (zed.verdict, zed.egress_fault) == (SmtpVerdict.UNKNOWN, True)
    assert zed.smtp_response == "no reply: egress fault: proxy unreachable"
    assert lab.servers["mailbox"].sessions_opened == 0
