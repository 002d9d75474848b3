"""``SessionKeeper``: SMTP sessions kept open between domain groups, per MX host, in one process.

A group that ends with room left on its session (recipients under ``SMTP_MAX_RCPT_PER_SESSION``, refusals
under ``SMTP_SESSION_MAX_REJECTIONS``) hands the session here instead of sending QUIT; the next group for
the same MX host (same name, same IP) adopts it and sends its RCPTs in the transaction already open, so a
steady stream of small groups (batches of many customers) costs one connection per MX host instead of one
per group. The session keeps the limiter lease it was opened with until it is really closed, so the
per-IP session limit still counts it.

Trade-offs accepted:

- A kept session is closed after ``SMTP_SESSION_IDLE_SECONDS`` without use (a reaper thread, a greenlet
  under gevent). The idle time is well under any MTA's command timeout (Postfix: 300 s), so the server
  never hangs up on us first in the usual case. A session the server closed while idle is seen before
  it is handed out (its socket is readable); one closed in that very moment fails its first RCPT with no
  reply, and the group asks that address again on a new session (``GroupRun._step``): a lost round trip,
  never a verdict from a reply that did not come.
- Only one idle session per MX host is kept: a second group finishing at the same moment closes its own.
- A release whose limiter fails (Redis down) raises ``ProberFault`` to the group that caused it, after
  every session due to close was closed; the reaper logs it and goes on (the lease expires by itself).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from verifier.smtp.faults import ProberFault, each
from verifier.smtp.session import ProbeSession, Target

log = logging.getLogger(__name__)


@dataclass
class KeptSession:
    """A session with its open transaction, and what it has already carried."""

    session: ProbeSession
    sent: int  # RCPTs sent on it (every group)
    rejected: int  # RCPTs refused with a 4xx or 5xx
    lease: str  # the limiter lease it holds ("" without a limiter)
    release: Callable[[], None]  # QUIT and give the limiter lease back
    idle_since: float = 0.0


class SessionKeeper:
    """Thread-safe (greenlet-safe under gevent's monkey-patching) store of idle sessions."""

    def __init__(self, idle_seconds: float) -> None:
        self.idle_seconds = idle_seconds
        self._idle: dict[Target, KeptSession] = {}
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None

    def take(self, target: Target, *, utf8: bool) -> KeptSession | None:
        """The idle session to ``target`` if there is one that may serve (alive, SMTPUTF8 if wanted)."""
        with self._lock:
            kept = self._idle.pop(target, None)
        if kept is None:
            return None
        session = kept.session
        if (session.mail_utf8 or not utf8) and not self._stale(kept) and session.still_open():
            return kept
        kept.release()
        return None

    def keep(self, kept: KeptSession) -> None:
        """Hold ``kept`` for the next group; closes it when keeping is off or one is already held."""
        if self.idle_seconds <= 0 or not kept.session.alive:
            kept.release()
            return
        kept.idle_since = time.monotonic()
        with self._lock:
            held = self._idle.setdefault(kept.session.target, kept)
            self._start_reaper()
        if held is not kept:
            kept.release()

    def close_idle(self, *, everything: bool = False) -> int:
        """Close sessions idle too long (or all of them); how many were closed."""
        with self._lock:
            due = [t for t, kept in self._idle.items() if everything or not self._usable(kept)]
            closing = [self._idle.pop(target) for target in due]
        each([kept.release for kept in closing])
        return len(closing)

    def close_idle_to(self, ip: str) -> int:
        """Close the idle sessions to ``ip`` (any MX name): a group that needs a new session there and
        finds the per-IP limit full would otherwise wait for them to time out."""
        with self._lock:
            due = [target for target in self._idle if target.ip == ip]
            closing = [self._idle.pop(target) for target in due]
        each([kept.release for kept in closing])
        return len(closing)

    def held(self) -> int:
        with self._lock:
            return len(self._idle)

    def _usable(self, kept: KeptSession) -> bool:
        """Fresh enough, and not hung up on by the server (whose lease would be held for nothing)."""
        return not self._stale(kept) and kept.session.still_open()

    def _stale(self, kept: KeptSession) -> bool:
        return time.monotonic() - kept.idle_since >= self.idle_seconds

    def _start_reaper(self) -> None:
        """Called under the lock: one daemon thread per keeper, started at the first kept session."""
        if self._reaper is None:
            self._reaper = threading.Thread(target=self._reap, name="smtp-keeper", daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        while True:
            time.sleep(min(max(self.idle_seconds / 2, 0.05), 0.5))
            try:
                self.close_idle()
            except ProberFault as fault:  # the sessions are closed; a dead reaper would never close more
                log.warning("closing idle SMTP sessions: %s", fault)
