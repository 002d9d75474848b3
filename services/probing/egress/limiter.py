"""``RedisSessionLimiter``: the engine's ``SessionLimiter`` shared by every worker, counting politeness per
(egress, MX address) (``policy.place``) and choosing the egress of each new session.

A new session to an MX address tries the process's egresses in ``policy.egress_order`` (spread by a turn
counter, the pairs in backoff last) and takes the first whose pair admits it (``politeness.try_open``:
sessions at once, spacing, backoff); the lease it answers (``EgressLease``) names that egress, and the
engine opens the session over it. When no pair admits one it waits as the rules say (``policy.pool_wait``,
``policy.next_look``), except a backoff of every pair, which is never waited out: the group answers at
once, unknown, with when the backoff ends (a request is not held for it). So an MX address takes
``per_host`` sessions per egress, a complaint (a 421, slow replies) backs off only the pair that
received it, and a block (``policy.block_in``) closes the pair
for longer (``blocks``): the next sessions to that address leave over the other egresses.

Trade-offs accepted:

- A lease is a member of its pair's lease set, a hold its process renews while the session lives
  (``services.probing.upkeep.holds``): a worker killed mid-session never releases it, and the slot frees
  itself within ``HOLD_SECONDS`` (at once when a live worker notices the death,
  ``services.probing.upkeep.liveness``). Waiting for a full slot set polls (50-250 ms,
  ``policy.next_look``): no pub/sub to clean up after a dead waiter; waiting out spacing sleeps as long
  as Redis said.
- A lease that is a plain string (not granted here) counts against the first egress.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Sequence

from services.lease_sets import set_key
from services.probing.egress import blocks, counters
from services.probing.fleet import policy, politeness
from services.probing.fleet.policy import Politeness
from services.probing.upkeep.holds import HOLDS
from verifier.egress import DIRECT, Egress
from verifier.smtp import ReplyEvidence
from verifier.smtp.limiter import EgressLease

log = logging.getLogger(__name__)


class RedisSessionLimiter:
    """``SessionLimiter`` and ``SessionObserver`` over this process's ``egresses``, fleet-wide in Redis."""

    def __init__(self, rules: Politeness, egresses: Sequence[Egress] = (DIRECT,)) -> None:
        self.rules = rules
        self.egresses = tuple(egresses) or (DIRECT,)
        self._by_id = {egress.id: egress for egress in self.egresses}
        self._turns = itertools.count()

    def acquire(self, mx_host: str, timeout: float) -> str | None:
        give_up, pause = time.monotonic() + timeout, policy.POLL_FIRST
        while True:
            lease, wait = self._try_each(mx_host)
            if lease is not None:
                return lease
            if self.backing_off(mx_host) > 0:
                return None  # every pair asked us to wait: answered at once, with when (never waited out)
            # a spacing or backoff answer says how long; a full slot set is polled, doubling the pause;
            # a wait outlasting the timeout would be in vain
            sleep, pause = policy.next_look(wait, pause, give_up - time.monotonic())
            if sleep is None:
                return None
            time.sleep(sleep)

    def _try_each(self, mx_host: str) -> tuple[EgressLease | None, float]:
        ids = [egress.id for egress in self.egresses]
        waits = self._waits(ids, mx_host) if len(ids) > 1 else []
        tried: list[float] = []
        for egress_id in policy.egress_order(ids, next(self._turns), waits):
            where = policy.place(egress_id, mx_host)
            token, wait = politeness.try_open(where, self.rules)
            if token is not None:
                HOLDS.keep_member(set_key(politeness.SLOTS, where), token)
                counters.opened(egress_id, token, self.rules.lease_seconds)
                return EgressLease(token, self._by_id[egress_id]), 0.0
            tried.append(wait)
        return None, policy.pool_wait(tried)

    def _waits(self, ids: list[str], mx_host: str) -> list[float]:
        """Per egress, why it comes last: its pair's backoff (or block), or the egress out of the pool
        or failed lately (``blocks.unavailable``)."""
        out = blocks.unavailable(ids)
        return [
            max(self._backoff(egress_id, mx_host), left) for egress_id, left in zip(ids, out, strict=True)
        ]

    def release(self, mx_host: str, lease: str) -> None:
        HOLDS.drop_member(lease)
        politeness.close(self._place(mx_host, lease), lease)
        if isinstance(lease, EgressLease):
            counters.closed(lease.egress.id, lease, lease.rcpts)

    def session_ended(self, mx_host: str, transcript: Sequence[ReplyEvidence], lease: str = "") -> None:
        """What a session says of its pair: the egress failed (``policy.fault_in``), the server blocks it
        (``policy.block_in``, a 421 again past a backoff), asked it to back off (``policy.complaint``),
        or answered it."""
        egress_id = self._egress(lease).id
        if (fault := policy.fault_in(transcript)) is not None:
            blocks.fault(egress_id, fault)
            counters.error(egress_id, fault)
            return
        found = policy.block_in(transcript)
        if found is not None and found.refused and not blocks.answers_others(egress_id, mx_host):
            found = None  # refused to every egress: the server is down, not blocking us
        reason = policy.complaint(transcript, self.rules)
        if reason is not None:
            where = policy.place(egress_id, mx_host)
            seconds = politeness.back_off(where, self.rules)
            log.warning("backing off from %s for %.0f s: %s", where, seconds, reason)
            if found is None and policy.complaint_blocks(reason, seconds, self.rules):
                found = policy.Block(f"{reason} again past a backoff")
        if found is not None:
            _, new = blocks.block(egress_id, mx_host, found.reply)
            if new:
                counters.error(egress_id, f"blocked by {mx_host}: {found.reply}", mx_host)
        elif any(item.code is not None for item in transcript):
            blocks.answered(egress_id, mx_host)

    def backing_off(self, mx_host: str) -> float:
        """Seconds until some egress of the process may open a session to ``mx_host`` again (0: one may)."""
        return min(self._backoff(egress.id, mx_host) for egress in self.egresses)

    def blocked(self, mx_host: str) -> float:
        """When the server blocks every egress of the process: seconds until the first block ends (0:
        some egress is not blocked there)."""
        return min(blocks.blocked_for(egress.id, mx_host) for egress in self.egresses)

    def active(self, mx_host: str) -> int:
        """Leases held on ``mx_host`` over this process's egresses (expired ones included until the next
        acquire drops them)."""
        return sum(politeness.open_sessions(policy.place(egress.id, mx_host)) for egress in self.egresses)

    def _backoff(self, egress_id: str, mx_host: str) -> float:
        return politeness.backing_off(policy.place(egress_id, mx_host))

    def _place(self, mx_host: str, lease: str) -> str:
        return policy.place(self._egress(lease).id, mx_host)

    def _egress(self, lease: str) -> Egress:
        return lease.egress if isinstance(lease, EgressLease) else self.egresses[0]
