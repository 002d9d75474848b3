"""RFC 2920 pipelining: same verdicts as lock-step, fewer round trips, and safe when a group goes wrong."""

from __future__ import annotations

import pytest

from maillab.world import SERVERS
from verifier.smtp import DomainProbeResult, ProbeOutcome, SmtpVerdict

LOCAL_PARTS = ("alice", "zed", "full", "quota", "gone", "bob", "jörg")
DOMAINS = sorted(
    {f"{spec.name}.test" for spec in SERVERS if spec.name not in {"outlook", "m365", "yahoo"}}
    | {"outlook.test", "m365.test", "yahoo.test", "dead.test", "backup.test", "tarpit-first.test"}
)


def _view(result: DomainProbeResult) -> list[tuple[str, str, str, str, bool]]:
    """What a user sees of each address (evidence latency and the random catch-all address aside)."""
    rows = [(i.address, i.verdict.value, i.reason, i.outcome.value, i.prober_blocked) for i in result.results]
    return [*rows, ("catch-all", str(result.catch_all), "", "", False)]


@pytest.mark.parametrize("local_parts", [LOCAL_PARTS, ("alice",), ("zed",)], ids=["many", "alice", "zed"])
@pytest.mark.parametrize("domain", DOMAINS)
def test_pipelined_and_lock_step_probes_give_the_same_verdicts(probe, lab, domain, local_parts):
    pipelined = probe(domain, *local_parts)  # one address: its catch-all probe rides the same write
    lab.reset()  # greylisting memory too: the second run must meet the same server
    lock_step = probe(domain, *local_parts, smtp_pipelining=False)
    assert _view(pipelined) == _view(lock_step)


def _replies_before(lab, server: str) -> list[list[tuple[str, int]]]:
    return [
        [(arrival.line.split(":")[0], arrival.replies_before) for arrival in session]
        for session in lab.servers[server].arrivals()
    ]


def test_mail_and_rcpts_reach_the_server_before_it_answers_the_first(probe, lab):
    probe("mailbox.test", "alice", "bob", "carol", check_catch_all=False)
    assert _replies_before(lab, "mailbox") == [
        [
            ("ehlo prober.verimail.test", 1),
            ("MAIL FROM", 2),
            ("RCPT TO", 2),
            ("RCPT TO", 2),
            ("RCPT TO", 2),
            ("QUIT", 6),
        ]
    ]


def test_one_address_and_its_catch_all_probe_go_in_one_write(probe, lab):
    result = probe("mailbox.test", "alice")
    assert result["alice@mailbox.test"].verdict is SmtpVerdict.DELIVERABLE
    assert result.catch_all is False
    assert result.catch_all_probe.verdict is SmtpVerdict.UNDELIVERABLE
    assert _replies_before(lab, "mailbox") == [
        [("ehlo prober.verimail.test", 1), ("MAIL FROM", 2), ("RCPT TO", 2), ("RCPT TO", 2), ("QUIT", 5)]
    ]


def test_a_group_too_big_for_one_write_sends_its_catch_all_probe_once_the_replies_ask_for_it(probe, lab):
    result = probe("catchall.test", *(f"user{i}" for i in range(9)))  # a session's refusal budget
    assert result.catch_all is True
    arrivals = _replies_before(lab, "catchall")[0]
    assert [count for line, count in arrivals if line == "RCPT TO"] == [2] * 9 + [12]


def test_a_server_without_pipelining_is_spoken_to_in_lock_step(probe, lab):
    result = probe("no-pipelining.test", "alice", "bob", check_catch_all=False)
    assert [item.verdict for item in result.results] == [SmtpVerdict.DELIVERABLE] * 2
    assert [count for _, count in _replies_before(lab, "no-pipelining")[0]] == [1, 2, 3, 4, 5]


def test_the_switch_turns_pipelining_off(probe, lab):
    probe("mailbox.test", "alice", "bob", check_catch_all=False, smtp_pipelining=False)
    assert [count for _, count in _replies_before(lab, "mailbox")[0]] == [1, 2, 3, 4, 5]


def test_rcpt_replies_after_a_refused_mail_are_never_mailbox_rejections(probe, lab):
    result = probe("proofpoint.test", "alice", "zed")
    for item in result.results:
        assert (item.verdict, item.prober_blocked) == (SmtpVerdict.UNKNOWN, True)
        assert item.evidence is not None
        assert item.evidence.command.startswith("MAIL FROM")
    assert lab.servers["proofpoint"].verbs().count("RCPT") == 3  # they did go out, pipelined
    owed = [(e.command, e.code) for e in result.transcript if e.command.startswith("RCPT")]
    assert owed[:2] == [("RCPT TO:<alice@proofpoint.test>", 503), ("RCPT TO:<zed@proofpoint.test>", 503)]
    assert [code for _, code in owed[2:]] == [503]  # the catch-all probe's, sent ahead with them
    assert lab.servers["proofpoint"].verbs()[-1] == "QUIT"  # the 503s were read before QUIT was sent


def test_a_server_hanging_up_mid_pipeline_leaves_the_rest_unknown_and_retryable(probe, lab):
    result = probe("hangup.test", "alice", "bob", "carol")
    assert result["alice@hangup.test"].verdict is SmtpVerdict.DELIVERABLE
    for local in ("bob", "carol"):
        item = result[f"{local}@hangup.test"]
        assert (item.verdict, item.outcome, item.reason, item.retryable) == (
            SmtpVerdict.UNKNOWN,
            ProbeOutcome.NO_ANSWER,
            "disconnected",
            True,
        )
    assert result.catch_all is None
    assert lab.servers["hangup"].verbs().count("RCPT") == 4  # all three and the random one were in the group


def test_a_421_mid_pipeline_is_temporary_for_the_rest_and_ends_the_session(probe, lab):
    result = probe("drop-421.test", "alice", "bob", "carol")
    assert result["alice@drop-421.test"].verdict is SmtpVerdict.DELIVERABLE
    for local in ("bob", "carol"):
        item = result[f"{local}@drop-421.test"]
        assert (item.verdict, item.outcome, item.retryable) == (
            SmtpVerdict.UNKNOWN,
            ProbeOutcome.TEMPORARY,
            True,
        )
        assert item.evidence is not None
        assert item.evidence.code == 421
    assert "QUIT" not in lab.servers["drop-421"].verbs()  # the server closed the channel


def test_the_deadline_bounds_the_reads_of_a_pipelined_group(probe):
    # the slow server answers 1.5 s after each command arrives: banner, EHLO, then the pipelined group
    result = probe("slow.test", "alice", "bob", smtp_banner_timeout=30, smtp_timeout=30, smtp_deadline=3.8)
    for item in result.results:  # the read was cut to the time left: a timeout at the deadline
        assert (item.outcome, item.reason) in {
            (ProbeOutcome.NO_ANSWER, "timeout"),
            (ProbeOutcome.NO_ANSWER, "deadline"),
        }
        assert item.evidence is not None
        assert item.evidence.command.startswith("MAIL FROM")
    assert result.catch_all is None
