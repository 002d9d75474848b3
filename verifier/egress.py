"""Where SMTP sessions leave from: the egress pool, parsed from ``SMTP_EGRESS``.

``SMTP_EGRESS`` is a comma-separated list of URLs (default ``direct://``):

- ``direct://``: the host's default route;
- ``direct://203.0.113.7`` (or ``direct://[2001:db8::7]``): sessions bind that source address;
- ``socks5://[user:password@]host:port``: sessions go through a SOCKS5 proxy, which is only ever asked
  for an IP address (the engine resolves MX hosts itself: the proxy's resolver never decides where a
  probe goes, and no name leaks to it);

each optionally with ``?helo=NAME&mailFrom=ADDRESS``: every source address needs a HELO name matching its
PTR record. Without them ``SMTP_HELO_HOST`` and ``SMTP_MAIL_FROM`` apply.

An egress is known by its ``id``, its URL without the password (``socks5://user@host:port``): stable
across restarts, safe in logs and Redis keys. The password is kept out of ``repr`` and every message.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import SplitResult, parse_qsl, quote, unquote, urlsplit

from verifier.config_values import EngineConfigError, parse_port, parse_text

VARIABLE = "SMTP_EGRESS"
_OPTIONS = {"helo": "helo", "mailFrom": "mail_from"}
_SECRET = re.compile(r"(//[^/@:]*:)[^@/]*@")


class EgressKind(StrEnum):
    DIRECT = "direct"
    SOCKS5 = "socks5"


@dataclass(frozen=True, slots=True)
class Socks5Proxy:
    """A SOCKS5 proxy (RFC 1928), with RFC 1929 username/password authentication when both are set."""

    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        """``host:port`` (IPv6 in brackets), without credentials."""
        return f"{_bracketed(self.host)}:{self.port}"


@dataclass(frozen=True, slots=True)
class Egress:
    """One way out: the default route, a bound source address, or a SOCKS5 proxy; its own HELO name and
    envelope sender where given (None: the engine's ``SMTP_HELO_HOST`` / ``SMTP_MAIL_FROM``)."""

    kind: EgressKind = EgressKind.DIRECT
    source: str | None = None  # direct://ADDRESS: the source address sessions bind
    proxy: Socks5Proxy | None = None
    helo: str | None = None
    mail_from: str | None = None

    @property
    def id(self) -> str:
        """The URL without password or options: what logs and Redis keys call this egress."""
        if self.proxy is not None:
            user = f"{quote(self.proxy.username, safe='')}@" if self.proxy.username else ""
            return f"{self.kind.value}://{user}{self.proxy.address}"
        return f"{self.kind.value}://{_bracketed(self.source) if self.source else ''}"


DIRECT = Egress()


def parse_egress_pool(raw: str) -> tuple[Egress, ...]:
    """Every entry of ``SMTP_EGRESS`` in order; blank means ``direct://``. A malformed or repeated entry
    raises ``EngineConfigError`` naming it (its password masked)."""
    entries = [item.strip() for item in raw.split(",") if item.strip()]
    pool = tuple(parse_egress(entry) for entry in entries) or (DIRECT,)
    seen: set[str] = set()
    for entry, egress in zip(entries, pool, strict=False):
        if egress.id in seen:
            raise EngineConfigError(f"{VARIABLE} entry {redact(entry)!r} repeats the egress {egress.id}")
        seen.add(egress.id)
    return pool


def parse_egress(entry: str) -> Egress:
    """One ``SMTP_EGRESS`` URL."""
    try:
        parts = urlsplit(entry)
        kind = EgressKind(parts.scheme.lower())
        helo, mail_from = _options(parts)
        if kind is EgressKind.DIRECT:
            return Egress(kind, source=_source(parts), helo=helo, mail_from=mail_from)
        return Egress(kind, proxy=_proxy(parts), helo=helo, mail_from=mail_from)
    except ValueError as error:  # EngineConfigError too: say which entry, never its password
        problem = str(error) if isinstance(error, EngineConfigError) else _problem(error)
        raise EngineConfigError(f"{VARIABLE} entry {redact(entry)!r} is not usable: {problem}") from None


def redact(entry: str) -> str:
    """``entry`` with the password of a ``user:password@`` part masked."""
    return _SECRET.sub(r"\1***@", entry)


def _problem(error: ValueError) -> str:
    if "is not a valid EgressKind" in str(error):
        return "the scheme must be direct:// or socks5://"
    return "malformed URL"


def _source(parts: SplitResult) -> str | None:
    if parts.path not in ("", "/") or parts.fragment:
        raise EngineConfigError("direct:// takes only a source address")
    host = parts.netloc.removeprefix("[").removesuffix("]")
    if not host:
        return None
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        raise EngineConfigError("the source address must be an IPv4 or IPv6 address") from None


def _proxy(parts: SplitResult) -> Socks5Proxy:
    if parts.path not in ("", "/") or parts.fragment or not parts.hostname:
        raise EngineConfigError("socks5:// takes [user:password@]host:port")
    try:
        port = parts.port
    except ValueError:
        raise EngineConfigError("the proxy's port must be a number from 1 to 65535") from None
    if port is None:
        raise EngineConfigError("the proxy's port is required")
    port = parse_port("the proxy's port", str(port))
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if (username is None) != (password is None):
        raise EngineConfigError("a proxy user needs both a name and a password")
    return Socks5Proxy(parts.hostname, port, username, password)


def _options(parts: SplitResult) -> tuple[str | None, str | None]:
    """The entry's ``helo`` and ``mailFrom``, each at most once."""
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True) if parts.query else []
    except ValueError:
        raise EngineConfigError("options must read ?helo=NAME&mailFrom=ADDRESS") from None
    options: dict[str, str] = {}
    for key, value in pairs:
        if key not in _OPTIONS or _OPTIONS[key] in options:
            raise EngineConfigError(f"unknown or repeated option {key!r} (helo and mailFrom are known)")
        options[_OPTIONS[key]] = parse_text(key, value)
    if "@" not in options.get("mail_from", "@"):
        raise EngineConfigError("mailFrom must be an address (local@domain)")
    return options.get("helo"), options.get("mail_from")


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
