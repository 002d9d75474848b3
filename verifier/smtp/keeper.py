"""``SessionKeeper``: SMTP sessions kept open between domain groups, per MX address, in one process.

A group that ends with room left on its session (recipients under ``SMTP_MAX_RCPT_PER_SESSION``, refusals
under ``SMTP_SESSION_MAX_REJECTIONS``) hands the session here instead of sending QUIT; the next group whose
MX resolves to the same address adopts it, whatever its domain or MX host name, and sends its RCPTs in the
transaction already open, so a steady stream of small groups (batches of many customers, thousands of
domains behind one provider's MX) costs one connection per MX address instead of one per group or domain.
The session keeps the limiter lease it was opened with until it is really closed, so the per-IP session
limit still counts it. A session remembers the domain it was opened for: a refusal that only means "not a
domain of this session's" is asked again on a session of the group's own (``GroupRun``).

Trade-offs accepted:

- A kept session is closed after ``SMTP_SESSION_IDLE_SECONDS`` without use (a reaper thread, a greenlet
  under gevent). The idle time is well under any MTA's command timeout (Postfix: 300 s), so the server
  never hangs up on us first in the usual case. A session the server closed while idle is seen before
  it is handed out (its socket is readable); one closed in that very moment fails its first RCPT with no
  reply, and the group asks that address again on a new session (``GroupRun._step``): a lost round trip,
  never a verdict from a reply that did not come.
- At most ``per_address`` idle sessions per MX address are kept (the fleet's sessions-at-once per address,
  3): lanes of one address draining side by side each find theirs; a group finishing past that closes its
  own.
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


@dataclass(eq=False)
class KeptSession:
    """A session with its open transaction, and what it has already carried."""

    session: ProbeSession
    sent: int  # RCPTs sent on it (every group)
    rejected: int  # RCPTs refused with a 4xx or 5xx
    lease: str  # the limiter lease it holds ("" without a limiter)
    release: Callable[[], None]  # QUIT and give the limiter lease back
    domain: str = ""  # the domain whose group opened it (its transaction's first recipients)
    idle_since: float = 0.0


class SessionKeeper:
    """Thread-safe (greenlet-safe under gevent's monkey-patching) store of idle sessions."""

    def __init__(self, idle_seconds: float, per_address: int = 3) -> None:
        self.idle_seconds = idle_seconds
        self.per_address = per_address
        self._idle: dict[str, list[KeptSession]] = {}  # by MX IP address, most recently kept last
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None

    def take(self, target: Target, *, utf8: bool) -> KeptSession | None:
        """An idle session to ``target``'s address that may serve (alive, SMTPUTF8 if wanted), the most
        recently kept first; the ones found dead or stale on the way are closed."""
        while (kept := self._pop(target.ip, utf8)) is not None:
            if not self._stale(kept) and kept.session.still_open():
                return kept
            kept.release()
        return None

    def _pop(self, ip: str, utf8: bool) -> KeptSession | None:
        with self._lock:
            idle = self._idle.get(ip, [])
            found = next((k for k in reversed(idle) if k.session.mail_utf8 or not utf8), None)
            if found is not None:
                idle.remove(found)
            if not idle:
                self._idle.pop(ip, None)
        return found

    def keep(self, kept: KeptSession) -> None:
        """Hold ``kept`` for the next group; closes it when keeping is off or one is already held."""
        if self.idle_seconds <= 0 or not kept.session.alive:
            kept.release()
            return
        kept.idle_since = time.monotonic()
        with self._lock:
            idle = self._idle.setdefault(kept.session.target.ip, [])
            room = len(idle) < self.per_address
            if room:
                idle.append(kept)
            self._start_reaper()
        if not room:
            kept.release()

    def close_idle(self, *, everything: bool = False) -> int:
        """Close sessions idle too long (or all of them); how many were closed."""
        closing: list[KeptSession] = []
        with self._lock:
            for ip, idle in list(self._idle.items()):
                staying = [kept for kept in idle if not everything and self._usable(kept)]
                closing += [kept for kept in idle if kept not in staying]
                self._idle[ip] = staying
                if not staying:
                    del self._idle[ip]
        each([kept.release for kept in closing])
        return len(closing)

    def close_idle_to(self, ip: str, idle_for: float = 0.0) -> int:
        """Close the sessions to ``ip`` idle for ``idle_for`` seconds or more: a group that needs a new
        session there and finds no slot would otherwise wait for them to time out. One kept a moment ago
        stays: its lane's next group is about to take it, and the slot was not what we waited for (the
        spacing between new sessions answers "not yet" too)."""
        since = time.monotonic() - idle_for
        with self._lock:
            idle = self._idle.get(ip, [])
            closing = [kept for kept in idle if kept.idle_since <= since]
            self._idle[ip] = [kept for kept in idle if kept not in closing]
            if not self._idle[ip]:
                del self._idle[ip]
        each([kept.release for kept in closing])
        return len(closing)

    def held(self) -> int:
        with self._lock:
            return sum(len(idle) for idle in self._idle.values())

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
