"""A worker process found dead has what it held freed at once: its seat and its SMTP session slot, by the
first live worker to see its alive mark run out, or by a worker starting on its host; a seat someone took
since is left to them, and a process of another host is never judged by a PID. A worker told to stop
runs no new round and hands its seat on.

The sweep that follows a burial (``services.probing.upkeep.recovery``) is recorded, not run: it would sweep
the whole run's database under the other tests."""

from __future__ import annotations

import os
import secrets
import subprocess

import pytest

from services.lease_sets import set_key
from services.probing.fleet import politeness
from services.probing.fleet.policy import Politeness
from services.probing.rounds import lane_runs, lanes
from services.probing.rounds.lanes import LaneRef
from services.probing.upkeep import liveness
from services.probing.upkeep.holds import HOLDS, Holds
from services.probing.upkeep.recovery import RECOVERY
from services.redis_client import get_redis, key

RULES = Politeness(per_host=1, lease_seconds=60, interval_seconds=0, backoff_seconds=1,
                   backoff_max_seconds=1, slow_reply_seconds=5)  # fmt: skip


@pytest.fixture
def sweeps(monkeypatch: pytest.MonkeyPatch, database_url: str) -> list[str]:
    asked: list[str] = []
    monkeypatch.setattr(RECOVERY, "sweep_when_back", lambda: asked.append("sweep"))
    monkeypatch.setattr(liveness, "ME", liveness.Me())
    monkeypatch.setattr(HOLDS, "after_renewal", [])
    monkeypatch.setattr(HOLDS, "record", "")
    return asked


class Peer:
    """A worker process as ``liveness.register`` leaves it, holding a seat and a session slot."""

    def __init__(self, where: str) -> None:
        self.name = f"peer@test {secrets.token_hex(4)}"
        self.seat = f"live-{secrets.token_hex(4)}.test"
        self.ip = f"198.51.100.{secrets.randbelow(200) + 1}-{secrets.token_hex(2)}"
        holds = Holds()
        holds.record = key("holds", self.name)
        get_redis().hset(key("workers"), self.name, where)
        get_redis().set(key("alive", self.name), "t", ex=60)
        holds.keep(key("alive", self.name), "t")
        lanes.push([LaneRef(1, self.seat, 7, 1)])
        self.token = lanes.take(self.seat)
        assert self.token is not None
        holds.keep(lanes.owner_key(self.seat), self.token)
        slot, _ = politeness.try_open(self.ip, RULES)
        assert slot is not None
        holds.keep_member(set_key(politeness.SLOTS, self.ip), slot)
        holds.renew()

    def dies(self) -> None:
        """Killed: nothing renews its alive mark, which runs out (its other holds would, a while later)."""
        get_redis().delete(key("alive", self.name))

    def registered(self) -> bool:
        return bool(get_redis().hexists(key("workers"), self.name))


def _this_host(pid: int) -> str:
    return f"{liveness._host()} {pid} {liveness._started(pid)}"


def _a_finished_process() -> int:
    process = subprocess.Popen(["true"])
    process.wait()  # reaped: its PID names no process
    return process.pid


def test_a_worker_whose_alive_mark_ran_out_is_buried_with_its_holds_by_the_first_to_see_it(
    sweeps: list[str],
) -> None:
    me, dead = Peer("elsewhere 1 1"), Peer("elsewhere 2 2")
    liveness.ME.name, liveness.ME.where = me.name, "elsewhere 1 1"
    dead.dies()

    assert liveness.look_for_the_dead() == 1

    assert lanes.owners([dead.seat]) == {dead.seat: None}  # the lane's next drain may take it
    assert politeness.open_sessions(dead.ip) == 0  # its mail server's slot is free
    assert not dead.registered()
    assert me.registered()
    assert lanes.owners([me.seat]) == {me.seat: me.token}
    assert sweeps == ["sweep"]  # its claims taken back and lanes woken at once
    assert liveness.look_for_the_dead() == 0  # buried once


def test_a_seat_someone_took_since_is_left_to_them(sweeps: list[str]) -> None:
    dead = Peer("elsewhere 3 3")
    assert dead.token is not None
    lanes.let_go(dead.seat, dead.token)
    newer = lanes.take(dead.seat)

    assert liveness.bury(dead.name)

    assert lanes.owners([dead.seat]) == {dead.seat: newer}


def test_a_starting_worker_buries_its_hosts_dead_at_once_but_judges_no_other_host_by_a_pid(
    sweeps: list[str],
) -> None:
    gone = _a_finished_process()
    dead_here = Peer(f"{liveness._host()} {gone} 1")
    living_here = Peer(_this_host(os.getpid()))
    elsewhere = Peer(f"another-host/boot/pid:[1] {gone} 1")

    liveness.register("worker@test")

    assert not dead_here.registered()
    assert lanes.owners([dead_here.seat]) == {dead_here.seat: None}
    assert living_here.registered()
    assert elsewhere.registered()
    assert sweeps == ["sweep", "sweep"]  # the burial's, and the start's own
    liveness.leave()
    assert not get_redis().hexists(key("workers"), liveness.ME.name)


def test_a_worker_told_to_stop_runs_no_new_round_and_hands_its_seat_on(
    job_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seat = f"stopping-{secrets.token_hex(4)}.test"
    lanes.push([LaneRef(1, seat, 7, 1)])  # a ref waiting, its drain message on its way
    monkeypatch.setattr(liveness, "STOPPING", liveness.STOPPING.__class__())
    monkeypatch.setattr(lane_runs, "STOPPING", liveness.STOPPING)
    liveness.STOPPING.set()

    assert lane_runs.drain(seat) == 0  # the message taken, no round run

    assert lanes.owners([seat]) == {seat: "sent"}  # a new drain message for another worker
    assert lanes.pop_round(seat, 100).group_ids == [1]  # the ref still there for it
