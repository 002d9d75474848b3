"""The vocabulary of the mail lab: what a lab SMTP server does and what a lab DNS zone holds.

These are plain frozen dataclasses so that ``world.py`` reads as a table (domain -> records -> server ->
behaviour) and a test can build a one-off world without touching the servers' code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Greeting(StrEnum):
    """What a server does when a client connects."""

    NORMAL = "normal"  # 220 banner
    SILENT = "silent"  # accepts TCP and never says a word (a tarpit)
    REFUSE = "refuse"  # 421 and hang up, as a busy or rate-limiting MTA does


class Tls(StrEnum):
    """How a server treats STARTTLS."""

    NONE = "none"  # not offered; the STARTTLS command is refused
    OFFERED = "offered"  # advertised in EHLO, optional
    REQUIRED = "required"  # advertised, and MAIL before TLS gets 530 5.7.0
    REQUIRED_UNADVERTISED = "required-unadvertised"  # not advertised (HELO-only hosts), but 530 before TLS


@dataclass(frozen=True)
class Behaviour:
    """A scripted SMTP server. Local parts are compared in lower case.

    Replies for recipients are decided in this order: hang-up, session recipient limit, relaying (a domain
    not ``hosted``, or not the transaction's first with ``one_domain_per_transaction``), fixed
    ``rcpt_reply``, greylisting, a mailbox's own ``account_replies``, full/over quota/disabled lists, known
    mailbox or catch-all (the server's, or its ``catch_all_domains``'), else ``unknown_reply``.
    """

    mailboxes: frozenset[str] = frozenset()
    catch_all: bool = False
    full: frozenset[str] = frozenset()  # 452 4.2.2
    over_quota: frozenset[str] = frozenset()  # 552 5.2.2
    disabled: frozenset[str] = frozenset()  # 550 5.2.1
    account_replies: tuple[tuple[str, str], ...] = ()  # (local part, its RCPT reply): suspended accounts
    greylist_seconds: float | None = None  # Postfix/postgrey: 450 4.2.0 until retried this much later
    reply_delay: float | None = None  # seconds before every reply; None = the lab-wide latency
    greeting: Greeting = Greeting.NORMAL
    ehlo: bool = True  # False: EHLO is refused with 502, the client must fall back to HELO
    tls: Tls = Tls.NONE
    smtputf8: bool = False
    mail_reply: str | None = None  # fixed reply to MAIL FROM (a policy block at envelope time)
    rcpt_reply: str | None = None  # fixed reply to every RCPT (policy block, access denied)
    unknown_reply: str | None = None  # reply for an unknown mailbox; None = Postfix "User unknown"
    max_rcpt_per_session: int | None = None  # further RCPTs get 452 4.5.3 Too many recipients
    broken_tls: bool = False  # STARTTLS gets 220, then the server speaks plaintext: the handshake fails
    pipelining: bool = True  # advertise RFC 2920 PIPELINING in EHLO, as Postfix, Exim and Exchange do
    hang_up_at_rcpt: int | None = None  # the Nth RCPT of a transaction: close (after hang_up_reply, if set)
    hang_up_reply: str | None = None  # e.g. "421 4.4.2 ...": said before hanging up; None = no word at all
    # Postfix's smtpd_hard_error_limit: after this many refused RCPTs in a session, every RCPT is answered
    # "421 too many errors" and the session ends (None: no limit, as the lab's other servers)
    error_limit: int | None = None
    # The domains a shared server takes mail for (None: every domain naming it); RCPTs for others are
    # answered "554 5.7.1 Relay access denied", as Postfix answers a domain it does not host.
    hosted: frozenset[str] | None = None
    # Tenant routing (one customer per transaction): a RCPT for another domain than the transaction's
    # first recipient's is answered "Relay access denied" too.
    one_domain_per_transaction: bool = False
    catch_all_domains: frozenset[str] = frozenset()  # domains of a shared server that accept any address
    # Client addresses a block list names: greeted with ``554 5.7.1 ... Client host [IP] blocked using
    # zen.spamhaus.org`` and hung up on, as Postfix's postscreen does; other clients get the normal script.
    blocked_clients: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SmtpServerSpec:
    """One lab SMTP server: a name for tests to look it up by, the loopback IP it binds, its script."""

    name: str
    ip: str
    behaviour: Behaviour


class Answer(StrEnum):
    """How the lab DNS server answers a name, beyond its records."""

    NORMAL = "normal"
    SERVFAIL = "servfail"
    TIMEOUT = "timeout"  # the query is dropped: the client sees nothing at all


@dataclass(frozen=True)
class DomainSpec:
    """One owner name in the lab DNS. A name absent from the world is NXDOMAIN.

    ``mx`` holds ``(preference, exchange)``; an exchange of ``"."`` with preference 0 is a null MX
    (RFC 7505). A name with no records at all exists but has no data (NOERROR, empty answer).
    """

    name: str
    mx: tuple[tuple[int, str], ...] = ()
    a: tuple[str, ...] = ()
    aaaa: tuple[str, ...] = ()
    txt: tuple[str, ...] = ()
    ttl: int = 300
    answer: Answer = Answer.NORMAL


@dataclass(frozen=True)
class World:
    """Everything the lab serves. ``dead_ips`` are MX addresses where nothing listens (refused at once);
    ``blackhole_ips`` are MX addresses where a connection attempt is never answered (connect timeout)."""

    domains: tuple[DomainSpec, ...]
    servers: tuple[SmtpServerSpec, ...]
    dead_ips: tuple[str, ...] = field(default=())
    blackhole_ips: tuple[str, ...] = field(default=())

    def merged(self, other: World) -> World:
        """Both worlds in one lab (the standalone lab serves the test world and the benchmark world)."""
        return World(
            self.domains + other.domains,
            self.servers + other.servers,
            tuple(dict.fromkeys(self.dead_ips + other.dead_ips)),
            tuple(dict.fromkeys(self.blackhole_ips + other.blackhole_ips)),
        )
