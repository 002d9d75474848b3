"""Draining a lane: rounds of claimed groups behind one MX address, probed in turn, saved with other lanes'.

One worker at a time owns each of a lane's seats (``lanes.take``) for at most ``LANE_TURN_SECONDS``, so
an MX address's lane is drained by as many workers as it may have sessions, its domains spread over all of
them as they come. Each round takes up
to one session's worth of addresses (``SMTP_MAX_RCPT_PER_SESSION``), accounts in turn, claims those
groups (``services.jobs.store.claim_groups``: a ref whose group is done or held by someone else is
skipped), probes the groups of one domain that asked for the same checks as one group, one domain after
the other over the same session (the engine hands it from group to group and from round to round,
``verifier/smtp/keeper.py``: RCPTs of several domains in one transaction; catch-all probes stay per
domain), each domain's pipelined write carrying the next domains' RCPTs at the same address so that a
round of one-address groups costs a round trip per write, not per domain (``verifier/smtp/relay.py``),
and hands each domain's verdicts to the process's saver as soon as it is probed, which
writes the rounds of every lane that finished at about the same time in one transaction
(``saving.save_round``), answering each job as soon as its own addresses are done. Claims go the same
way (``services.probing.rounds.coalescer``): a worker draining 200 lanes of one-address groups spends a few
statements per batch of rounds, not two transactions per address.

Between rounds an empty lane waits for a push (a blocking pop on its wake-up list) as long as its kept
session would stay warm (``SMTP_SESSION_IDLE_SECONDS``), so the addresses of batches in flight ride the
open session instead of a new drain message, lease and connection.

Trade-offs accepted:

- Groups probed together share one deferral decision: the earliest deadline and the latest attempt of
  the round (``probe.probe_group``), so a greylisted address may settle as unknown a little earlier than
  its own job alone would have allowed, never later.
- A turn ends on time, not on an empty lane; the lane then goes back to the broker's queue (one message)
  so a lane with a steady stream cannot keep a worker slot from every other lane.
- Rounds of many lanes share a save: one failing save lets go of every claim in it (the sweeper sends
  them again), as a failing round did alone.

Faults: the process keeps the lane's hold alive while the turn runs (``services.probing.upkeep.holds``), and
each claim records it, so a turn that dies (its worker killed) is noticed within a hold's life, at once when
another worker buries the dead one (``services.probing.upkeep.liveness``); a worker told to stop ends its
turns after the round in hand and hands their seats on.
A claim or a save meeting an unreachable Postgres waits for it (``models.session.patiently``, up to half a
lease) and goes on the moment it answers; refs whose claim failed go back to their lane; a turn that
failed has its worker sweep as soon as both stores answer (``services.probing.upkeep.recovery``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, wait
from datetime import timedelta

from redis.exceptions import RedisError

from core import clock
from models.session import patiently, transaction
from services.jobs import store
from services.jobs.options import JobOptions
from services.jobs.store import Claim
from services.probing.fleet.fleet_engine import shared_engine
from services.probing.jobs import settling
from services.probing.jobs.dispatch import wake
from services.probing.rounds import lanes, routes, saving
from services.probing.rounds.coalescer import Coalescer
from services.probing.rounds.probe import MAX_CLAIMS, Group, GroupVerdicts, given_up, probe_group, relay_for
from services.probing.upkeep.holds import HOLDS
from services.probing.upkeep.liveness import STOPPING
from services.probing.upkeep.recovery import RECOVERY
from settings import get_settings
from verifier.config import EngineConfig
from verifier.smtp import ProberFault, Relay

log = logging.getLogger(__name__)
Round = tuple[list[Claim], dict[int, GroupVerdicts]]


def drain(seat: str) -> int:
    """One turn on ``seat`` of its lane if nobody else holds the seat; the number of groups run."""
    token = lanes.take(seat)
    if token is None:
        return 0  # its owner waits for the lane's wake-ups and takes the new groups itself
    HOLDS.keep(lanes.owner_key(seat), token)
    try:
        return _turn(seat, token)
    except Exception:
        RECOVERY.sweep_when_back()  # work was cut short: sent again once both stores answer
        raise
    finally:
        HOLDS.drop(lanes.owner_key(seat))
        _hand_on(seat, token)


def _hand_on(seat: str, token: str) -> None:
    """Let the seat go (a drain message when refs still wait); with Redis unreachable, once it is back."""
    try:
        if lanes.let_go(seat, token):
            wake(seat)  # pushed while we were finishing, or the turn ran out
    except RedisError:
        log.warning("seat %s not let go: Redis unreachable; letting go once it is back", seat)
        RECOVERY.sweep_when_back((seat, token))


def _turn(seat: str, token: str) -> int:
    config, settings = shared_engine().config, get_settings().jobs
    lane, started = lanes.lane_of_seat(seat), time.monotonic()
    seats = routes.seats_for(lane)
    done, saves = 0, list[Future[None]]()
    try:
        while _turn_goes_on(seat, started + settings.lane_turn):
            popped = _next_round(lane, config, seats)
            if not popped.taken:
                break
            claims = _claim(popped, token)
            saves += [SAVES.submit(part) for part in probe_round(claims)]
            done += len(claims)
    finally:
        wait(saves)  # the hold stays ours until the turn's saves are in, even when the turn failed
    for save in saves:
        save.result()  # a failed save fails the task, where Flower shows it; its claims were let go
    return done


def _turn_goes_on(seat: str, until: float) -> bool:
    """Another round, unless the turn's time is up, the seat was lost, or the worker is stopping (the
    seat goes to another worker with its drain message, ``_hand_on``)."""
    stopping = STOPPING.is_set()
    return time.monotonic() < until and not HOLDS.lost(lanes.owner_key(seat)) and not stopping


def _next_round(lane: str, config: EngineConfig, seats: int) -> lanes.Popped:
    """The next round's refs (a session's worth of addresses, at least a write's worth of refs), waiting
    as long as a kept session stays warm for a push on an empty lane."""
    until = time.monotonic() + config.smtp_session_idle
    while True:
        popped = lanes.pop_round(
            lane, config.smtp_max_rcpt_per_session, seats, least=config.smtp_session_max_rejections
        )
        if popped.taken or (left := until - time.monotonic()) <= 0 or STOPPING.is_set():
            return popped
        lanes.wait_for_push(lane, left)


def _claim(popped: lanes.Popped, token: str) -> list[Claim]:
    """The round's claims under our hold; if claiming fails, the refs go back to the lane first."""
    try:
        return CLAIMS.submit((token, popped.group_ids)).result()
    except Exception:
        try:
            lanes.put_back(popped)
        except RedisError:
            log.warning(
                "%d refs of %s not put back; the sweeper queues them again", len(popped.taken), popped.lane
            )
        raise


def probe_round(claims: list[Claim]) -> Iterator[Round]:
    """The verdicts of a round's claims, a domain at a time as each is probed, so an address is saved
    without waiting for the round's other domains; on an error the claims not answered yet are let go at
    once and the error propagates."""
    spent = [claim for claim in claims if claim.attempt > MAX_CLAIMS]
    if spent:
        yield spent, {claim.group_id: given_up(claim.emails, claim.attempt - 1) for claim in spent}
    buckets = _by_domain_and_options([claim for claim in claims if claim.attempt <= MAX_CLAIMS])
    try:
        groups = [_group_of(bucket) for bucket in buckets]
        relay = relay_for(groups)
    except Exception:
        _let_go([claim for waiting in buckets for claim in waiting])
        raise
    try:
        for answered, (bucket, group) in enumerate(zip(buckets, groups, strict=True)):
            relay.advance()
            try:
                verdicts = probe_together(bucket, group, relay)
            except Exception:
                _let_go([claim for waiting in buckets[answered:] for claim in waiting])
                raise
            yield bucket, verdicts
    finally:
        _finish(relay)


def _finish(relay: Relay) -> None:
    """The round's last sessions go to the process's keeper (or are closed)."""
    try:
        relay.finish(shared_engine().keeper)
    except ProberFault as fault:  # every session is closed; the lease expires by itself
        log.warning("ending a round's SMTP sessions: %s", fault)


def save_rounds(rounds: Sequence[Round]) -> list[None]:
    """Every round's groups in one transaction (``saving.save_round``)."""
    claims = [claim for round_claims, _ in rounds for claim in round_claims]
    verdicts = {group: v for _, round_verdicts in rounds for group, v in round_verdicts.items()}
    try:
        patiently(lambda: _save(claims, verdicts), _patience())
    except Exception:
        _let_go(claims)  # nothing was saved: the next sweep sends them again
        raise
    _wake_interim(claims)
    return [None] * len(rounds)


def _save(claims: list[Claim], verdicts: dict[int, GroupVerdicts]) -> None:
    """One transaction, safe to run again (the store's guards): a commit whose answer was lost saves
    nothing twice."""
    with transaction() as session:
        saving.save_round(session, [(claim, verdicts[claim.group_id]) for claim in claims])


def _patience() -> float:
    """How long a claim or a save waits for Postgres to come back: well within the claims' lease."""
    return get_settings().jobs.lease / 2


def _wake_interim(claims: Iterable[Claim]) -> None:
    """Jobs that may hold interim answers (they asked for retries) may now be answered without being
    complete (completion wakes the others)."""
    jobs = {(c.job_id, c.kind) for c in claims if JobOptions.from_json(c.options).retry_temporary}
    for job_id, kind in sorted(jobs):
        settling.wake_if_answered(job_id, kind)


def _addresses(round_: Round) -> int:
    return sum(len(claim.emails) for claim in round_[0])


def claim_rounds(rounds: Sequence[tuple[str, list[int]]]) -> list[list[Claim]]:
    """The claims of many lanes' rounds (each its owner's token and group ids) in one statement, each
    leased for ``JOB_LEASE_SECONDS`` under its lane's token, handed back to each round; while Postgres is
    unreachable the rounds wait for it (``patiently``)."""
    owned_by = {group: token for token, ids in rounds for group in ids}
    claimed = patiently(lambda: _claim_groups(owned_by), _patience())
    claims = {claim.group_id: claim for claim in claimed}
    return [[claims[group] for group in dict.fromkeys(ids) if group in claims] for _, ids in rounds]


def _claim_groups(owned_by: dict[int, str]) -> list[Claim]:
    now = clock.now()
    lease_until = now + timedelta(seconds=get_settings().jobs.lease)
    with transaction() as session:
        return store.claim_groups(session, owned_by, now, lease_until)


# A save run holds its results in memory a few times over (rows, JSON, the statement): 1,000 addresses
# are a few MB, where the 10,000 of a list's lanes finishing together were most of a worker's peak RSS.
CLAIMS = Coalescer("lane-claims", claim_rounds, gather=0.005, most=1000, weight=lambda round_: len(round_[1]))
SAVES = Coalescer("lane-saves", save_rounds, gather=0.02, most=3000, weight=_addresses)


def _group_of(claims: list[Claim]) -> Group:
    """Claims of one domain asking for the same checks: one group of their distinct addresses."""
    emails = list(dict.fromkeys(email for claim in claims for email in claim.emails))
    return Group.of(emails, JobOptions.from_json(claims[0].options))


def probe_together(claims: list[Claim], group: Group, relay: Relay) -> dict[int, GroupVerdicts]:
    """Claims of one domain asking for the same checks, probed as one ``group``, verdicts shared back."""
    retry_until = min(claim.deadline for claim in claims)
    attempt = max(claim.attempt for claim in claims)
    merged = probe_group(group, retry_until=retry_until, attempt=attempt, relay=relay)
    return {claim.group_id: _verdicts_for(claim.emails, merged) for claim in claims}


def _verdicts_for(emails: Iterable[str], merged: GroupVerdicts) -> GroupVerdicts:
    """One claim's part of the verdicts of the group its round probed: its own addresses', and the
    group's reachability (the same MX hosts answered, or not, for all of them)."""
    mine = set(emails)
    interim = {email: result for email, result in merged.interim.items() if email in mine}
    return GroupVerdicts(
        {email: result for email, result in merged.settled.items() if email in mine},
        interim,
        merged.retry_at if interim else None,
        merged.unreachable,
        merged.outcome,
    )


def _by_domain_and_options(claims: list[Claim]) -> list[list[Claim]]:
    """Claims probed as one group: one domain's, asking the same checks; domains in the round's order."""
    buckets: dict[tuple[str, str], list[Claim]] = {}
    for claim in claims:
        buckets.setdefault((claim.domain, json.dumps(claim.options, sort_keys=True)), []).append(claim)
    return list(buckets.values())


def _let_go(claims: list[Claim]) -> None:
    """On an error, the claims go back to pending at once so the next sweep retries them (if Postgres is
    unreachable, the sweeper takes them back once it answers: their hold is gone by then)."""
    with transaction() as session:
        store.let_go(session, claims)
