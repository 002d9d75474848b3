"""A worker process lost or stopped while a bulk list and concurrent batches run costs seconds, not the
lease and requeue timers: SIGKILL of ``probes`` or ``worker`` (started again at once, as a supervisor
would), SIGTERM of each, and a rolling restart of every process type.

The Procfile's processes run separately on the run's Postgres and this module's own Redis, at the
service's own timers (lease 120 s, requeue 300 s, sweep 15 s), against a mail lab whose 60 domains share
12 mail servers and answer every command after 100 ms, so each server has all its session slots busy
when the fault lands. Each run is compared with the module's fault-free run: done within 15 s of its
time plus the fault's own length (before this work a killed probes worker held its servers' slots for
90 s, and groups that ran out of time waited five minutes for a retry), one result per address, the same
verdicts, each job charged once, one ``batch.completed`` each.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from maillab import MailLab
from maillab.world import bench_world
from tests.faults.procfile import PROCESS_TYPES, Processes
from tests.faults.worker_load import DOMAINS, Outcome, assert_lost_nothing, run
from tests.processes import OwnRedis
from tests.webhooks.receiver import Receiver

# The first test starts the stack and makes the fault-free run; a stalled run fails on PATIENCE first.
pytestmark = pytest.mark.timeout(240)
SLACK = 15.0
SERVERS = 12
# Variables of the test run's own process that must not reach the stack: it runs on the defaults.
OWN_TIMINGS = ("JOB_", "SMTP_", "DNS_", "BATCH_", "VALIDATE_", "WEB_CONCURRENCY")


@pytest.fixture(scope="module")
def slow_lab() -> Iterator[MailLab]:
    with MailLab(bench_world(DOMAINS, servers=SERVERS), latency=0.1) as lab:
        yield lab


@pytest.fixture(scope="module")
def hooks(test_ca: trustme.CA, ca_bundle: Path) -> Iterator[Receiver]:
    server = Receiver(ca=test_ca)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def processes(
    database_url: str,
    private_redis: OwnRedis,
    slow_lab: MailLab,
    ca_bundle: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Processes]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(OWN_TIMINGS)}
    env |= slow_lab.env() | {
        "DATABASE_URL": database_url,
        "REDIS_URL": private_redis.url,
        "ALLOW_TEST_DOMAINS": "true",
        "SMTP_HELO_HOST": "prober.verimail.test",
        "SMTP_MAIL_FROM": "probe@verimail.test",
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        "REQUESTS_CA_BUNDLE": str(ca_bundle),
    }
    started = Processes(env, tmp_path_factory.mktemp("procfile"))
    started.start_all()
    yield started
    started.stop_all()


@pytest.fixture(scope="module")
def fault_free(processes: Processes, hooks: Receiver) -> Outcome:
    outcome = run(_web(processes), hooks, lambda: None)
    assert_lost_nothing(outcome, outcome, hooks)
    return outcome


def _web(processes: Processes) -> str:
    return str(processes.running["web"].base_url)


def _assert_recovered(outcome: Outcome, fault_free: Outcome, hooks: Receiver) -> None:
    assert_lost_nothing(outcome, fault_free, hooks)
    allowed = fault_free.seconds + outcome.fault_seconds + SLACK
    assert outcome.seconds <= allowed, (
        f"done in {outcome.seconds:.1f} s; fault-free {fault_free.seconds:.1f} s, "
        f"the fault lasted {outcome.fault_seconds:.1f} s"
    )


@pytest.mark.parametrize(
    ("kind", "signal", "during"),
    [
        ("probes", "SIGKILL", "probing"),
        ("worker", "SIGKILL", "planning"),  # the list's plan message taken by the killed worker
        ("probes", "SIGTERM", "probing"),
        ("worker", "SIGTERM", "planning"),
    ],
    ids=["probes-killed", "worker-killed-holding-a-plan", "probes-stopped", "worker-stopped"],
)
def test_a_worker_lost_or_stopped_costs_seconds_and_nothing_else(
    processes: Processes, fault_free: Outcome, hooks: Receiver, kind: str, signal: str, during: str
) -> None:
    """SIGKILL then started again at once, as a supervisor does; SIGTERM (a warm shutdown) then started
    again, as a deploy does."""
    lose = processes.kill if signal == "SIGKILL" else processes.restart

    outcome = run(_web(processes), hooks, lambda: lose(kind), during=during)

    _assert_recovered(outcome, fault_free, hooks)


def test_a_rolling_restart_of_every_process_type_costs_the_sessions_in_flight(
    processes: Processes, fault_free: Outcome, hooks: Receiver
) -> None:
    def rolling_restart() -> None:
        for kind in PROCESS_TYPES:
            processes.restart(kind)

    outcome = run(_web(processes), hooks, rolling_restart)

    _assert_recovered(outcome, fault_free, hooks)
