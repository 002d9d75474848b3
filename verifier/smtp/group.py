"""The sessions of one domain group: which MX to use, when to open a new connection, what a failure
means for the addresses still waiting.

Rules, in the order they bite:

- MX hosts in preference order, each host's addresses IPv4 first, at most ``SMTP_MAX_MX_ATTEMPTS``;
  the next one is tried when a connection is refused, times out, gets no banner or gets a 421. Once a
  host has answered, later sessions of the group go straight to it.
- An MX address that is not public unicast (loopback, private, link-local, shared, reserved...; see
  ``verifier/public_ip.py``) is never connected to, so a domain cannot aim the prober inside our network;
  it is judged as the very IP the session would connect to. A group left with no address to try settles
  as unknown (``mx_not_public``) without any banner, reply or connect error of such a host.
- One session carries up to ``SMTP_MAX_RCPT_PER_SESSION`` recipients (1 for providers that refuse a
  second RCPT). A server that answers "too many recipients" lowers that limit for the group and the
  address is asked again on a fresh connection.
- A refusal at greeting, EHLO/HELO or MAIL FROM is about *us*, applies to every address still waiting
  and stops the group; so does a timeout or hang-up in the middle of RCPTs (the server is not answering).
- A session also ends once ``SMTP_SESSION_MAX_REJECTIONS`` of its RCPTs were refused (4xx or 5xx), and
  never has more RCPTs in flight than refusals it may still collect: servers count refused commands and
  slow down or drop a client past their limit (Postfix: 10 and 20), which would cost the addresses after.
- With a ``SessionKeeper``, a session with room left outlives its group: the next group whose MX resolves
  to the same address adopts it, whatever its domain (``verifier/smtp/keeper.py``), and carries on in the
  open transaction, within the same recipient and refusal budgets. A RCPT refused there as "relaying
  denied" (a server hosting only some of the domains that name it, or one domain per transaction) is no
  verdict: the group's addresses are asked again on sessions of its own, where that answer is the
  server's word about the domain, as it was before sessions were shared.
- With a ``Relay`` (a lane round's groups in turn), a group whose own RCPTs all fit in its pipelined
  write adds the next groups' at the same address and hands its session straight to the next group,
  which reads its replies there (``verifier/smtp/relay.py``).
- Each session holds a ``SessionLimiter`` lease on its MX IP address for as long as it is open: names
  pointing at one server share its limit.
- Where the server offers RFC 2920 PIPELINING, a new session sends MAIL FROM together with the RCPTs it
  will carry (the next waiting addresses it can send, up to the limits) in one write; the replies are then
  read and judged one by one exactly as in lock-step, so every rule above applies unchanged. Once they
  are read, the next waiting addresses go out in one write the same way (also on an adopted session). Not for
  providers that take one RCPT per connection (nothing to pipeline). The write carrying the group's last
  recipients also carries its catch-all probe's random one where the provider allows (``catch_all.py``);
  its reply is only read as a verdict once the real replies show it can change one.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from verifier.config import EngineConfig
from verifier.dns.model import MailDomain
from verifier.public_ip import text_refusal_reason
from verifier.smtp.catch_all import random_recipient, rides_ahead
from verifier.smtp.classify import Classification, ProbeOutcome, classify, refuses_domain
from verifier.smtp.deadline import Deadline
from verifier.smtp.evidence import ReplyEvidence
from verifier.smtp.faults import GuardedLimiter, each
from verifier.smtp.keeper import KeptSession, SessionKeeper
from verifier.smtp.limiter import EgressLease, SessionLimiter
from verifier.smtp.providers import ProviderRules
from verifier.smtp.result import AddressProbe, judge
from verifier.smtp.session import ProbeSession, Target

if TYPE_CHECKING:
    from verifier.smtp.relay import Relay

NOT_SENT_UTF8 = Classification(ProbeOutcome.NOT_SENT, "smtputf8_unsupported")
MX_NOT_PUBLIC = Classification(ProbeOutcome.NOT_SENT, "mx_not_public")
NO_MX_ADDRESS = Classification(ProbeOutcome.NO_ANSWER, "no_mx_address")
KEEPER_POLL = 0.2  # seconds of waiting for a slot between looks at the keeper's idle sessions


class GroupRun:
    """Mutable state of probing one domain group; ``close()`` must always be called (leases, sockets)."""

    def __init__(
        self,
        domain: MailDomain,
        config: EngineConfig,
        limiter: SessionLimiter | None,
        rules: ProviderRules,
        keeper: SessionKeeper | None = None,
        *,
        relay: Relay | None = None,
        catch_all: bool = False,
    ) -> None:
        self.domain = domain
        self.config = config
        self.rules = rules
        self.deadline = Deadline(config.smtp_deadline)
        self.results: dict[str, AddressProbe] = {}
        self.sessions: list[ProbeSession] = []
        self.local_evidence: list[ReplyEvidence] = []  # waits that ended on our side (limiter)
        self.limit = 1 if rules.one_rcpt_per_session else config.smtp_max_rcpt_per_session
        self.failure: tuple[Classification, ReplyEvidence | None] | None = None
        # whatever the injected limiter raises is our fault, never the server's answer (``faults.py``)
        self._limiter = GuardedLimiter(limiter) if limiter is not None else None
        self._keeper = keeper
        self._relay = relay  # the round's later groups at the same address (``relay.py``)
        self._current: ProbeSession | None = None
        self._sent_in_current = 0
        self._rejected_in_current = 0
        self._leases: dict[int, str] = {}
        self._preferred: Target | None = None
        self._wait_left = 0.0  # seconds of a backoff or block the limiter said kept us from connecting
        self._plaintext: set[Target] = set()  # hosts whose STARTTLS handshake failed
        self._waiting: list[str] = []  # addresses not settled yet, in order: what a new session pipelines
        self._opened_for: dict[int, str] = {}  # adopted sessions: the domain each was opened for
        self._own_sessions = False  # refused in another domain's session: only sessions of our own now
        self.misrouted = False  # the last RCPT was refused as another domain's session (``rcpt``)
        # the catch-all probe's recipient (an earlier group of the round may have sent it ahead for us)
        self.catch_all_address = (relay and relay.catch_all_address) or random_recipient(domain.domain)
        self._catch_all_wanted = catch_all
        self._catch_all_ahead = False  # may the random RCPT go with our last real ones (``probe_all``)

    # -- recipients --------------------------------------------------------------------------------
    def probe_all(self, addresses: list[str]) -> None:
        """RCPT every address, opening sessions as the limits require."""
        queue = deque(addresses)
        self._catch_all_ahead = self._catch_all_wanted and rides_ahead(
            self.rules, len(addresses), self.config
        )
        while queue:
            self._waiting = list(queue)
            if self._step(queue[0], self._waiting[: self.limit]):
                queue.popleft()
        self._waiting = []

    def _step(self, address: str, upcoming: list[str]) -> bool:
        """Try to settle ``address``; False when it must be asked again on a new session."""
        if self.failure is None and not self._pending(address):
            self.session(utf8_wanted=any(not _local(item).isascii() for item in upcoming))
        if self.failure is not None or self._current is None:
            found, evidence = self.failure or (Classification(ProbeOutcome.NO_ANSWER, "no_session"), None)
            return self._settle(address, found, evidence)
        if not _sendable(address, self._current):
            return self._settle(address, NOT_SENT_UTF8, None)
        adopted = self._current.reused and self._current.transcript == []
        found, evidence = self.rcpt(address)
        if adopted and self.failure is not None and evidence.code in (None, 421):
            # a kept session the server closed while idle, or the channel an earlier group's transaction
            # used up (our RCPT was sent ahead in it): nothing about this mailbox; ask again on a new one
            self.failure = None
            return False
        if self.misrouted:
            self.set_aside()
            return False  # not a domain the session's first one shares: asked again on our own
        if found.too_many_recipients and self._sent_in_current > 1:
            self.limit = self._sent_in_current - 1  # what this server took before refusing
            self.close_current()
            return False
        return self._settle(address, found, evidence)

    def rcpt(self, address: str) -> tuple[Classification, ReplyEvidence]:
        """One RCPT on the current session; a dead session stops the group."""
        assert self._current is not None
        foreign = self._opened_for.get(id(self._current), self.domain.domain) != self.domain.domain
        self._sent_in_current += 1
        if isinstance(lease := self._leases.get(id(self._current)), EgressLease):
            lease.rcpts += 1  # the egress's counter, told when the session ends
        evidence = self._current.rcpt(self._recipient(address))
        if evidence.code is not None and evidence.code >= 400:
            self._rejected_in_current += 1  # what the server's error limit counts
        self.misrouted = foreign and refuses_domain(evidence)
        self._own_sessions = self._own_sessions or self.misrouted
        found = classify(evidence, self.rules, self.config.smtp_greylist_retry_after, rcpt=True)
        # a session the server blocks says nothing of the rest (asked again over another egress); ended,
        # its transcript tells the limiter the pair is blocked
        if not self._current.alive or found.blocked:
            self.failure = (found, evidence)
            self.close_current()
        return found, evidence

    def drop_catch_all(self) -> None:
        """Read the random RCPT's reply if it was sent ahead and no verdict asked for it, so the session
        owes nothing and goes on to the next group (or the keeper)."""
        if self.failure is None and self._pending(self.catch_all_address):
            self.rcpt(self.catch_all_address)

    def _settle(self, address: str, found: Classification, evidence: ReplyEvidence | None) -> bool:
        self.results[address] = judge(address, found, evidence, self.rules)
        return True

    def catch_all_session(self, *, fresh: bool) -> ProbeSession | None:
        """A session for the random-address probe: the one its RCPT was sent ahead on, else the last one
        even when full by our own politeness limit (one more RCPT is cheaper than a connection), but not
        past a limit a server taught us."""
        if self.failure is not None:
            return None
        if not fresh and self._pending(self.catch_all_address):
            return self._current
        own_limit = self.limit == self.config.smtp_max_rcpt_per_session
        return self.session(fresh=fresh, extra=1 if own_limit else 0)

    # -- sessions ----------------------------------------------------------------------------------
    def session(
        self, *, utf8_wanted: bool = False, fresh: bool = False, extra: int = 0
    ) -> ProbeSession | None:
        """The current session if it may take another RCPT (``extra`` beyond the limit), else a new one."""
        current = self._current
        if current is not None and current.alive and not fresh and self._room(extra):
            current.pipeline_rcpts(self._pipelined(current))
            return current
        self.close_current()
        if not fresh and not self._own_sessions and (adopted := self._adopt(utf8_wanted)) is not None:
            return adopted
        session = self._connect()
        if session is not None and self._ready(session, utf8_wanted):
            self._current, self._sent_in_current, self._rejected_in_current = session, 0, 0
        elif session is not None and session.tls_fallback_due:
            return self._retry_in_plaintext(session.target, utf8_wanted)
        return self._current

    def _pending(self, address: str) -> bool:
        """Was ``address``'s RCPT already sent on the current session (pipelined, maybe by an earlier
        group of the round), its reply still to be asked for?"""
        current = self._current
        return current is not None and current.alive and current.pending(self._recipient(address))

    def _in_flight(self) -> int:
        return self._current.in_flight if self._current is not None else 0

    def _room(self, extra: int = 0) -> bool:
        """May the current session take another RCPT (``extra`` beyond the recipient limit)? The RCPTs
        in flight count as sent and as refused, whichever group sent them."""
        in_flight = self._in_flight()
        recipients = self._sent_in_current + in_flight < self.limit + extra
        refusals = self._rejected_in_current + in_flight
        return recipients and refusals < self.config.smtp_session_max_rejections

    def _depth(self, session: ProbeSession) -> int:
        """RCPTs that may be in flight at once on ``session``: never more than the refusals it may still
        take, those already in flight counted."""
        in_flight = session.in_flight
        refusals = self.config.smtp_session_max_rejections - self._rejected_in_current - in_flight
        return max(min(self.limit - self._sent_in_current - in_flight, refusals), 0)

    def _adopt(self, utf8_wanted: bool) -> ProbeSession | None:
        """A kept session to one of our MX hosts, carried on under this group (see ``SessionKeeper``):
        the round's own first (``Relay``: our RCPTs may be on their way on it already)."""
        if (self._keeper is None and self._relay is None) or self.failure is not None:
            return None
        found = next(
            ((t, k) for t in self._targets() if (k := self._take(t, utf8_wanted)) is not None),
            None,
        )
        if found is None:
            return None
        target, kept = found
        session = kept.session
        session.adopt(self.deadline, target)
        self._opened_for[id(session)] = kept.domain
        self.sessions.append(session)
        self._leases[id(session)] = kept.lease
        self._current, self._preferred = session, session.target
        self._sent_in_current, self._rejected_in_current = kept.sent, kept.rejected
        if not self._room() and not any(map(self._pending, self._waiting)):
            self.close_current()
            return None
        session.pipeline_rcpts(self._pipelined(session))
        return session

    def _take(self, target: Target, utf8_wanted: bool) -> KeptSession | None:
        kept = self._relay.take(target.ip, utf8=utf8_wanted) if self._relay is not None else None
        if kept is None and self._keeper is not None:
            kept = self._keeper.take(target, utf8=utf8_wanted)
        return kept

    def _hand_over(self) -> ProbeSession | None:
        """Give the current session to the round's next group at its address (with the RCPTs sent ahead
        for it), else to the keeper when it has room left under our own limits and owes nothing."""
        current = self._current
        if current is None or not current.alive or self.limit != self.config.smtp_max_rcpt_per_session:
            return None  # dead, or a server-taught limit: it ends here
        relayed = self._relay is not None and self._relay.wants(current.target.ip)
        if not relayed and (self._keeper is None or current.owes_replies or not self._room()):
            return None
        lease, limiter = self._leases.pop(id(current), ""), self._limiter

        def release() -> None:
            current.close()
            if limiter is not None and lease:
                limiter.release(current.target.ip, lease)
            _observe(limiter, current, lease)

        opened_for = self._opened_for.pop(id(current), self.domain.domain)
        kept = KeptSession(
            current, self._sent_in_current, self._rejected_in_current, lease, release, opened_for
        )
        self._current, self._sent_in_current, self._rejected_in_current = None, 0, 0
        if relayed and self._relay is not None:
            self._relay.keep(kept)
        elif self._keeper is not None:
            self._keeper.keep(kept)
        return current

    def set_aside(self) -> None:
        """Stop using the current session: back to the keeper for other groups if it may serve, else closed
        (with replies still owed, counted refusals would go uncounted)."""
        if self._hand_over() is None:
            self.close_current()

    def _retry_in_plaintext(self, target: Target, utf8_wanted: bool) -> ProbeSession | None:
        """The host's optional TLS is broken: as real MTAs do, try it again without STARTTLS (once per
        group; the host stays plaintext for the group's later sessions)."""
        self._plaintext.add(target)
        self.failure = None
        session = self._connect()  # the host that greeted us is the preferred target now
        if session is not None and self._ready(session, utf8_wanted):
            self._current, self._sent_in_current, self._rejected_in_current = session, 0, 0
        return self._current

    def _connect(self) -> ProbeSession | None:
        last: ReplyEvidence | None = None
        for target in self._targets():
            session, last = self._try_target(target)
            if session is not None:
                self._preferred = target
                return session
            if last.code is not None and last.code >= 500:
                break  # a 5xx greeting refuses us, not an outage: other MX hosts of the site will too
        self._fail(last, rcpt=False)
        return None

    def _try_target(self, target: Target) -> tuple[ProbeSession | None, ReplyEvidence]:
        lease = self._acquire(target)
        # a limiter spreading sessions over egresses chose this one's (its HELO name and sender with it)
        config = self.config.over(lease.egress) if isinstance(lease, EgressLease) else self.config
        session = ProbeSession(target, config, self.deadline, starttls=target not in self._plaintext)
        if lease is None:
            self.local_evidence.append(self._no_slot(session))
            return None, self.local_evidence[-1]
        self.sessions.append(session)
        self._leases[id(session)] = lease
        evidence = session.open()
        if not session.alive:
            self._release(session)
            return None, evidence
        return session, evidence

    def _no_slot(self, session: ProbeSession) -> ReplyEvidence:
        """Why no session could open: the server blocks every egress, or asked us to back off (a 421,
        slow replies), or our own limits (sessions at once, spacing) left no slot before the deadline."""
        limiter, ip = self._limiter, session.target.ip
        if limiter is not None and (wait := limiter.blocked(ip)) > 0:
            self._wait_left = wait  # the answer's retry time: when the first block ends
            return session.no_reply("BLOCKED", "blocked")
        if limiter is not None and (wait := limiter.backing_off(ip)) > 0:
            self._wait_left = wait
            return session.no_reply("BACKOFF", "backing off")
        return session.no_reply("SESSION LIMIT", "session limit")

    def _ready(self, session: ProbeSession, utf8_wanted: bool) -> bool:
        """Greet and MAIL FROM; a refusal here is about us and settles every waiting address."""
        evidence = session.greet()
        if session.alive:
            utf8 = utf8_wanted and session.smtputf8
            evidence = session.mail_from(utf8=utf8, pipelined=self._pipelined(session))
        if evidence.code == 250 and session.alive:
            return True
        self._fail(evidence, rcpt=False)
        self._release(session)
        return False

    def _pipelined(self, session: ProbeSession) -> list[str]:
        """The recipients to send in one write (with MAIL FROM on a new session): the same addresses
        ``_step`` would send one by one (sendable ones not sent yet, up to the session limit), then, when
        all of ours fit, the next groups' of the round at the same address (``Relay.ahead``)."""
        if self.rules.one_rcpt_per_session or not session.may_pipeline:
            return []  # nothing would be sent now (a relay's recipients would count as sent all the same)
        sendable = [address for address in self._waiting if _sendable(address, session)]
        mine = [item for item in map(self._recipient, sendable) if not session.pending(item)]
        depth = self._depth(session)
        if len(mine) >= depth or len(sendable) < len(self._waiting):
            return mine[:depth]
        mine += self._catch_all_with(session)
        if self._relay is None or len(mine) >= depth:
            return mine[:depth]
        return mine + self._relay.ahead(session.target.ip, depth - len(mine))

    def _catch_all_with(self, session: ProbeSession) -> list[str]:
        """The random recipient, for the write that carries our last real ones (``catch_all.py``)."""
        ahead = self._catch_all_ahead and bool(self._waiting)
        return [self.catch_all_address] if ahead and not session.pending(self.catch_all_address) else []

    def _recipient(self, address: str) -> str:
        """The address as RCPT spells it: its local part at the domain's ASCII name."""
        return f"{_local(address)}@{self.domain.domain}"

    def _fail(self, evidence: ReplyEvidence | None, *, rcpt: bool) -> None:
        if evidence is None:
            refused = any(not _may_connect(target, self.config) for target in every_target(self.domain))
            self.failure = (MX_NOT_PUBLIC if refused else NO_MX_ADDRESS), None
            return
        found = classify(evidence, self.rules, self.config.smtp_greylist_retry_after, rcpt=rcpt)
        if self._wait_left and found.reason in ("backing_off", "blocked"):
            found = dataclasses.replace(found, retry_after=math.ceil(self._wait_left))  # when it ends
        self.failure = found, evidence

    def _targets(self) -> Iterator[Target]:
        candidates = connectable_targets(self.domain, self.config)
        if self._preferred in candidates:
            candidates.remove(self._preferred)
            candidates.insert(0, self._preferred)
        yield from candidates[: self.config.smtp_max_mx_attempts]

    def _acquire(self, target: Target) -> str | None:
        if self._limiter is None:
            return ""
        if self._keeper is None and self._relay is None:
            return self._limiter.acquire(target.ip, self.deadline.remaining())
        while True:  # an idle kept session to this IP gives its slot up rather than make us wait
            lease = self._limiter.acquire(target.ip, min(KEEPER_POLL, self.deadline.remaining()))
            if lease is not None or self.deadline.expired or self._limiter.backing_off(target.ip) > 0:
                return lease  # a backoff is not waited out: the group answers with when it ends
            if self._relay is not None:
                self._relay.let_go(target.ip)  # the round's own, held for a later group
            if self._keeper is not None:
                self._keeper.close_idle_to(target.ip, idle_for=KEEPER_POLL)

    def _release(self, session: ProbeSession) -> None:
        session.close()
        lease = self._leases.pop(id(session), None)
        if self._limiter is not None and lease is not None:
            self._limiter.release(session.target.ip, lease)
            _observe(self._limiter, session, lease)

    def close_current(self) -> None:
        current = self._current
        self._current, self._sent_in_current, self._rejected_in_current = None, 0, 0
        if current is not None:
            self._release(current)

    def close(self) -> None:
        """Hand the current session to the keeper if it may serve again; QUIT and release the rest.
        Every socket is closed even when the limiter fails; its first ``ProberFault`` is raised after."""
        kept: list[ProbeSession | None] = []
        each(
            [lambda: kept.append(self._hand_over()), self.close_current, lambda: self._release_all_but(kept)]
        )

    def _release_all_but(self, kept: list[ProbeSession | None]) -> None:
        each([functools.partial(self._release, session) for session in self.sessions if session not in kept])

    @property
    def egress_id(self) -> str:
        """The egress whose session asked last (the limiter's choice), else the config's."""
        return self.sessions[-1].egress.id if self.sessions else self.config.egress.id

    @property
    def sessions_opened(self) -> int:
        """Connections this group opened (an adopted session was opened by an earlier group)."""
        return sum(1 for session in self.sessions if session.connected and not session.reused)

    @property
    def unreachable(self) -> bool:
        """Connections were attempted and no MX host said a single word."""
        replies = [item for session in self.sessions for item in session.transcript if item.code is not None]
        return bool(self.sessions) and not replies


def _observe(limiter: GuardedLimiter | None, session: ProbeSession, lease: str) -> None:
    """Tell a limiter that listens how the session went (its politeness may back off from the server)."""
    if limiter is not None:  # a connection refused or a proxy's fault tells it something too
        limiter.session_ended(session.target.ip, session.transcript, lease)


def every_target(domain: MailDomain) -> list[Target]:
    """Every MX address of ``domain``, in preference order."""
    return [Target(record.host, ip) for record in domain.mx_records for ip in record.addresses]


def connectable_targets(domain: MailDomain, config: EngineConfig) -> list[Target]:
    """The MX addresses a group of ``domain`` may connect to, in preference order."""
    return [target for target in every_target(domain) if _may_connect(target, config)]


def _may_connect(target: Target, config: EngineConfig) -> bool:
    allow_loopback = config.smtp_allow_loopback_mx
    return text_refusal_reason(target.ip, allow_loopback=allow_loopback) is None


def _local(address: str) -> str:
    return address.rpartition("@")[0]


def _sendable(address: str, session: ProbeSession) -> bool:
    """A UTF-8 local part is only sent to a server that announced SMTPUTF8."""
    return _local(address).isascii() or session.smtputf8
