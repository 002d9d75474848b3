"""The lab world, declared once: domains -> DNS records -> SMTP servers (127.0.0.x) -> behaviours.

Tests, benchmarks and the offline demo all use these names, so "greylist.test" means the same thing
everywhere. Every name here is answered only by the lab DNS server; provider-looking MX host names
(``mta5.am0.yahoodns.net``, ``*.olc.protection.outlook.com``, ``*.mail.protection.outlook.com``,
``*.mx.microsoft``) exist so
the prober's provider rules, which key on MX host names, can be exercised without the real providers.
"""

from __future__ import annotations

from collections.abc import Mapping

from maillab.model import Answer, Behaviour, DomainSpec, Greeting, SmtpServerSpec, Tls, World

MAILBOXES = frozenset({"alice", "bob", "carol", "dave", "erin"})
ROLE_MAILBOXES = frozenset({"info", "postmaster", "sales"})  # only on mailbox.test: roles that exist
DEAD_IP = "127.0.0.2"  # nothing listens here: connection refused
BLACKHOLE_IP = "127.0.0.3"  # nothing answers the SYN here: connect timeout (maillab/blackhole.py)
# Source addresses probes may leave from (``direct://127.0.0.61``): the "blocklist" server refuses the
# first with a block-list greeting, as if Spamhaus listed it, and answers the second normally.
BLOCKED_SOURCE = "127.0.0.61"
CLEAN_SOURCE = "127.0.0.62"
SPAMHAUS = "554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org"
PROOFPOINT = "554 Blocked - see https://ipcheck.proofpoint.com/?ip=127.0.0.1"
REVERSE_HOSTNAME = "550 Client host rejected: cannot find your reverse hostname, [127.0.0.1]"
M365_DENIED = (
    "550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [lab.prod.protection.outlook.com]"
)
LOOKUP_FAILURE = "451 4.3.0 <recipient>: Temporary lookup failure"
SHUTTING_DOWN = "421 4.3.2 mx.drop-421.test Service shutting down, closing transmission channel"
# Gmail's rate limit as Workspace-hosted domains answer it at RCPT, before closing the session.
UNUSUAL_RATE = (
    "421 4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address. "
    "To protect our users from spam, mail sent from your IP address has been temporarily rate limited."
)
# Accounts that are gone or switched off, in the wording providers use, often under a 5.7.x "policy" code.
ACCOUNT_REPLIES = (
    ("suspended", "550 5.7.1 This account has been suspended"),
    ("locked", "550 5.7.1 <locked@accounts.test>: Recipient address rejected: account disabled"),
    (
        "closed",  # Gmail's multi-line wording
        (
            "550-5.2.1 The email account that you tried to reach is disabled. Learn more at\n"
            "550 5.2.1  https://support.google.com/mail/?p=DisabledUser lab.accounts.test - gsmtp"
        ),
    ),
    ("deactivated", "554 5.7.1 The recipient's account has been deactivated"),
    ("nosuch", "550 5.7.1 No such user here"),
)
BANNED_IP = (
    "550 5.7.606 Access denied, banned sending IP [127.0.0.1]. To request removal from this list please "
    "visit https://sender.office.com/ and follow the directions."
)
POLICY = "554 5.7.1 rejected: policy"
# Domains behind the shared "hosting" server, each with an MX host name of its own (``mx.<domain>``).
SHARED_ORDINARY = tuple(f"shared-{i}.test" for i in range(8))
SHARED_CATCH_ALL = ("shared-catchall-0.test", "shared-catchall-1.test")
# Behind the "tenants" gateway; their CRC-32 modulo 3 is the same, so the service puts all three in one of
# the address's lanes (``services/probing/rounds/routes.py``) and one drain asks them over one session.
TENANT_DOMAINS = ("tenant-a.test", "tenant-e.test", "tenant-f.test")
# Domains behind the shared "provider" server (a mailbox provider's MX: many customers, no error limit).
PROVIDER_DOMAINS = tuple(f"provider-{i:02d}.test" for i in range(24))

SERVERS: tuple[SmtpServerSpec, ...] = (
    SmtpServerSpec("mailbox", "127.0.0.11", Behaviour(mailboxes=MAILBOXES | ROLE_MAILBOXES)),
    SmtpServerSpec("catchall", "127.0.0.12", Behaviour(catch_all=True)),
    SmtpServerSpec(
        "full",
        "127.0.0.13",
        Behaviour(mailboxes=MAILBOXES, full=frozenset({"full"}), over_quota=frozenset({"quota"})),
    ),
    SmtpServerSpec("disabled", "127.0.0.14", Behaviour(mailboxes=MAILBOXES, disabled=frozenset({"gone"}))),
    SmtpServerSpec("greylist", "127.0.0.15", Behaviour(mailboxes=MAILBOXES, greylist_seconds=1.0)),
    SmtpServerSpec("slow", "127.0.0.16", Behaviour(mailboxes=MAILBOXES, reply_delay=1.5)),
    SmtpServerSpec("tarpit", "127.0.0.17", Behaviour(greeting=Greeting.SILENT)),
    SmtpServerSpec("busy", "127.0.0.18", Behaviour(greeting=Greeting.REFUSE)),
    SmtpServerSpec("tls", "127.0.0.19", Behaviour(mailboxes=MAILBOXES, tls=Tls.OFFERED)),
    SmtpServerSpec("tls-required", "127.0.0.20", Behaviour(mailboxes=MAILBOXES, tls=Tls.REQUIRED)),
    SmtpServerSpec(
        "helo-only", "127.0.0.21", Behaviour(mailboxes=MAILBOXES, ehlo=False, tls=Tls.REQUIRED_UNADVERTISED)
    ),
    SmtpServerSpec("utf8", "127.0.0.22", Behaviour(mailboxes=MAILBOXES | {"jörg"}, smtputf8=True)),
    SmtpServerSpec("spamhaus", "127.0.0.23", Behaviour(mailboxes=MAILBOXES, rcpt_reply=SPAMHAUS)),
    SmtpServerSpec("proofpoint", "127.0.0.24", Behaviour(mailboxes=MAILBOXES, mail_reply=PROOFPOINT)),
    SmtpServerSpec("reverse-hostname", "127.0.0.25", Behaviour(rcpt_reply=REVERSE_HOSTNAME)),
    SmtpServerSpec("outlook", "127.0.0.26", Behaviour(mailboxes=MAILBOXES, max_rcpt_per_session=1)),
    SmtpServerSpec("m365", "127.0.0.27", Behaviour(mailboxes=MAILBOXES, unknown_reply=M365_DENIED)),
    SmtpServerSpec("yahoo", "127.0.0.28", Behaviour(catch_all=True)),
    SmtpServerSpec("too-many", "127.0.0.29", Behaviour(mailboxes=MAILBOXES, max_rcpt_per_session=2)),
    SmtpServerSpec(
        "inconclusive", "127.0.0.30", Behaviour(mailboxes=MAILBOXES, unknown_reply=LOOKUP_FAILURE)
    ),
    SmtpServerSpec(
        "tls-broken", "127.0.0.31", Behaviour(mailboxes=MAILBOXES, tls=Tls.OFFERED, broken_tls=True)
    ),
    SmtpServerSpec(
        "tls-broken-required",
        "127.0.0.32",
        Behaviour(mailboxes=MAILBOXES, tls=Tls.REQUIRED, broken_tls=True),
    ),
    # Pipelining cases: a lock-step-only MTA, and MTAs that die on the 2nd RCPT of a transaction
    # (silently, or with a 421), i.e. in the middle of a pipelined group.
    SmtpServerSpec("no-pipelining", "127.0.0.33", Behaviour(mailboxes=MAILBOXES, pipelining=False)),
    SmtpServerSpec("hangup", "127.0.0.34", Behaviour(mailboxes=MAILBOXES, hang_up_at_rcpt=2)),
    SmtpServerSpec(
        "drop-421",
        "127.0.0.35",
        Behaviour(mailboxes=MAILBOXES, hang_up_at_rcpt=2, hang_up_reply=SHUTTING_DOWN),
    ),
    # Gone or switched-off accounts under 5.7.x, and 5.7.x refusals that are really about us.
    SmtpServerSpec("accounts", "127.0.0.36", Behaviour(mailboxes=MAILBOXES, account_replies=ACCOUNT_REPLIES)),
    SmtpServerSpec("banned-ip", "127.0.0.37", Behaviour(mailboxes=MAILBOXES, rcpt_reply=BANNED_IP)),
    SmtpServerSpec("policy", "127.0.0.38", Behaviour(mailboxes=MAILBOXES, rcpt_reply=POLICY)),
    # Low error limits (Postfix's are 10 and 20): the 5th refused RCPT of a session is the last one.
    SmtpServerSpec("strict", "127.0.0.39", Behaviour(mailboxes=MAILBOXES, error_limit=5)),
    # A distant server (300 ms per reply) taking every address: a long list there keeps its lane busy.
    SmtpServerSpec("sluggish", "127.0.0.40", Behaviour(catch_all=True, reply_delay=0.3)),
    # One address behind many domains, as a hosting provider's MX: ordinary and catch-all domains, and
    # Postfix-like error limits (a session's 6th refused RCPT is the last one).
    SmtpServerSpec(
        "hosting",
        "127.0.0.41",
        Behaviour(mailboxes=MAILBOXES, catch_all_domains=frozenset(SHARED_CATCH_ALL), error_limit=5),
    ),
    # A gateway routing one customer per transaction: a second domain's RCPT there is "Relay access denied".
    SmtpServerSpec("tenants", "127.0.0.42", Behaviour(mailboxes=MAILBOXES, one_domain_per_transaction=True)),
    # A server named by two domains that hosts only one of them.
    SmtpServerSpec(
        "partial", "127.0.0.43", Behaviour(mailboxes=MAILBOXES, hosted=frozenset({"partial-home.test"}))
    ),
    SmtpServerSpec("provider", "127.0.0.44", Behaviour(mailboxes=MAILBOXES)),
    SmtpServerSpec(
        "blocklist", "127.0.0.45", Behaviour(mailboxes=MAILBOXES, blocked_clients=frozenset({BLOCKED_SOURCE}))
    ),
    # A Workspace-hosted domain rate-limiting the prober: each session ends at its first RCPT with 421-4.7.28.
    SmtpServerSpec(
        "ratelimited",
        "127.0.0.46",
        Behaviour(mailboxes=MAILBOXES, hang_up_at_rcpt=1, hang_up_reply=UNUSUAL_RATE),
    ),
)


def host(name: str, *ips: str, ttl: int = 300) -> DomainSpec:
    """An MX host name with its A records."""
    return DomainSpec(name, a=ips, ttl=ttl)


def mail_domain(name: str, ip: str) -> tuple[DomainSpec, DomainSpec]:
    """A domain with one MX ``mx.<name>`` pointing at the server on ``ip``."""
    return DomainSpec(name, mx=((10, f"mx.{name}"),)), host(f"mx.{name}", ip)


def _simple_domains() -> tuple[DomainSpec, ...]:
    """``<server>.test`` for every scripted server, plus ``dead.test`` whose only MX refuses connections and
    ``blackhole.test`` whose only MX never answers a connection attempt."""
    pairs = [mail_domain(f"{spec.name}.test", spec.ip) for spec in SERVERS if spec.name not in _PROVIDERS]
    pairs += [mail_domain(name, "127.0.0.41") for name in SHARED_ORDINARY + SHARED_CATCH_ALL]
    pairs += [mail_domain(name, "127.0.0.42") for name in TENANT_DOMAINS]
    pairs += [mail_domain(name, "127.0.0.44") for name in PROVIDER_DOMAINS]
    pairs += [mail_domain(name, "127.0.0.43") for name in ("partial-home.test", "partial-away.test")]
    pairs.append(mail_domain("dead.test", DEAD_IP))
    # Two more dead domains: three unreachable domains in one job read as our outbound port 25 closed.
    pairs += [mail_domain(f"dead{index}.test", DEAD_IP) for index in (2, 3)]
    pairs.append(mail_domain("blackhole.test", BLACKHOLE_IP))
    return tuple(record for pair in pairs for record in pair)


_PROVIDERS = {"outlook", "m365", "yahoo"}

_PROVIDER_DOMAINS: tuple[DomainSpec, ...] = (
    DomainSpec("outlook.test", mx=((5, "outlook-test.olc.protection.outlook.com"),)),
    host("outlook-test.olc.protection.outlook.com", "127.0.0.26"),
    DomainSpec("m365.test", mx=((0, "m365-test.mail.protection.outlook.com"),)),
    host("m365-test.mail.protection.outlook.com", "127.0.0.27"),
    # Microsoft 365's newer MX form, <tenant>.<region>.mx.microsoft, on the same server
    DomainSpec("m365-new.test", mx=((0, "m365-new-test.o-v1.mx.microsoft"),)),
    host("m365-new-test.o-v1.mx.microsoft", "127.0.0.27"),
    DomainSpec("yahoo.test", mx=((1, "mta5.am0.yahoodns.net"), (1, "mta6.am0.yahoodns.net"))),
    host("mta5.am0.yahoodns.net", "127.0.0.28"),
    host("mta6.am0.yahoodns.net", "127.0.0.28"),
)

# Real list-classified names, answered only by the lab: a disposable provider (Mailinator accepts any
# address, like the catch-all server) and a forwarding relay (DuckDuckGo Email Protection).
_LIST_DOMAINS: tuple[DomainSpec, ...] = (
    *mail_domain("mailinator.com", "127.0.0.12"),
    *mail_domain("duck.com", "127.0.0.11"),
)

_DNS_CASES: tuple[DomainSpec, ...] = (
    # A dead first MX and a working second one: the prober must move on.
    DomainSpec("backup.test", mx=((20, "mx2.backup.test"), (10, "mx1.backup.test"))),
    host("mx1.backup.test", DEAD_IP),
    host("mx2.backup.test", "127.0.0.11"),
    # A tarpit first (accepts TCP, never greets) and a working second MX.
    DomainSpec("tarpit-first.test", mx=((10, "mx1.tarpit-first.test"), (20, "mx2.tarpit-first.test"))),
    host("mx1.tarpit-first.test", "127.0.0.17"),
    host("mx2.tarpit-first.test", "127.0.0.11"),
    # A first MX that never answers the SYN (a firewall dropping port 25) and a working second MX.
    DomainSpec(
        "blackhole-first.test", mx=((10, "mx1.blackhole-first.test"), (20, "mx2.blackhole-first.test"))
    ),
    host("mx1.blackhole-first.test", BLACKHOLE_IP),
    host("mx2.blackhole-first.test", "127.0.0.11"),
    # MX hosts on 0.0.0.0, which Linux connects to as the local machine: never public, never contacted,
    # even by an engine that may reach loopback (and a broken check would still stay on this machine).
    DomainSpec("unspecified.test", mx=((10, "mx.unspecified.test"),)),
    host("mx.unspecified.test", "0.0.0.0"),
    DomainSpec(
        "unspecified-first.test", mx=((10, "mx1.unspecified-first.test"), (20, "mx2.unspecified-first.test"))
    ),
    host("mx1.unspecified-first.test", "0.0.0.0"),
    host("mx2.unspecified-first.test", "127.0.0.11"),
    DomainSpec("implicit.test", a=("127.0.0.11",)),  # no MX: RFC 5321 5.1 implicit MX
    DomainSpec("v6only.test", aaaa=("::1",)),
    DomainSpec("nullmx.test", mx=((0, "."),)),  # RFC 7505
    DomainSpec("nohost.test", mx=((10, "mx.missing.test"),)),  # MX target does not exist
    DomainSpec("nodata.test", txt=("v=spf1 -all",)),  # exists, no MX and no address
    DomainSpec("servfail.test", answer=Answer.SERVFAIL),
    DomainSpec("timeout.test", answer=Answer.TIMEOUT),
    DomainSpec("mxtimeout.test", mx=((10, "mx.timeout.test"),)),
    DomainSpec("mx.timeout.test", answer=Answer.TIMEOUT),
    DomainSpec("xn--mnchen-3ya.test", mx=((10, "mx.xn--mnchen-3ya.test"),)),  # münchen.test
    host("mx.xn--mnchen-3ya.test", "127.0.0.22"),
    DomainSpec("ttl.test", mx=((10, "mx.ttl.test"),), ttl=120),
    host("mx.ttl.test", "127.0.0.11", ttl=45),
    # 80 MX records do not fit a UDP answer: the resolver must retry over TCP.
    DomainSpec("big.test", mx=tuple((i, f"mx{i:02d}.big.test") for i in range(80))),
    host("mx00.big.test", "127.0.0.11"),
)


def standard_world() -> World:
    """The world the test suite runs against."""
    return World(
        _simple_domains() + _PROVIDER_DOMAINS + _LIST_DOMAINS + _DNS_CASES,
        SERVERS,
        dead_ips=(DEAD_IP,),
        blackhole_ips=(BLACKHOLE_IP,),
    )


BENCH_MAILBOXES = frozenset(f"user{i:02d}" for i in range(50))


def bench_world(domains: int = 10, servers: int = 5) -> World:
    """``bench-NNN.test`` domains spread over ``servers`` servers on 127.0.0.101+ (mailboxes user00-49);
    ``servers=domains`` gives every domain its own MX server, as distinct companies have."""
    behaviour = Behaviour(BENCH_MAILBOXES)
    specs = tuple(SmtpServerSpec(f"bench{i}", bench_ip(i), behaviour) for i in range(servers))
    pairs = [mail_domain(bench_domain(i), specs[i % servers].ip) for i in range(domains)]
    return World(tuple(record for pair in pairs for record in pair), specs)


def shared_mx_world(domains: int, addresses: int, quirks: Mapping[int, Behaviour] | None = None) -> World:
    """``bench-NNN.test`` domains behind ``addresses`` shared MX hosts, as real lists are: thousands of
    domains name the same few MX hosts (Google Workspace, Microsoft 365, a hosting provider's).

    Domain ``i`` names ``mx.bench-host-KK.test`` (``KK = i % addresses``), whose one A record is server
    ``benchKK`` on ``bench_ip(KK)``; that server takes user00-49 at every domain it serves, as a provider's
    MX does, with the behaviour ``quirks[KK]`` instead where one is given. Unlike ``bench_world(domains,
    servers)``, where each domain keeps an MX host name of its own, the host name is shared too, so the
    DNS answers a prober sees are the same for every domain there.
    """
    plain = Behaviour(BENCH_MAILBOXES)
    quirks = quirks or {}
    specs = tuple(SmtpServerSpec(f"bench{k}", bench_ip(k), quirks.get(k, plain)) for k in range(addresses))
    hosts = tuple(host(shared_mx_host(k), spec.ip) for k, spec in enumerate(specs))
    names = tuple(
        DomainSpec(bench_domain(i), mx=((10, shared_mx_host(i % addresses)),)) for i in range(domains)
    )
    return World(names + hosts, specs)


# Providers' ways, one per shared address of ``provider_world``: address 0 is a plain provider MX, 1
# takes 20 recipients per session (452 4.5.3 past them, as providers cap recipients per connection), 2
# answers every command 300 ms late (a distant or loaded gateway), 3 is plain again.
PROVIDER_QUIRKS: Mapping[int, Behaviour] = {
    1: Behaviour(BENCH_MAILBOXES, max_rcpt_per_session=20),
    2: Behaviour(BENCH_MAILBOXES, reply_delay=0.3),
}


def provider_world(domains: int = 1000) -> World:
    """``domains`` domains behind 4 provider MX addresses with their quirks (``PROVIDER_QUIRKS``)."""
    return shared_mx_world(domains, 4, PROVIDER_QUIRKS)


def shared_mx_host(index: int) -> str:
    """The MX host name of the ``index``-th shared server of ``shared_mx_world``."""
    return f"mx.bench-host-{index:02d}.test"


def bench_ip(index: int) -> str:
    """127.0.0.101-250, then 127.0.1.1 onwards (the whole of 127/8 is loopback)."""
    return (
        f"127.0.0.{101 + index}"
        if index < 150
        else f"127.0.{1 + (index - 150) // 250}.{1 + (index - 150) % 250}"
    )


def bench_domain(index: int) -> str:
    """Name of the ``index``-th benchmark domain."""
    return f"bench-{index:03d}.test"
