"""The fleet simulation (bench/fleet_sim.py) on tiny worlds: the properties its tables are read for."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

import pytest
import simpy

from bench.fleet_lists import run_lists
from bench.fleet_model import Fleet
from bench.fleet_parts import WAKEUP_TTL, Group, Job, Lane
from bench.fleet_runs import Runs
from bench.fleet_sim import simulate
from bench.fleet_world import Policy, World
from settings import get_settings
from verifier.config import EngineConfig

TINY = World(
    workers=2,
    greenlets=20,
    domains=2_000,
    hosted_per_provider=50,
    lists=6,
    list_size=20_000,
    batch_rate=1.0,
    seconds=20,
    warmup=5,
)


@pytest.fixture
def policy() -> Policy:
    return Policy.read(get_settings(), EngineConfig.from_env())


def _provider_peak(fleet: Fleet) -> int:
    return max(mx.most_open for ip, mx in fleet.ips.items() if fleet.catalog.is_provider_ip(ip))


def test_policy_is_read_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMTP_SESSIONS_PER_MX_HOST", "4")
    monkeypatch.setenv("SMTP_MAX_RCPT_PER_SESSION", "50")
    get_settings.cache_clear()
    try:
        read = Policy.read(get_settings(), EngineConfig.from_env())
    finally:
        get_settings.cache_clear()
    assert (read.per_host, read.max_rcpt) == (4, 50)


def test_sessions_per_provider_ip_never_exceed_the_configured_limit(policy: Policy) -> None:
    fleet, row = simulate(replace(TINY, workers=4), policy.with_per_host(3))
    assert _provider_peak(fleet) == 3  # reached, never passed
    assert row.provider_ip_sessions == 3
    assert row.refusals_421 == 0


def test_a_limit_above_the_providers_earns_421s_and_a_backoff(policy: Policy) -> None:
    fleet, row = simulate(replace(TINY, workers=16), policy.with_per_host(8))
    assert row.refusals_421 > 0
    assert _provider_peak(fleet) == TINY.provider_session_limit + 1  # the one that was refused
    assert any(mx.backoff_until > 0 for mx in fleet.ips.values())


def test_every_address_gets_exactly_one_result(policy: Policy) -> None:
    world = replace(TINY, list_size=400, lists=3, batch_rate=2.0, batch_seconds=20, seconds=400, warmup=0)
    fleet = Fleet(world, policy)
    fleet.run()
    assert fleet.counts.settled_twice == 0
    assert all(job.finished is not None for job in fleet.jobs)
    assert [job.done for job in fleet.jobs] == [job.total for job in fleet.jobs]
    assert fleet.counts.groups > len(fleet.jobs)


def test_more_rounds_at_once_share_each_save(policy: Policy) -> None:
    few, many = (_rounds_per_save(replace(TINY, greenlets=greenlets), policy) for greenlets in (20, 200))
    assert 1 < few < many  # statements follow the runs, not the rounds


def _rounds_per_save(world: World, policy: Policy) -> float:
    fleet, _ = simulate(world, policy)
    saves = [saver.counts for saver in fleet.saves]
    return sum(c.requests for c in saves) / sum(c.runs for c in saves)


def test_a_run_takes_what_waits_up_to_its_weight_and_never_nothing() -> None:
    env = simpy.Environment()
    taken: list[list[int]] = []

    def run(items: list[int]) -> Generator[simpy.Event, Any, None]:
        taken.append(items)
        yield env.timeout(1.0)

    runs = Runs(env, run, gather=0.1, most=7, weight=lambda item: item)
    for item in (3, 3, 3, 9, 1):
        runs.submit(item)
    env.run(until=10)
    assert taken == [[3, 3], [3], [9], [1]]  # 3+3+3 is over 7; a 9 alone still runs


def test_halving_redis_moves_the_saturation_point_to_fewer_workers(policy: Policy) -> None:
    tail_only = replace(
        TINY,
        greenlets=100,
        domains=20_000,
        provider_share=0.0,
        lists=10,
        list_size=100_000,
        batch_rate=0.0,
        seconds=12,
        warmup=4,
        redis_ops_per_second=12_000,
        postgres_writes_per_second=1e9,
    )
    full = _first_saturated(tail_only, policy, "Redis")
    half = _first_saturated(replace(tail_only, redis_ops_per_second=6_000), policy, "Redis")
    assert half < full


def _first_saturated(world: World, policy: Policy, resource: str) -> int:
    for workers in (1, 2, 4, 8, 16, 32):
        if simulate(replace(world, workers=workers), policy)[1].saturated == resource:
            return workers
    return 64


def test_one_lane_per_mx_address_with_a_seat_per_session_carries_every_domain_behind_it(
    policy: Policy,
) -> None:
    fleet, _ = simulate(TINY, policy)
    keys = list(fleet.lanes)
    assert all(isinstance(key, tuple) and key[1] == 0 for key in keys)  # (MX address, 0), never a domain
    assert all(lane.seats == policy.per_host == 3 for lane in fleet.lanes.values())
    domains_per_lane = [
        {group.domain for queue in lane.queues.values() for group in queue} for lane in fleet.lanes.values()
    ]
    assert max(len(domains) for domains in domains_per_lane) > 1  # hosted domains wait in their MX's lane


def test_domain_lanes_and_the_crc_split_have_one_seat_a_lane(policy: Policy) -> None:
    by_domain, _ = simulate(TINY, replace(policy, lanes_by_mx=False))
    assert all(isinstance(key, int) and lane.seats == 1 for key, lane in by_domain.lanes.items())
    split, _ = simulate(TINY, replace(policy, split_by_domain=True))
    assert all(lane.seats == 1 for lane in split.lanes.values())
    assert {key[1] for key in split.lanes if isinstance(key, tuple)} == {0, 1, 2}


def test_a_big_domain_is_carried_by_every_seat_of_its_address(policy: Policy) -> None:
    consumer_heavy = replace(
        TINY, lists=1, list_size=100_000, provider_share=0.9, consumer_share=0.9, batch_rate=0.0
    )
    _, seated = simulate(consumer_heavy, policy)
    _, split = simulate(consumer_heavy, replace(policy, split_by_domain=True))
    assert seated.consumer_per_second > 2 * split.consumer_per_second  # 3 sessions at once, not 1


def _job(fleet: Fleet, domains: list[int]) -> Job:
    job = Job(account=1, total=len(domains), created=0.0, batch=True)
    job.pending.extend(Group(job, domain, 1) for domain in domains)
    job.planned = job.total
    return job


def test_a_push_wakes_no_more_seats_than_refs_wait(policy: Policy) -> None:
    fleet = Fleet(TINY, policy)
    hosted = fleet.catalog.hosted_start  # a hosted domain of provider 0, behind one of its addresses

    fleet._fill_window(_job(fleet, [hosted]))
    assert len(fleet.broker.items) == 1  # one ref: one seat
    fleet._fill_window(_job(fleet, [hosted] * 5))
    assert len(fleet.broker.items) == 3  # six refs: every seat, no more
    fleet._fill_window(_job(fleet, [hosted]))
    assert len(fleet.broker.items) == 3
    assert list(fleet.lanes) == [(fleet.catalog.ip_of(hosted), 0)]


def test_a_push_to_an_owned_lane_wakes_one_owner_a_ref_and_a_take_leaves_the_wakeups() -> None:
    lane = Lane((0, 0), seats=3)
    lane.messages = 3
    assert [lane.take(), lane.take()] == [True, True]
    assert lane.wake_owners(pushed=1, now=0.0) == 1  # one ref: one owner is enough
    assert lane.wake_owners(pushed=5, now=0.0) == 2  # every owner, none twice
    assert lane.take()  # a third seat: the three wake-ups stay for whoever finds the lane empty
    assert [lane.stale_wakeup(1.0) for _ in range(4)] == [True, True, True, False]
    lane.wake_owners(pushed=1, now=2.0)
    assert not lane.stale_wakeup(2.0 + WAKEUP_TTL)  # the list expired


def test_a_list_run_to_its_end_ends_at_its_last_result_and_seats_shorten_it(
    policy: Policy,
) -> None:
    consumer_heavy = replace(
        TINY,
        greenlets=200,  # the lanes' drains, not the greenlets, set the pace
        lists=1,
        list_size=20_000,
        provider_share=0.9,
        consumer_share=0.9,
        batch_rate=0.0,
    )
    fleet, seated = run_lists(consumer_heavy, policy, most=3_600)
    assert [job.done for job in fleet.jobs] == [20_000]
    assert seated.done_after == max(job.finished or 0.0 for job in fleet.jobs)
    assert seated.addresses_per_second == pytest.approx(20_000 / seated.done_after)
    _, split = run_lists(consumer_heavy, replace(policy, split_by_domain=True), most=3_600)
    assert split.done_after > 2 * seated.done_after  # the consumer domains on 3 sessions each, not 1


def test_a_round_of_a_lane_of_several_seats_takes_at_most_its_seats_share_of_the_refs() -> None:
    job = Job(account=1, total=60, created=0.0, batch=False)
    seated, single = Lane((0, 0), seats=3), Lane(7)
    for lane in (seated, single):
        for _ in range(6):
            lane.push(Group(job, 7, 10))
    assert len(seated.pop_round(100)) == 2  # 6 refs over 3 seats
    assert len(seated.pop_round(100)) == 2  # 4 left: still 2
    assert len(single.pop_round(100)) == 6  # one seat: a session's worth
    assert (seated.refs, single.refs) == (2, 0)
