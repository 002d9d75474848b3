"""Draining a lane: rounds of claimed groups of one domain, probed together, saved in one transaction.

One worker at a time holds a lane (``lanes.take``, a lease) for at most ``LANE_TURN_SECONDS``. Each round
takes up to one session's worth of addresses (``SMTP_MAX_RCPT_PER_SESSION``), accounts in turn, claims
those groups in one statement (the claim of ``services.jobs.runs``: a ref whose group is done or held by
someone else is skipped), probes the groups that asked for the same checks as one group (the engine keeps
the session open between rounds, ``verifier/smtp/keeper.py``), and saves every group in one transaction
(``saving.save_round``: a handful of multi-row statements for the whole round), which answers each job
as soon as its own addresses are done.

Trade-offs accepted:

- Groups probed together share one deferral decision: the earliest deadline and the latest attempt of
  the round (``probe.probe_group``), so a greylisted address may settle as unknown a little earlier than
  its own job alone would have allowed, never later.
- A turn ends on time, not on an empty lane; the lane then goes back to the broker's queue (one message)
  so a lane with a steady stream cannot keep a worker slot from every other lane.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable

from sqlalchemy import update

from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.jobs import lanes, runs, saving, settling
from services.jobs.dispatch import wake
from services.jobs.engine import shared_engine
from services.jobs.options import JobOptions
from services.jobs.probe import MAX_CLAIMS, GroupVerdicts, given_up, probe_group
from settings import get_settings

log = logging.getLogger(__name__)
LINGER = (0.05, 0.1, 0.15, 0.0)  # seconds slept after each empty look at the lane, 0.3 s in all


def drain(domain: str) -> int:
    """One turn on lane ``domain`` if nobody else holds it; the number of groups run."""
    token = lanes.take(domain)
    if token is None:
        return 0  # its holder looks at the lane again before it lets go
    done = 0
    try:
        done = _turn(domain, token, shared_engine().config.smtp_max_rcpt_per_session)
    finally:
        lanes.clear_sent(domain)
        lanes.give_back(domain, token)
        if lanes.waiting(domain) and lanes.mark_sent(domain):
            wake(domain)  # pushed while we were finishing, or the turn ran out
    return done


def _turn(domain: str, token: str, round_size: int) -> int:
    ends, done = time.monotonic() + get_settings().jobs.lane_turn, 0
    while time.monotonic() < ends and lanes.keep(domain, token):
        group_ids = _next_round(domain, round_size)
        if not group_ids:
            break
        done += run_round(group_ids)
    return done


def _next_round(domain: str, round_size: int) -> list[int]:
    """The next round's groups, lingering a moment on an empty lane: batches in flight keep adding
    groups, and taking them here costs one Redis call where leaving costs a broker message and a lease."""
    for pause in LINGER:
        if group_ids := lanes.pop_round(domain, round_size):
            return group_ids
        time.sleep(pause)
    return []


def run_round(group_ids: list[int]) -> int:
    """Claim, probe and save the groups of one round; the number claimed."""
    claims = runs.claim_groups(group_ids)
    if not claims:
        return 0
    verdicts = {c.group_id: given_up(c.emails, c.attempt - 1) for c in claims if c.attempt > MAX_CLAIMS}
    live = [claim for claim in claims if claim.attempt <= MAX_CLAIMS]
    try:
        for bucket in _by_options(live):
            verdicts |= probe_together(bucket)
    except Exception:
        _let_go(live)
        raise
    settled = [(claim, verdicts[claim.group_id]) for claim in claims if not verdicts[claim.group_id].deferred]
    try:
        with transaction() as session:
            saving.save_round(session, settled)
            for claim in claims:
                if verdicts[claim.group_id].deferred:
                    runs.save(session, claim, verdicts[claim.group_id])
    except Exception:
        _let_go(claims)  # nothing was saved: the next sweep sends them again
        raise
    for job_id, kind in sorted({(claim.job_id, claim.kind) for claim in claims}):
        settling.wake_if_answered(job_id, kind)  # interim answers may have completed a job's set
    return len(claims)


def probe_together(claims: list[runs.Claim]) -> dict[int, GroupVerdicts]:
    """Claims of one domain asking for the same checks, probed as one group, verdicts shared back."""
    options = JobOptions.from_json(claims[0].options)
    emails = list(dict.fromkeys(email for claim in claims for email in claim.emails))
    retry_until = min(claim.deadline for claim in claims)
    merged = probe_group(emails, options, retry_until=retry_until, attempt=max(c.attempt for c in claims))
    return {claim.group_id: _share(merged, claim.emails) for claim in claims}


def _share(merged: GroupVerdicts, emails: Iterable[str]) -> GroupVerdicts:
    mine = set(emails)
    interim = {email: result for email, result in merged.interim.items() if email in mine}
    return GroupVerdicts(
        {email: result for email, result in merged.settled.items() if email in mine},
        interim,
        merged.retry_at if interim else None,
        merged.unreachable,
        merged.outcome,
    )


def _by_options(claims: list[runs.Claim]) -> list[list[runs.Claim]]:
    buckets: dict[str, list[runs.Claim]] = {}
    for claim in claims:
        buckets.setdefault(json.dumps(claim.options, sort_keys=True), []).append(claim)
    return list(buckets.values())


def _let_go(claims: list[runs.Claim]) -> None:
    """On an error, the claims go back to pending at once so the next sweep retries them."""
    with transaction() as session:
        for claim in claims:
            session.execute(
                update(JobGroup).where(claim.mine).values(state=GroupState.PENDING.value, lease_until=None)
            )
