"""Our own machinery failing mid-probe (the injected session limiter: Redis, in the service) is never read
as the probed server's answer: the address comes back "unknown, our fault", never a verdict, and every
socket the group opened is closed all the same. The server's own failures keep their verdicts.

``nobody@mailbox.test`` does not exist: a fault-free probe says invalid, score 10.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from maillab import MailLab
from verifier import engine as engine_module
from verifier.engine import Engine
from verifier.results import ValidationResult
from verifier.scoring import OUR_FAULT
from verifier.smtp import INTERNAL_ERROR, LocalSessionLimiter, SessionKeeper
from verifier.syntax import SyntaxPolicy

GHOST = "nobody@mailbox.test"
LAB_DOMAINS = SyntaxPolicy(test_domains=True)


class FailingLimiter(LocalSessionLimiter):
    """A limiter whose store went away: ``fail`` names the calls that raise, as redis-py's client does
    (``ConnectionError`` is also what a refused socket raises, the server's failure in other places)."""

    def __init__(self, *fail: str, per_host: int = 3) -> None:
        super().__init__(per_host)
        self.fail = set(fail)

    def acquire(self, mx_ip: str, timeout: float) -> str | None:
        self._maybe_fail("acquire")
        return super().acquire(mx_ip, timeout)

    def release(self, mx_ip: str, lease: str) -> None:
        super().release(mx_ip, lease)
        self._maybe_fail("release")

    def _maybe_fail(self, call: str) -> None:
        if call in self.fail:
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def _engine(lab: MailLab, limiter: Any, keeper: SessionKeeper | None = None) -> Engine:
    return Engine(lab.engine_config(), limiter=limiter, policy=LAB_DOMAINS, keeper=keeper)


def assert_not_judged(result: ValidationResult) -> None:
    """No verdict on the mailbox: unknown with our-fault reasons, a warning at best, never valid or invalid
    on the strength of a check that did not run."""
    body: dict[str, Any] = result.to_dict()
    smtp, catch_all = body["checks"]["smtp"], body["checks"]["catchAll"]
    assert (smtp["status"], smtp["metadata"]["reason"], smtp["metadata"]["verdict"]) == (
        "unknown",
        INTERNAL_ERROR,
        "unknown",
    )
    assert "fault on our side" in smtp["reason"]
    assert (catch_all["status"], catch_all["metadata"]["isCatchAll"]) == ("unknown", None)
    assert "fault on our side" in catch_all["reason"]
    assert (body["isValid"], body["severity"]) == (True, "warning")
    assert OUR_FAULT in body["recommendations"]


def test_the_fault_free_probe_of_the_ghost_says_invalid(lab: MailLab) -> None:
    result = _engine(lab, LocalSessionLimiter(3)).verify(GHOST)
    assert (result.is_valid, result.score, result.severity.value) == (False, 10, "invalid")


def test_a_limiter_that_cannot_grant_a_slot_yields_no_verdict_and_no_connection(lab: MailLab) -> None:
    result = _engine(lab, FailingLimiter("acquire")).verify(GHOST)

    assert_not_judged(result)
    assert lab.servers["mailbox"].sessions_opened == 0


def test_a_release_that_fails_after_the_answers_yields_no_verdict_and_still_quits(lab: MailLab) -> None:
    limiter = FailingLimiter("release")
    result = _engine(lab, limiter).verify(GHOST)

    assert_not_judged(result)
    assert lab.servers["mailbox"].transcripts()[-1][-1] == "QUIT"
    assert limiter.active("127.0.0.11") == 0


def test_a_group_waiting_for_a_slot_faults_when_the_idle_session_it_closes_cannot_release(
    lab: MailLab,
) -> None:
    """The fault reported from production: a group finds the MX IP's one slot held by another group's
    idle kept session, closes it, and the lease release meets Redis down. duck.com's MX shares the
    address of mailbox.test's; a UTF-8 address cannot ride the kept session's plain transaction."""
    limiter, keeper = FailingLimiter(per_host=1), SessionKeeper(idle_seconds=30.0)
    engine = _engine(lab, limiter, keeper)
    assert engine.verify("alice@mailbox.test").is_valid
    assert keeper.held() == 1
    limiter.fail = {"release"}

    assert_not_judged(engine.verify("jörg@duck.com"))

    assert keeper.held() == 0
    assert lab.servers["mailbox"].transcripts()[0][-1] == "QUIT"  # the idle session was closed all the same


def test_the_keepers_reaper_outlives_a_failing_release(lab: MailLab) -> None:
    """A reaper killed by the first failing release would leave every later idle session open."""
    limiter, keeper = FailingLimiter("release"), SessionKeeper(idle_seconds=0.2)
    engine = _engine(lab, limiter, keeper)
    for _ in range(2):
        engine.verify("alice@mailbox.test")
        assert keeper.held() == 1
        deadline = time.monotonic() + 5
        while keeper.held() and time.monotonic() < deadline:  # readiness polling: the reaper's next round
            time.sleep(0.05)
        assert keeper.held() == 0
    assert lab.servers["mailbox"].sessions_opened == 2


def test_a_bug_in_the_probe_is_not_read_as_no_mail_server(
    lab: MailLab, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(engine_module, "probe_over_egresses", broken)
    outcome_results = _engine(lab, LocalSessionLimiter(3)).verify_many([GHOST, "alice@mailbox.test"])

    for result in outcome_results:
        assert_not_judged(result)


def test_the_servers_own_refusal_still_gives_its_verdict(lab: MailLab) -> None:
    """dead.test refuses the connection: an answer about the domain's server, not our fault."""
    result: dict[str, Any] = _engine(lab, LocalSessionLimiter(3)).verify("alice@dead.test").to_dict()
    smtp = result["checks"]["smtp"]
    assert smtp["status"] == "unknown"
    assert smtp["metadata"]["reason"] != INTERNAL_ERROR
    assert OUR_FAULT not in result["recommendations"]
