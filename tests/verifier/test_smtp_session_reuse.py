"""Sessions that outlive their group (``SessionKeeper``) and the refusal budget of a session."""

from __future__ import annotations

from maillab import MailLab
from maillab.world import bench_domain
from verifier.dns import MailResolver
from verifier.smtp import LocalSessionLimiter, ProbeOutcome, SessionKeeper, SmtpVerdict, probe_domain_group


def _rcpts(session: list[str]) -> int:
    return sum(command.startswith("RCPT") for command in session)


def test_later_groups_of_one_mx_host_ride_on_the_first_groups_session(lab: MailLab) -> None:
    config = lab.engine_config()
    domain = MailResolver(config).resolve(bench_domain(2))
    keeper, limiter = SessionKeeper(idle_seconds=5.0), LocalSessionLimiter(2)
    groups = [[f"user{j:02d}@{domain.domain}", f"nobody{j}@{domain.domain}"] for j in range(4)]

    results = [
        probe_domain_group(domain, group, config=config, limiter=limiter, keeper=keeper) for group in groups
    ]

    assert lab.servers["bench2"].sessions_opened == 1
    assert [result.sessions_opened for result in results] == [1, 0, 0, 0]
    for result in results:
        assert [item.verdict for item in result.results] == [
            SmtpVerdict.DELIVERABLE,
            SmtpVerdict.UNDELIVERABLE,
        ]
    assert limiter.active("127.0.0.103") == 1  # the kept session still counts against the MX limit
    assert keeper.close_idle(everything=True) == 1
    assert limiter.active("127.0.0.103") == 0
    assert lab.servers["bench2"].transcripts()[0][-1] == "QUIT"


def test_without_a_keeper_every_group_opens_and_quits_its_own_session(lab: MailLab) -> None:
    config = lab.engine_config()
    domain = MailResolver(config).resolve(bench_domain(3))
    for j in range(3):
        probe_domain_group(domain, [f"user{j:02d}@{domain.domain}"], config=config)
    assert lab.servers["bench3"].sessions_opened == 3


def test_an_adopted_session_pipelines_the_next_groups_recipients(lab: MailLab) -> None:
    config = lab.engine_config()
    domain = MailResolver(config).resolve(bench_domain(4))
    keeper = SessionKeeper(idle_seconds=5.0)
    probe_domain_group(domain, [f"user00@{domain.domain}"], config=config, keeper=keeper)
    second = [f"user{j:02d}@{domain.domain}" for j in range(1, 6)]

    probe_domain_group(domain, second, config=config, keeper=keeper, check_catch_all=False)
    keeper.close_idle(everything=True)

    arrivals = lab.servers["bench4"].arrivals()[0]
    later = [arrival for arrival in arrivals if arrival.line in {f"RCPT TO:<{a}>" for a in second}]
    assert len(later) == 5
    assert len({arrival.replies_before for arrival in later}) == 1  # all five arrived before any reply


def test_a_session_stops_before_the_servers_error_limit(lab: MailLab) -> None:
    """The lab's "strict" server drops a client at its 6th refused RCPT; with a budget of 4 refusals per
    session, 13 unknown recipients are answered on four sessions and never meet the "too many errors"."""
    config = lab.engine_config(smtp_session_max_rejections=4)
    domain = MailResolver(config).resolve("strict.test")
    addresses = [f"nobody{j}@strict.test" for j in range(13)] + ["alice@strict.test"]

    result = probe_domain_group(domain, addresses, config=config)

    outcomes = [item.outcome for item in result.results]
    assert outcomes == [ProbeOutcome.REJECTED_MAILBOX] * 13 + [ProbeOutcome.ACCEPTED]
    sessions = lab.servers["strict"].transcripts()
    assert [_rcpts(session) for session in sessions] == [4, 4, 4, 2]
    assert not any("too many errors" in (item.text or "") for item in result.transcript)


def test_without_the_budget_the_strict_server_cuts_the_session_and_costs_the_rest(lab: MailLab) -> None:
    """The same list with a budget above the server's limit: the control showing the budget matters."""
    config = lab.engine_config(smtp_session_max_rejections=50)
    domain = MailResolver(config).resolve("strict.test")
    addresses = [f"nobody{j}@strict.test" for j in range(8)]

    result = probe_domain_group(domain, addresses, config=config)

    assert any("too many errors" in (item.text or "") for item in result.transcript)
    assert [item.outcome for item in result.results].count(ProbeOutcome.REJECTED_MAILBOX) == 5


def test_a_kept_session_the_server_closed_is_replaced_not_taken_for_an_answer(lab: MailLab) -> None:
    config = lab.engine_config()
    domain = MailResolver(config).resolve(bench_domain(5))
    keeper = SessionKeeper(idle_seconds=30.0)
    probe_domain_group(domain, [f"user00@{domain.domain}"], config=config, keeper=keeper)
    lab.reset()  # hangs up on every connected client, as an MTA restarting would

    result = probe_domain_group(
        domain, [f"user01@{domain.domain}", f"zed@{domain.domain}"], config=config, keeper=keeper
    )

    assert [item.verdict for item in result.results] == [SmtpVerdict.DELIVERABLE, SmtpVerdict.UNDELIVERABLE]
    assert result.sessions_opened == lab.servers["bench0"].sessions_opened == 1
    keeper.close_idle(everything=True)
