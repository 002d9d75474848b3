"""Engine configuration (DNS and SMTP probing), read once from the environment with strict parsing.

The engine must not depend on the service's ``settings.py``, so it parses its own variables here. A value
that cannot be used is an error at start-up (``EngineConfigError``), never a silent default: a mistyped
timeout that became "no timeout" would let a gevent worker hang on a tarpit for ever.

Variables (defaults in brackets):

- ``DNS_NAMESERVERS`` [empty = system resolver]: comma-separated ``ip[:port]``; IPv6 as ``[::1]:53``.
- ``DNS_TIMEOUT`` [3.0]: seconds for one whole lookup (all servers and retries).
- ``DNS_CACHE_MAX_TTL`` [3600]: upper bound on how long a DNS answer is cached, whatever its TTL.
- ``DNS_NEGATIVE_TTL`` [300]: cache time of NXDOMAIN/no-data answers that carry no SOA.
- ``SMTP_PROBE_PORT`` [25]: port of every MX host (the lab puts all its servers on one port).
- ``SMTP_HELO_HOST`` [localhost]: name sent in EHLO/HELO; production sets an FQDN with a matching PTR.
- ``SMTP_MAIL_FROM`` [verify@localhost]: envelope sender of probes; production sets a real mailbox.
- ``SMTP_TIMEOUT`` [10.0]: seconds to wait for the reply to one command.
- ``SMTP_CONNECT_TIMEOUT`` [5.0]: seconds to establish TCP to one MX address.
- ``SMTP_BANNER_TIMEOUT`` [15.0]: seconds to wait for the 220 greeting (tarpits never send one).
- ``SMTP_DEADLINE`` [60.0]: overall bound for probing one domain group, all sessions together.
- ``SMTP_MAX_RCPT_PER_SESSION`` [100]: recipients per connection before a new one is opened (a kept
  session counts every group it carried).
- ``SMTP_SESSION_MAX_REJECTIONS`` [9]: refused RCPTs (4xx or 5xx) one session may collect; no more than the
  rest are ever in flight, so a session stays under the server's error limits (Postfix slows a client
  after 10 errors, ``smtpd_soft_error_limit``, and hangs up after 20, ``smtpd_hard_error_limit``).
- ``SMTP_SESSION_IDLE_SECONDS`` [4.0]: how long a finished group's session stays open for the next group of
  the same MX host in this process (``verifier/smtp/keeper.py``); 0 closes every session after its group.
- ``SMTP_MAX_MX_ATTEMPTS`` [3]: MX addresses tried, in preference order, before a group is unreachable.
- ``SMTP_GREYLIST_RETRY_AFTER`` [300]: retry-after (seconds) of a temporary failure naming no delay
  (greylisting, 421 and other 4xx, a timeout or hang-up).
- ``SMTP_EGRESS`` [direct://]: where sessions leave from, comma-separated URLs (``verifier/egress.py``);
  sessions use the first (``EngineConfig.egress``), and the engine's own runner falls back to the next
  on an egress fault or block (``verifier/smtp/egress_fallback.py``).

Not from the environment: ``smtp_allow_loopback_mx`` [False]. The prober never connects to an MX address
that is not public unicast (``verifier/public_ip.py``); this lets it reach loopback ones, and nothing else
non-public. ``Engine`` turns it on for an engine that accepts test domains (the service's
``ALLOW_TEST_DOMAINS``, refused in production), and the mail lab's ``engine_config()`` sets it, since the
lab's servers live on 127.0.0.x. One switch, so no second variable can open loopback in production.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from verifier.config_values import (
    EngineConfigError,
    parse_bool,
    parse_int,
    parse_port,
    parse_seconds,
    parse_text,
)
from verifier.egress import DIRECT, Egress, parse_egress_pool

__all__ = [
    "DEFAULT_DNS_PORT",
    "EngineConfig",
    "EngineConfigError",
    "Nameserver",
    "parse_bool",
    "parse_int",
    "parse_nameservers",
    "parse_seconds",
]
DEFAULT_DNS_PORT = 53
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Nameserver:
    """One DNS server to ask: an IP address literal and a port."""

    host: str
    port: int = DEFAULT_DNS_PORT

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_nameservers(raw: str) -> tuple[Nameserver, ...]:
    """Parse ``host[:port],...``; an empty string means "use the system resolver"."""
    return tuple(_parse_nameserver(item.strip()) for item in raw.split(",") if item.strip())


def _parse_nameserver(item: str) -> Nameserver:
    if item.startswith("["):  # [v6]:port
        host, _, rest = item[1:].partition("]")
        port = rest.removeprefix(":") or str(DEFAULT_DNS_PORT)
    elif item.count(":") == 1:
        host, port = item.split(":")
    else:  # bare IPv4, name, or bare IPv6 without port
        host, port = item, str(DEFAULT_DNS_PORT)
    number = parse_port("DNS_NAMESERVERS port", port)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        # A name would need the system resolver to find our resolver: exactly what we must not depend on.
        raise EngineConfigError(f"DNS_NAMESERVERS entry {item!r} must be an IP address[:port]") from None
    return Nameserver(host, number)


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Everything the DNS resolver and the SMTP prober need; immutable and picklable."""

    dns_nameservers: tuple[Nameserver, ...] = ()
    dns_timeout: float = 3.0
    dns_cache_max_ttl: int = 3600
    dns_negative_ttl: int = 300
    smtp_probe_port: int = 25
    smtp_helo_host: str = "localhost"
    smtp_mail_from: str = "verify@localhost"
    smtp_timeout: float = 10.0
    smtp_connect_timeout: float = 5.0
    smtp_banner_timeout: float = 15.0
    smtp_deadline: float = 60.0
    smtp_max_rcpt_per_session: int = 100
    smtp_session_max_rejections: int = 9
    # 4 s rather than 2: a domain in a stream of batches 10 in flight sees its next address up to ~2 s
    # later, and a session closed in that gap was reopened (bench.throughput: 433 sessions for 400 domains).
    smtp_session_idle: float = 4.0
    smtp_max_mx_attempts: int = 3
    smtp_greylist_retry_after: int = 300
    smtp_pipelining: bool = True  # RFC 2920, used only where the server advertises it
    smtp_allow_loopback_mx: bool = False  # never from the environment: see the module doc
    smtp_egress: tuple[Egress, ...] = (DIRECT,)  # ``SMTP_EGRESS``, in order (``verifier/egress.py``)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> EngineConfig:
        """Build the config from ``env`` (default ``os.environ``); bad values raise ``EngineConfigError``."""
        env = os.environ if env is None else env
        d = cls()

        def read(name: str, parse: Callable[[str, str], _T], default: object) -> _T:
            return parse(name, env.get(name, str(default)))

        return cls(
            dns_nameservers=parse_nameservers(env.get("DNS_NAMESERVERS", "")),
            dns_timeout=read("DNS_TIMEOUT", parse_seconds, d.dns_timeout),
            dns_cache_max_ttl=read("DNS_CACHE_MAX_TTL", _count, d.dns_cache_max_ttl),
            dns_negative_ttl=read("DNS_NEGATIVE_TTL", _count, d.dns_negative_ttl),
            smtp_probe_port=read("SMTP_PROBE_PORT", parse_port, d.smtp_probe_port),
            smtp_helo_host=read("SMTP_HELO_HOST", parse_text, d.smtp_helo_host),
            smtp_mail_from=read("SMTP_MAIL_FROM", parse_text, d.smtp_mail_from),
            smtp_timeout=read("SMTP_TIMEOUT", parse_seconds, d.smtp_timeout),
            smtp_connect_timeout=read("SMTP_CONNECT_TIMEOUT", parse_seconds, d.smtp_connect_timeout),
            smtp_banner_timeout=read("SMTP_BANNER_TIMEOUT", parse_seconds, d.smtp_banner_timeout),
            smtp_deadline=read("SMTP_DEADLINE", parse_seconds, d.smtp_deadline),
            smtp_max_rcpt_per_session=read(
                "SMTP_MAX_RCPT_PER_SESSION", _positive, d.smtp_max_rcpt_per_session
            ),
            smtp_session_max_rejections=read(
                "SMTP_SESSION_MAX_REJECTIONS", _positive, d.smtp_session_max_rejections
            ),
            smtp_session_idle=read("SMTP_SESSION_IDLE_SECONDS", _parse_idle, d.smtp_session_idle),
            smtp_max_mx_attempts=read("SMTP_MAX_MX_ATTEMPTS", _positive, d.smtp_max_mx_attempts),
            smtp_greylist_retry_after=read("SMTP_GREYLIST_RETRY_AFTER", _count, d.smtp_greylist_retry_after),
            smtp_pipelining=read("SMTP_PIPELINING", parse_bool, "true"),
            smtp_egress=parse_egress_pool(env.get("SMTP_EGRESS", "")),
        )

    @property
    def egress(self) -> Egress:
        """The egress this config's sessions leave from: the first of the pool."""
        return self.smtp_egress[0]

    @property
    def helo_host(self) -> str:
        """The name sent in EHLO/HELO: the egress's own, else ``SMTP_HELO_HOST``."""
        return self.egress.helo or self.smtp_helo_host

    @property
    def mail_from(self) -> str:
        """The envelope sender of probes: the egress's own, else ``SMTP_MAIL_FROM``."""
        return self.egress.mail_from or self.smtp_mail_from

    def over(self, egress: Egress) -> EngineConfig:
        """This config with ``egress`` as its only way out."""
        return dataclasses.replace(self, smtp_egress=(egress,))


def _parse_idle(name: str, raw: str) -> float:
    """Seconds, where 0 is allowed (no session is kept)."""
    return 0.0 if raw.strip() in ("0", "0.0") else parse_seconds(name, raw)


def _count(name: str, raw: str) -> int:
    return parse_int(name, raw, minimum=0)


def _positive(name: str, raw: str) -> int:
    return parse_int(name, raw, minimum=1)
