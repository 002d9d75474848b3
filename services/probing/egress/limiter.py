"""``RedisSessionLimiter``: the engine's ``SessionLimiter`` shared by every worker, counting politeness per
(egress, MX address) (``policy.place``) and choosing the egress of each new session.

A new session to an MX address tries the process's egresses in ``policy.egress_order`` (spread by a turn
counter, the pairs in backoff last) and takes the first whose pair admits it (``politeness.try_open``:
sessions at once, spacing, backoff); the lease it answers (``EgressLease``) names that egress, and the
engine opens the session over it. When no pair admits one it waits as the rules say (``policy.pool_wait``,
``policy.next_look``). So an MX address takes ``per_host`` sessions per egress, and a complaint (a 421,
slow replies) backs off only the pair that received it.

Trade-offs accepted:

- A lease is a member of its pair's lease set, a hold its process renews while the session lives
  (``services.probing.upkeep.holds``): a worker killed mid-session never releases it, and the slot frees
  itself within ``HOLD_SECONDS`` (at once when a live worker notices the death,
  ``services.probing.upkeep.liveness``). Waiting for a full slot set polls (50-250 ms,
  ``policy.next_look``): no pub/sub to clean up after a dead waiter; waiting out spacing or a backoff
  sleeps as long as Redis said.
- A lease that is a plain string (not granted here) counts against the first egress.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Sequence

from services.lease_sets import set_key
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
            # a spacing or backoff answer says how long; a full slot set is polled, doubling the pause;
            # a wait outlasting the timeout would be in vain
            sleep, pause = policy.next_look(wait, pause, give_up - time.monotonic())
            if sleep is None:
                return None
            time.sleep(sleep)

    def _try_each(self, mx_host: str) -> tuple[EgressLease | None, float]:
        ids = [egress.id for egress in self.egresses]
        backoffs = [self._backoff(egress_id, mx_host) for egress_id in ids] if len(ids) > 1 else []
        waits: list[float] = []
        for egress_id in policy.egress_order(ids, next(self._turns), backoffs):
            where = policy.place(egress_id, mx_host)
            token, wait = politeness.try_open(where, self.rules)
            if token is not None:
                HOLDS.keep_member(set_key(politeness.SLOTS, where), token)
                return EgressLease(token, self._by_id[egress_id]), 0.0
            waits.append(wait)
        return None, policy.pool_wait(waits)

    def release(self, mx_host: str, lease: str) -> None:
        HOLDS.drop_member(lease)
        politeness.close(self._place(mx_host, lease), lease)

    def session_ended(self, mx_host: str, transcript: Sequence[ReplyEvidence], lease: str = "") -> None:
        """Back off the pair from a server that answered 421 or slowly (``policy.complaint``)."""
        reason = policy.complaint(transcript, self.rules)
        if reason is not None:
            where = self._place(mx_host, lease)
            seconds = politeness.back_off(where, self.rules)
            log.warning("backing off from %s for %.0f s: %s", where, seconds, reason)

    def backing_off(self, mx_host: str) -> float:
        """Seconds until some egress of the process may open a session to ``mx_host`` again (0: one may)."""
        return min(self._backoff(egress.id, mx_host) for egress in self.egresses)

    def active(self, mx_host: str) -> int:
        """Leases held on ``mx_host`` over this process's egresses (expired ones included until the next
        acquire drops them)."""
        return sum(politeness.open_sessions(policy.place(egress.id, mx_host)) for egress in self.egresses)

    def _backoff(self, egress_id: str, mx_host: str) -> float:
        return politeness.backing_off(policy.place(egress_id, mx_host))

    def _place(self, mx_host: str, lease: str) -> str:
        egress = lease.egress if isinstance(lease, EgressLease) else self.egresses[0]
        return policy.place(egress.id, mx_host)
