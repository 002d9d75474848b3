"""``SessionLimiter``: at most N concurrent SMTP sessions against one MX server.

Mail providers throttle or block senders that open many parallel connections; the limit is per MX *IP
address* (the server we actually connect to: many MX names, of many customer domains, often point at one
machine) across every probe of a process (``LocalSessionLimiter``) or of the whole fleet (the service's
Redis implementation of the same protocol). Leases carry a token so a shared implementation can release
exactly the slot it granted, even after a worker restarts.

A limiter that spreads sessions over several egresses (the service's: politeness per (egress, MX address))
answers an ``EgressLease``: the session opens over the egress it names, and the lease, handed back with the
session's transcript, tells the limiter which pair the session counted against.
"""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from verifier.egress import Egress
from verifier.smtp.evidence import ReplyEvidence


class EgressLease(str):
    """A lease (its token, as a ``str``) for a session over ``egress``, the one the limiter chose."""

    egress: Egress
    rcpts: int  # RCPTs sent on the session over its life, whatever groups it served (counted by them)

    def __new__(cls, token: str, egress: Egress) -> EgressLease:
        lease = super().__new__(cls, token)
        lease.egress, lease.rcpts = egress, 0
        return lease


class SessionLimiter(Protocol):
    """Positional-only, so an implementation may name the parameters as it likes."""

    def acquire(self, mx_ip: str, timeout: float, /) -> str | None:
        """Wait up to ``timeout`` seconds for a slot on ``mx_ip``; a lease token, or None if none came."""
        ...

    def release(self, mx_ip: str, lease: str, /) -> None:
        """Give back the slot ``lease`` on ``mx_ip``."""
        ...


@runtime_checkable
class SessionObserver(Protocol):
    """A limiter that also wants to hear how each session went (to back off from a server that asked)."""

    def session_ended(self, mx_ip: str, transcript: Sequence[ReplyEvidence], lease: str = "", /) -> None:
        """``transcript``: the replies of one session (or of its part a group used), in order; ``lease``
        the one the session was opened under (an ``EgressLease`` names its egress)."""
        ...

    def backing_off(self, mx_ip: str, /) -> float:
        """Seconds before a new session to ``mx_ip`` may open again because it complained (0: none)."""
        ...


class LocalSessionLimiter:
    """A thread-safe (and, under gevent's monkey-patching, greenlet-safe) in-process limiter."""

    def __init__(self, per_host: int) -> None:
        if per_host < 1:
            raise ValueError("per_host must be at least 1")
        self.per_host = per_host
        self._active: defaultdict[str, set[str]] = defaultdict(set)
        self._condition = threading.Condition()
        self._tokens = itertools.count()

    def acquire(self, mx_ip: str, timeout: float) -> str | None:
        with self._condition:
            granted = self._condition.wait_for(lambda: len(self._active[mx_ip]) < self.per_host, timeout)
            if not granted:
                return None
            lease = str(next(self._tokens))
            self._active[mx_ip].add(lease)
            return lease

    def release(self, mx_ip: str, lease: str) -> None:
        with self._condition:
            self._active[mx_ip].discard(lease)
            self._condition.notify_all()

    def active(self, mx_ip: str) -> int:
        """Sessions currently held on ``mx_ip``."""
        with self._condition:
            return len(self._active[mx_ip])
