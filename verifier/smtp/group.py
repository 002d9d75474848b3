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
- Each session holds a ``SessionLimiter`` lease on its MX IP address for as long as it is open: names
  pointing at one server share its limit.
- Where the server offers RFC 2920 PIPELINING, a new session sends MAIL FROM together with the RCPTs it
  will carry (the next waiting addresses it can send, up to the limit) in one write; the replies are then
  read and judged one by one exactly as in lock-step, so every rule above applies unchanged. Not for
  providers that take one RCPT per connection (nothing to pipeline), and not for the catch-all probe,
  which is only sent once the real replies show it can change a verdict.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from verifier.config import EngineConfig
from verifier.dns.model import MailDomain
from verifier.public_ip import text_refusal_reason
from verifier.smtp.classify import Classification, ProbeOutcome, classify
from verifier.smtp.deadline import Deadline
from verifier.smtp.evidence import ReplyEvidence
from verifier.smtp.limiter import SessionLimiter
from verifier.smtp.providers import ProviderRules
from verifier.smtp.result import AddressProbe, judge
from verifier.smtp.session import ProbeSession, Target

NOT_SENT_UTF8 = Classification(ProbeOutcome.NOT_SENT, "smtputf8_unsupported")
MX_NOT_PUBLIC = Classification(ProbeOutcome.NOT_SENT, "mx_not_public")
NO_MX_ADDRESS = Classification(ProbeOutcome.NO_ANSWER, "no_mx_address")


class GroupRun:
    """Mutable state of probing one domain group; ``close()`` must always be called (leases, sockets)."""

    def __init__(
        self, domain: MailDomain, config: EngineConfig, limiter: SessionLimiter | None, rules: ProviderRules
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
        self._limiter = limiter
        self._current: ProbeSession | None = None
        self._sent_in_current = 0
        self._leases: dict[int, str] = {}
        self._preferred: Target | None = None
        self._plaintext: set[Target] = set()  # hosts whose STARTTLS handshake failed
        self._waiting: list[str] = []  # addresses not settled yet, in order: what a new session pipelines

    # -- recipients --------------------------------------------------------------------------------
    def probe_all(self, addresses: list[str]) -> None:
        """RCPT every address, opening sessions as the limits require."""
        queue = deque(addresses)
        while queue:
            self._waiting = list(queue)
            if self._step(queue[0], self._waiting[: self.limit]):
                queue.popleft()
        self._waiting = []

    def _step(self, address: str, upcoming: list[str]) -> bool:
        """Try to settle ``address``; False when it must be asked again on a new session."""
        if self.failure is None:
            self.session(utf8_wanted=any(not _local(item).isascii() for item in upcoming))
        if self.failure is not None or self._current is None:
            found, evidence = self.failure or (Classification(ProbeOutcome.NO_ANSWER, "no_session"), None)
            return self._settle(address, found, evidence)
        if not _sendable(address, self._current):
            return self._settle(address, NOT_SENT_UTF8, None)
        found, evidence = self.rcpt(address)
        if found.too_many_recipients and self._sent_in_current > 1:
            self.limit = self._sent_in_current - 1  # what this server took before refusing
            self.close_current()
            return False
        return self._settle(address, found, evidence)

    def rcpt(self, address: str) -> tuple[Classification, ReplyEvidence]:
        """One RCPT on the current session; a dead session stops the group."""
        assert self._current is not None
        self._sent_in_current += 1
        evidence = self._current.rcpt(self._recipient(address))
        found = classify(evidence, self.rules, self.config.smtp_greylist_retry_after, rcpt=True)
        if not self._current.alive:
            self.failure = (found, evidence)
            self.close_current()
        return found, evidence

    def _settle(self, address: str, found: Classification, evidence: ReplyEvidence | None) -> bool:
        self.results[address] = judge(address, found, evidence, self.rules)
        return True

    def catch_all_session(self, *, fresh: bool) -> ProbeSession | None:
        """A session for the random-address probe: the last one even when full by our own politeness
        limit (one more RCPT is cheaper than a connection), but not past a limit a server taught us."""
        if self.failure is not None:
            return None
        own_limit = self.limit == self.config.smtp_max_rcpt_per_session
        return self.session(fresh=fresh, extra=1 if own_limit else 0)

    # -- sessions ----------------------------------------------------------------------------------
    def session(
        self, *, utf8_wanted: bool = False, fresh: bool = False, extra: int = 0
    ) -> ProbeSession | None:
        """The current session if it may take another RCPT (``extra`` beyond the limit), else a new one."""
        current = self._current
        room = self._sent_in_current < self.limit + extra
        if current is not None and current.alive and not fresh and room:
            return current
        self.close_current()
        session = self._connect()
        if session is not None and self._ready(session, utf8_wanted):
            self._current, self._sent_in_current = session, 0
        elif session is not None and session.tls_fallback_due:
            return self._retry_in_plaintext(session.target, utf8_wanted)
        return self._current

    def _retry_in_plaintext(self, target: Target, utf8_wanted: bool) -> ProbeSession | None:
        """The host's optional TLS is broken: as real MTAs do, try it again without STARTTLS (once per
        group; the host stays plaintext for the group's later sessions)."""
        self._plaintext.add(target)
        self.failure = None
        session = self._connect()  # the host that greeted us is the preferred target now
        if session is not None and self._ready(session, utf8_wanted):
            self._current, self._sent_in_current = session, 0
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
        session = ProbeSession(target, self.config, self.deadline, starttls=target not in self._plaintext)
        if lease is None:
            self.local_evidence.append(session.no_reply("SESSION LIMIT", "session limit"))
            return None, self.local_evidence[-1]
        self.sessions.append(session)
        self._leases[id(session)] = lease
        evidence = session.open()
        if not session.alive:
            self._release(session)
            return None, evidence
        return session, evidence

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
        """The recipients a new session will RCPT, in order, to send along with MAIL FROM: the same
        addresses ``_step`` would send one by one (sendable ones, up to the session limit)."""
        if self.rules.one_rcpt_per_session:
            return []
        sendable = [address for address in self._waiting if _sendable(address, session)]
        return [self._recipient(address) for address in sendable[: self.limit]]

    def _recipient(self, address: str) -> str:
        """The address as RCPT spells it: its local part at the domain's ASCII name."""
        return f"{_local(address)}@{self.domain.domain}"

    def _fail(self, evidence: ReplyEvidence | None, *, rcpt: bool) -> None:
        if evidence is None:
            refused = any(not self._may_connect(target) for target in self._every_target())
            self.failure = (MX_NOT_PUBLIC if refused else NO_MX_ADDRESS), None
            return
        self.failure = (
            classify(evidence, self.rules, self.config.smtp_greylist_retry_after, rcpt=rcpt),
            evidence,
        )

    def _every_target(self) -> list[Target]:
        return [Target(r.host, ip) for r in self.domain.mx_records for ip in r.addresses]

    def _targets(self) -> Iterator[Target]:
        candidates = [target for target in self._every_target() if self._may_connect(target)]
        if self._preferred in candidates:
            candidates.remove(self._preferred)
            candidates.insert(0, self._preferred)
        yield from candidates[: self.config.smtp_max_mx_attempts]

    def _may_connect(self, target: Target) -> bool:
        allow_loopback = self.config.smtp_allow_loopback_mx
        return text_refusal_reason(target.ip, allow_loopback=allow_loopback) is None

    def _acquire(self, target: Target) -> str | None:
        if self._limiter is None:
            return ""
        return self._limiter.acquire(target.ip, self.deadline.remaining())

    def _release(self, session: ProbeSession) -> None:
        session.close()
        lease = self._leases.pop(id(session), None)
        if self._limiter is not None and lease is not None:
            self._limiter.release(session.target.ip, lease)

    def close_current(self) -> None:
        if self._current is not None:
            self._release(self._current)
        self._current, self._sent_in_current = None, 0

    def close(self) -> None:
        """QUIT and release everything still open."""
        self.close_current()
        for session in self.sessions:
            self._release(session)

    @property
    def sessions_opened(self) -> int:
        return sum(1 for session in self.sessions if session.connected)

    @property
    def unreachable(self) -> bool:
        """Connections were attempted and no MX host said a single word."""
        replies = [item for session in self.sessions for item in session.transcript if item.code is not None]
        return bool(self.sessions) and not replies


def _local(address: str) -> str:
    return address.rpartition("@")[0]


def _sendable(address: str, session: ProbeSession) -> bool:
    """A UTF-8 local part is only sent to a server that announced SMTPUTF8."""
    return _local(address).isascii() or session.smtputf8
