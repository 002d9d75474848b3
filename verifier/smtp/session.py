"""One SMTP connection to one MX address, driven command by command, every reply kept as evidence.

Built on the standard library's ``smtplib`` (reply parsing, EHLO features), but commands are sent with
``docmd`` so the exact bytes are ours (no address rewriting) and nothing beyond RCPT is ever sent: the
session has no DATA method at all. Connections go to the IP that *our* resolver found; ``smtplib`` is
never given a host name, so nothing reaches the system resolver. They leave over the config's egress
(``connect.py``: the default route, a bound source address, or a SOCKS5 proxy), with its HELO name and
envelope sender.

RFC 2920 PIPELINING: where the server advertises it, MAIL FROM and the session's RCPTs go out in one
write (``mail_from(..., pipelined=...)``) and their replies are read back one by one, in order, as each
command asks for its reply; each read is bounded exactly like a lock-step command's, and each reply is
kept as the same evidence. Any other command first reads the replies still owed (``_drain``), so a reply
is never taken for the wrong command. ``SMTP_PIPELINING=false`` (``EngineConfig.smtp_pipelining``)
switches it off: lock-step everywhere.

Every wait is bounded: connect by ``SMTP_CONNECT_TIMEOUT``, the greeting by ``SMTP_BANNER_TIMEOUT``, each
command by ``SMTP_TIMEOUT``, all of them by the group's ``Deadline``. Under gevent these sockets are
cooperative, so a tarpit costs a greenlet its timeout, not the worker its life.
"""

from __future__ import annotations

import select
import smtplib
import socket
import ssl
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verifier.config import EngineConfig
from verifier.egress import DIRECT, Egress
from verifier.smtp.connect import EGRESS_FAULT, ConnectTimeout, EgressFault, open_connection, proxy_answers
from verifier.smtp.deadline import Deadline, DeadlineExceeded
from verifier.smtp.evidence import ReplyEvidence, parse_reply

Reply = tuple[int, bytes]
_FAILURES = (OSError, smtplib.SMTPException, DeadlineExceeded, UnicodeError)
PROXY_CHECK_SECONDS = 2.0  # at most this long to see whether a proxy that lost a session still answers


@dataclass(frozen=True, slots=True)
class Target:
    """An MX host name (for evidence and SNI) and the address we connect to (checked public, limiter key)."""

    mx_host: str
    ip: str


class _Client(smtplib.SMTP):
    """``smtplib.SMTP`` with separate connect and greeting timeouts, connecting to an IP only, over the
    session's egress (``connect.py``)."""

    connect_timeout = 5.0
    egress: Egress = DIRECT
    tcp_connected = False  # set once TCP is up, even if the greeting never comes (a tarpit session)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = open_connection(self.egress, host, port, self.connect_timeout)
        self.tcp_connected = True
        sock.settimeout(timeout)  # from here on: the banner timeout
        return sock


def _tls_context() -> ssl.SSLContext:
    """Opportunistic TLS as MTAs do it: encrypt, but accept any certificate (most are self-signed)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class ProbeSession:
    """Open, greet, MAIL FROM, RCPT..., close; ``alive`` turns False at the first failure.

    ``starttls=False`` makes a plaintext session even where STARTTLS is offered: the retry after a failed
    handshake (``tls_fallback_due``), as Postfix and Exim do on a host whose TLS is broken.
    """

    def __init__(
        self, target: Target, config: EngineConfig, deadline: Deadline, *, starttls: bool = True
    ) -> None:
        self.target = target
        self.transcript: list[ReplyEvidence] = []
        self.alive = False
        self.tls = False
        self.starttls = starttls
        self.tls_demanded = False  # the server answered 530 "STARTTLS first": plaintext is no option
        self.handshake_failed = False
        self.reused = False  # adopted from an earlier group (``verifier/smtp/keeper.py``): not a new session
        self.mail_utf8 = False  # the open transaction's MAIL FROM carried SMTPUTF8
        self._config = config
        self._deadline = deadline
        self._client = _Client(local_hostname=config.helo_host)
        self._client.egress = config.egress
        self._owed: deque[str] = deque()  # pipelined commands whose replies are still to be read
        # replies read ahead of their turn, for recipients a later group of the round sent (``relay.py``)
        self._early: dict[str, deque[tuple[Reply, float]]] = {}

    @property
    def egress(self) -> Egress:
        """The egress this session left from (a limiter may have chosen it: ``EgressLease``)."""
        return self._config.egress

    @property
    def connected(self) -> bool:
        """TCP was established (what a server counts as a session), whatever happened next."""
        return self._client.tcp_connected

    @property
    def tls_fallback_due(self) -> bool:
        """The TLS handshake failed on a server that did not demand TLS: retry there in plaintext."""
        return self.handshake_failed and not self.tls_demanded

    @property
    def smtputf8(self) -> bool:
        return self._client.has_extn("smtputf8")

    @property
    def pipelining(self) -> bool:
        """The server advertised RFC 2920 PIPELINING (after TLS, if any) and our switch is on."""
        return self._client.has_extn("pipelining") and self._config.smtp_pipelining

    def open(self) -> ReplyEvidence:
        """TCP connect and read the greeting (a 220 makes the session alive)."""
        evidence = self._run("CONNECT", self._connect)
        self.alive = evidence.code == 220
        return evidence

    def _connect(self) -> Reply:
        self._client.connect_timeout = self._deadline.bound(self._config.smtp_connect_timeout)
        self._client.timeout = self._deadline.bound(self._config.smtp_banner_timeout)
        return self._client.connect(self.target.ip, self._config.smtp_probe_port)

    def greet(self) -> ReplyEvidence:
        """EHLO, falling back to HELO; STARTTLS when offered (then EHLO again)."""
        evidence = self._command(f"EHLO {self._config.helo_host}", self._client.ehlo)
        if evidence.code != 250 and self.alive:
            evidence = self._command(f"HELO {self._config.helo_host}", self._client.helo)
        if evidence.code == 250 and self._client.has_extn("starttls") and self.starttls and not self.tls:
            return self.start_tls()
        self.alive = self.alive and evidence.code == 250
        return evidence

    def start_tls(self) -> ReplyEvidence:
        """STARTTLS, handshake, and greet again (RFC 3207 forgets everything learnt before TLS)."""
        evidence = self._command("STARTTLS", lambda: self._client.docmd("STARTTLS"))
        if evidence.code != 220:
            return evidence
        handshake = self._run("TLS handshake", self._handshake)
        self.alive = handshake.code is not None
        self.handshake_failed = not self.alive
        return self.greet() if self.alive else handshake

    def _handshake(self) -> Reply:
        client = self._client
        assert client.sock is not None  # STARTTLS was just answered on it
        wrapped = _tls_context().wrap_socket(client.sock, server_hostname=self.target.mx_host)
        client.sock, client.file = wrapped, None
        client.helo_resp = client.ehlo_resp = None
        client.esmtp_features, client.does_esmtp = {}, False
        self.tls = True
        return 220, (wrapped.version() or "TLS").encode()

    def mail_from(self, *, utf8: bool, pipelined: Sequence[str] = ()) -> ReplyEvidence:
        """MAIL FROM our sender (with SMTPUTF8 when a recipient needs it); a 530 is retried under TLS.

        ``pipelined`` recipients are sent with MAIL FROM in one write when the server allows pipelining;
        their replies wait for ``rcpt()``. After a failed MAIL they are read and recorded (a 503 "need
        MAIL" there is about the failed transaction, never about a mailbox) before anything else is sent.
        """
        self.mail_utf8 = utf8
        evidence = self._mail(utf8, pipelined if self.pipelining else ())
        if evidence.code == 530 and not self.tls and self.alive and self.starttls:
            self.tls_demanded = True
            tls = self.start_tls()
            evidence = self._mail(utf8, ()) if self.alive and self.tls else tls
        if evidence.code != 250:
            self._drain()
        return evidence

    def _mail(self, utf8: bool, pipelined: Sequence[str]) -> ReplyEvidence:
        options = " SMTPUTF8" if utf8 else ""
        self._client.command_encoding = "utf-8" if utf8 else "ascii"
        line = f"MAIL FROM:<{self._config.mail_from}>{options}"
        if not pipelined:
            return self._command(line, lambda: self._docmd(line))
        return self._command(line, lambda: self._send_group([line, *map(rcpt_line, pipelined)]))

    def _send_group(self, lines: list[str]) -> Reply:
        """One write for the whole group (RFC 2920 3.1), then the first reply; the rest are owed."""
        self._client.send("".join(f"{line}\r\n" for line in lines))
        self._owed.extend(lines[1:])
        return self._client.getreply()

    def pipeline_rcpts(self, addresses: Sequence[str]) -> None:
        """Send the RCPTs of ``addresses`` in one write on a session whose transaction is open; their
        replies are read by ``rcpt()`` in order. Nothing is sent unless pipelining is on and every earlier
        reply has been read (a write cannot fail silently here: a dead socket fails the first read)."""
        if not addresses or not self.may_pipeline:
            return
        lines = [rcpt_line(address) for address in addresses]
        try:
            self._client.send("".join(f"{line}\r\n" for line in lines))
        except _FAILURES:
            self.alive = False
            return
        self._owed.extend(lines)

    @property
    def may_pipeline(self) -> bool:
        """Would ``pipeline_rcpts`` send now?"""
        return self.pipelining and self.alive and not self._owed

    def adopt(self, deadline: Deadline, target: Target | None = None) -> None:
        """Carry on under another group's deadline, with an empty transcript (the evidence of earlier groups
        belongs to them), as its ``target``: the same address under the adopting group's MX host name,
        which its evidence names."""
        self._deadline = deadline
        self.target = target if target is not None and target.ip == self.target.ip else self.target
        self.transcript = []
        self.reused = True

    def still_open(self) -> bool:
        """An idle session the server has not closed: nothing to read on it yet (a hang-up or a 421 sent
        while we were idle makes the socket readable). Checked without blocking."""
        sock = self._client.sock
        if not self.alive or sock is None:
            return False
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    @property
    def owes_replies(self) -> bool:
        """Sent RCPTs whose replies nobody has asked for yet (read or not)."""
        return self.in_flight > 0

    @property
    def in_flight(self) -> int:
        """RCPTs sent whose replies were not asked for yet: each may still be a refusal the server counts."""
        return len(self._owed) + sum(len(replies) for replies in self._early.values())

    def pending(self, address: str) -> bool:
        """Was the RCPT of ``address`` sent, its reply not asked for yet?"""
        line = rcpt_line(address)
        return line in self._early or line in self._owed

    def rcpt(self, address: str) -> ReplyEvidence:
        line = rcpt_line(address)
        return self._command(line, lambda: self._docmd(line))

    def close(self) -> None:
        """QUIT politely if we can (briefly), then drop the socket whatever happens."""
        self._drain()
        self._early.clear()
        if self.alive:
            self._command(
                "QUIT", lambda: self._client.docmd("QUIT"), timeout=min(1.0, self._config.smtp_timeout)
            )
        self.alive = False
        self._client.close()

    def no_reply(self, label: str, text: str) -> ReplyEvidence:
        """Evidence of a wait that ended on our side before anything was sent (e.g. the limiter)."""
        return self._evidence(label, None, text, time.monotonic())

    # -- plumbing ----------------------------------------------------------------------------------
    def _docmd(self, line: str) -> Reply:
        verb, _, argument = line.partition(" ")
        return self._client.docmd(verb, argument)

    def _drain(self) -> None:
        """Read (and record) every reply still owed to pipelined commands, so the next command's reply
        is its own; stops at the first failure (the session is dead then)."""
        while self._owed and self.alive:
            self._command(self._owed[0], self._client.getreply)
        self._owed.clear()

    def _command(self, line: str, send: Callable[[], Reply], timeout: float | None = None) -> ReplyEvidence:
        """Send one command with its own bounded timeout; a failure records evidence and kills the session.

        A command already sent in a pipelined group is not sent again: its reply is read, and the replies
        before it, owed to recipients of a later group, are kept for when that group asks
        (``_read_ahead``). Any other command is sent once every owed reply was read.
        """
        if line in self._early:
            return self._early_reply(line)
        if line in self._owed:
            self._read_ahead(until=line)
            if self._owed and self._owed[0] == line:  # else the session died first: the read fails
                self._owed.popleft()
            send = self._client.getreply
        elif self._owed and line.startswith("RCPT"):
            self._read_ahead(until=None)
        elif self._owed:
            self._drain()

        def bounded() -> Reply:
            if self._client.sock is not None:
                self._client.sock.settimeout(self._deadline.bound(timeout or self._config.smtp_timeout))
            return send()

        return self._run(line, bounded)

    def _read_ahead(self, until: str | None) -> None:
        """Read the owed replies before ``until`` (all of them for None), each kept for its own RCPT; a
        failed read kills the session, and the command asked for then fails as any read would."""
        while self._owed and self._owed[0] != until and self.alive:
            started = time.monotonic()
            try:
                reply = self._client.getreply()
            except _FAILURES:
                self.alive = False
                return
            if reply[0] in (-1, 421):
                self.alive = False  # closed: nothing more will come; what was read is kept
            self._early.setdefault(self._owed.popleft(), deque()).append((reply, time.monotonic() - started))

    def _early_reply(self, line: str) -> ReplyEvidence:
        """The reply read ahead for ``line``, as the evidence of its own command."""
        replies = self._early[line]
        reply, took = replies.popleft()
        if not replies:
            del self._early[line]
        return self._run(line, lambda: reply, took)

    def _run(self, label: str, action: Callable[[], Reply], took: float = 0.0) -> ReplyEvidence:
        started = time.monotonic() - took
        try:
            code, message = action()
        except _FAILURES as error:
            self.alive = False
            return self._evidence(label, None, self._blame(_describe(error)), started)
        if code == -1:  # smtplib's "connection closed" marker
            self.alive = False
            return self._evidence(label, None, self._blame("connection closed by server"), started)
        if code == 421:  # RFC 5321 4.2.2: the server is closing the channel
            self.alive = False
        enhanced, text = parse_reply(message)
        return self._evidence(label, code, text, started, enhanced)

    def _blame(self, text: str) -> str:
        """A proxied session that lost its connection without a reply: the egress's fault when the proxy
        no longer takes connections (it died), else the server's (it hung up, or never answered)."""
        proxy, left = self._config.egress.proxy, self._deadline.remaining()
        if proxy is None or not self.connected or text.startswith(EGRESS_FAULT) or left <= 0:
            return text
        if proxy_answers(proxy, min(self._config.smtp_connect_timeout, PROXY_CHECK_SECONDS, left)):
            return text
        return f"{EGRESS_FAULT}: proxy went away mid-session ({text})"

    def _evidence(
        self, label: str, code: int | None, text: str, started: float, enhanced: str | None = None
    ) -> ReplyEvidence:
        evidence = ReplyEvidence(
            mx_host=self.target.mx_host,
            ip=self.target.ip,
            command=label,
            code=code,
            enhanced_code=enhanced,
            text=text,
            tls=self.tls,
            latency_ms=round((time.monotonic() - started) * 1000, 1),
        )
        self.transcript.append(evidence)
        return evidence


def rcpt_line(address: str) -> str:
    """The RCPT command for ``address``, spelt once for lock-step and pipelined sending alike."""
    return f"RCPT TO:<{address}>"


_DESCRIPTIONS: tuple[tuple[type[BaseException], str], ...] = (
    (DeadlineExceeded, "deadline reached"),
    (ConnectTimeout, "connect timeout"),
    (TimeoutError, "timeout"),
    (ConnectionRefusedError, "connection refused"),
    (ConnectionResetError, "connection reset"),
)


def _describe(error: BaseException) -> str:
    if isinstance(error, EgressFault):
        return f"{EGRESS_FAULT}: {error}"
    known = next((text for kind, text in _DESCRIPTIONS if isinstance(error, kind)), None)
    if known is not None:
        return known
    if "timed out" in str(error):
        return "timeout"  # smtplib wraps a greeting timeout in SMTPServerDisconnected
    if isinstance(error, smtplib.SMTPServerDisconnected):
        return "connection closed by server"
    return f"{type(error).__name__}: {error}".strip()
