"""A round's groups behind one MX address share round trips (``verifier/smtp/relay.py``): a group's
pipelined write carries the RCPTs of the next domains at that address, each reply is still judged by its
own group, and the verdicts, budgets and fallbacks are those of the groups probed one by one."""

from __future__ import annotations

import pytest

from maillab import MailLab
from maillab.world import SHARED_CATCH_ALL, SHARED_ORDINARY, TENANT_DOMAINS
from tests.verifier.rounds import probe_round as _probe_round
from tests.verifier.rounds import verdicts as _verdicts
from verifier.smtp import SmtpVerdict
from verifier.smtp.deadline import Deadline
from verifier.smtp.session import ProbeSession, Target


def _rcpt_writes(lab: MailLab, server: str) -> list[int]:
    """Per session, how many separate writes its RCPTs came in (a pipelined group arrives before the
    reply to the command ahead of it: same count of replies sent)."""
    return [
        len({arrival.replies_before for arrival in session if arrival.line.startswith("RCPT")})
        for session in lab.servers[server].arrivals()
    ]


def test_the_next_domains_rcpts_ride_the_same_write(lab: MailLab) -> None:
    groups = [(domain, ["alice", "bob"]) for domain in SHARED_ORDINARY]

    results = _probe_round(lab.engine_config(), groups, catch_all=False)

    assert all(_verdicts(result) == [SmtpVerdict.DELIVERABLE] * 2 for result in results)
    assert lab.servers["hosting"].sessions_opened == 1
    assert _rcpt_writes(lab, "hosting") == [2]  # 16 RCPTs, at most 9 in flight: 2 round trips, not 8
    assert all(item.mx_host == f"mx.{result.domain}" for result in results for item in result.transcript)
    for result in results:  # each group's transcript holds its own RCPTs' replies, none of another's
        rcpts = [item.command for item in result.transcript if item.command.startswith("RCPT")]
        assert rcpts == [f"RCPT TO:<{local}@{result.domain}>" for local in ("alice", "bob")]


def test_without_a_relay_each_domain_waits_its_own_round_trip(lab: MailLab) -> None:
    groups = [(domain, ["alice", "bob"]) for domain in SHARED_ORDINARY]

    _probe_round(lab.engine_config(), groups, relay=False, catch_all=False)

    assert _rcpt_writes(lab, "hosting") == [8]


def test_a_cold_round_of_one_address_domains_sends_their_catch_all_probes_in_the_same_write(
    lab: MailLab,
) -> None:
    order = [SHARED_ORDINARY[0], SHARED_CATCH_ALL[0], SHARED_ORDINARY[1], SHARED_CATCH_ALL[1]]

    results = _probe_round(lab.engine_config(), [(domain, ["alice"]) for domain in order])

    assert [result.catch_all for result in results] == [False, True, False, True]
    assert all(_verdicts(result) == [SmtpVerdict.DELIVERABLE] for result in results)
    assert _rcpt_writes(lab, "hosting") == [1]  # 4 addresses and 4 random ones: one round trip, not 5
    rcpts = [line for line in lab.servers["hosting"].transcripts()[0] if line.startswith("RCPT")]
    assert [line.split("@")[1] for line in rcpts] == [f"{domain}>" for domain in order for _ in (1, 2)]
    for result in results:  # each random reply was judged by its own group
        assert result.catch_all_probe is not None
        assert result.catch_all_probe.address.endswith(f"@{result.domain}")


def test_a_random_rcpt_made_moot_by_its_groups_refusal_is_read_not_left_owed(lab: MailLab) -> None:
    groups = [(SHARED_ORDINARY[0], ["nobody"]), (SHARED_ORDINARY[1], ["alice"])]

    results = _probe_round(lab.engine_config(), groups)

    assert _verdicts(results[0]) == [SmtpVerdict.UNDELIVERABLE]
    assert (results[0].catch_all, results[0].catch_all_probe) == (False, None)  # the refusal proves it
    assert _verdicts(results[1]) == [SmtpVerdict.DELIVERABLE]
    assert results[1].catch_all is False
    assert lab.servers["hosting"].sessions_opened == 1  # the session went on and ended owing nothing
    assert lab.servers["hosting"].transcripts()[0][-1] == "QUIT"


@pytest.mark.parametrize("relay", [False, True], ids=["one by one", "relayed"])
def test_mixed_verdicts_are_the_same_relayed_or_not(lab: MailLab, relay: bool) -> None:
    order = [SHARED_ORDINARY[0], SHARED_CATCH_ALL[0], SHARED_ORDINARY[1], SHARED_CATCH_ALL[1]]
    groups = [(domain, ["alice", "nobody"]) for domain in order] + [("mailbox.test", ["alice", "zed"])]

    results = _probe_round(lab.engine_config(), groups, relay=relay)

    deliverable, undeliverable = SmtpVerdict.DELIVERABLE, SmtpVerdict.UNDELIVERABLE
    assert [_verdicts(result) for result in results[:4]] == [
        [deliverable, undeliverable],
        [deliverable, deliverable],  # a catch-all accepts everyone: the catch-all verdict tells
        [deliverable, undeliverable],
        [deliverable, deliverable],
    ]
    assert [result.catch_all for result in results[:4]] == [False, True, False, True]
    assert _verdicts(results[4]) == [deliverable, undeliverable]  # another address: its own session


def test_the_rounds_held_session_gives_its_slot_to_a_group_that_needs_one_of_its_own(lab: MailLab) -> None:
    """One session at once per address: the second tenant, refused in the first one's transaction, needs
    a session of its own while the round holds the shared one for the third."""
    config = lab.engine_config(smtp_deadline=5.0)

    results = _probe_round(config, [(domain, ["alice", "zed"]) for domain in TENANT_DOMAINS], sessions=1)

    for result in results:
        assert _verdicts(result) == [SmtpVerdict.DELIVERABLE, SmtpVerdict.UNDELIVERABLE], result.domain


def test_replies_read_ahead_are_kept_for_their_own_rcpt(lab: MailLab) -> None:
    config = lab.engine_config()
    session = ProbeSession(Target("mx.shared-0.test", "127.0.0.41"), config, Deadline(30.0))
    session.open()
    session.greet()
    sent = ["alice@shared-0.test", "nobody@shared-1.test", "bob@shared-2.test"]
    session.mail_from(utf8=False, pipelined=sent)

    last = session.rcpt(sent[2])  # the two replies before it are read and kept

    assert session.in_flight == 2
    assert all(session.pending(address) for address in sent[:2])
    first, second = session.rcpt(sent[0]), session.rcpt(sent[1])
    assert (first.code, second.code, last.code) == (250, 550, 250)
    assert [item.command for item in session.transcript[-3:]] == [
        f"RCPT TO:<{a}>" for a in (sent[2], *sent[:2])
    ]
    assert session.in_flight == 0
    session.close()


@pytest.mark.parametrize(
    ("server", "groups"),
    [
        ("too-many", [["alice", "bob"], ["carol", "dave"]]),  # takes 2 RCPTs a transaction: 452 after
        ("hangup", [["alice"], ["bob"]]),  # hangs up at a transaction's 2nd RCPT
        ("drop-421", [["alice"], ["bob"], ["carol"]]),  # the same with a 421
    ],
)
def test_a_later_groups_rcpts_cut_off_in_the_shared_session_are_asked_again(
    lab: MailLab, server: str, groups: list[list[str]]
) -> None:
    """Two groups of one domain (a round holds one per set of options): the RCPTs sent ahead for the
    second die with the session, or are refused as one too many; it asks them again on its own."""
    rounds = [(f"{server}.test", locals_) for locals_ in groups]

    relayed = _probe_round(lab.engine_config(), rounds, catch_all=False)

    assert [_verdicts(result) for result in relayed] == [[SmtpVerdict.DELIVERABLE] * len(g) for g in groups]
    assert [_verdicts(result) for result in relayed] == [
        _verdicts(result)
        for result in _probe_round(lab.engine_config(), rounds, relay=False, catch_all=False)
    ]
