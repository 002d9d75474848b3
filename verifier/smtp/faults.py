"""Our own machinery failing, told apart from what the probed server did.

The caller injects the ``SessionLimiter`` (and its ``SessionObserver`` half); the service's runs on Redis.
When one of its calls raises (Redis down, a bug), nothing was learnt about the probed server, yet the
exception would surface in the middle of a group, where it must not be read as the server's answer.
``GuardedLimiter`` turns whatever the injected limiter raises into ``ProberFault``, so the engine can say
"not probed" instead of a verdict. The server's own outcomes (refusals, timeouts, hang-ups) never raise:
``ProbeSession`` keeps them as evidence, and they stay verdict-bearing.

Trade-off accepted: a lease release that fails after every RCPT was answered also faults the group, so
those answers are thrown away and asked again later (the lease expires by itself). One more session to
the server is cheaper than telling apart which half of a failing prober can still be trusted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import cast

from verifier.smtp.evidence import ReplyEvidence
from verifier.smtp.limiter import SessionLimiter, SessionObserver

INTERNAL_ERROR = "internal_error"  # the reason of an address whose probe our own fault prevented


class ProberFault(Exception):
    """The prober's own machinery failed (an injected limiter or observer raised): no verdict may be
    drawn from the group. The original exception is its ``__cause__``."""


@contextmanager
def ours() -> Iterator[None]:
    """Whatever the block raises is our machinery's fault, not the server's."""
    try:
        yield
    except ProberFault:
        raise
    except Exception as error:
        raise ProberFault(f"{type(error).__name__}: {error}") from error


class GuardedLimiter:
    """An injected limiter whose every failure is a ``ProberFault``; observes only if the limiter does."""

    def __init__(self, limiter: SessionLimiter) -> None:
        self._limiter = limiter
        self._observer: SessionObserver | None = None
        if _observes(type(limiter)):
            self._observer = cast(SessionObserver, limiter)

    def acquire(self, mx_ip: str, timeout: float) -> str | None:
        with ours():
            return self._limiter.acquire(mx_ip, timeout)

    def release(self, mx_ip: str, lease: str) -> None:
        with ours():
            self._limiter.release(mx_ip, lease)

    def session_ended(self, mx_ip: str, transcript: Sequence[ReplyEvidence], lease: str = "") -> None:
        if self._observer is not None:
            with ours():
                self._observer.session_ended(mx_ip, transcript, lease)

    def backing_off(self, mx_ip: str) -> float:
        if self._observer is None:
            return 0.0
        with ours():
            return self._observer.backing_off(mx_ip)

    def blocked(self, mx_ip: str) -> float:
        """Seconds until some egress may ask ``mx_ip`` again when the server blocks every one (0: not),
        for a limiter that routes around blocks (``blocked(mx_ip)``); others never say."""
        blocked = getattr(self._limiter, "blocked", None)
        if blocked is None:
            return 0.0
        with ours():
            return float(blocked(mx_ip))


@functools.cache
def _observes(kind: type) -> bool:
    """Does a limiter of this class also observe sessions? Asked once per class: a runtime protocol
    check inspects every member, and each group builds its guard."""
    return issubclass(kind, SessionObserver)


def each(actions: Sequence[Callable[[], object]]) -> None:
    """Run every action even when some fault (closing sockets must not stop at the first failing
    release); the first ``ProberFault`` is raised once all have run."""
    faults: list[ProberFault] = []
    for action in actions:
        try:
            action()
        except ProberFault as fault:
            faults.append(fault)
    if faults:
        raise faults[0]
