"""The outbound SMTP relay: ``MAIL_SMTP_URL`` parsed strictly, one message handed over per call.

URL forms (credentials percent-encoded in the user-info part):

- ``smtps://user:pass@relay.example:465``: TLS from the first byte (implicit TLS, default port 465);
- ``smtp://user:pass@relay.example:587?starttls=true``: plain connection upgraded with STARTTLS, which
  is then required (a relay that does not offer it is an error, never a silent downgrade);
- ``smtp://127.0.0.1:1025``: plain SMTP, default port 25.

Credentials over a plain connection are refused unless the relay is on loopback (a local MTA or a test
server): a password must not cross a network in clear. Certificates are checked with the relay's host
name against ``MAIL_CA_BUNDLE`` when set (a relay with a private CA), else the system's trust store.

Errors are sorted for the retry logic: ``PermanentFailure`` when the relay answered 5xx to this message
(sender, recipient or content refused: sending again would be refused again), ``TemporaryFailure`` for
everything else (connection, TLS, authentication, 4xx), which the sweeper retries later.
"""

from __future__ import annotations

import ipaddress
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from services.mail.errors import PermanentFailure, TemporaryFailure
from settings import ConfigError
from verifier.config import parse_bool

Security = Literal["plain", "starttls", "tls"]
TIMEOUT_SECONDS = 30.0
DEFAULT_PORTS = {"smtp": 25, "smtps": 465}


@dataclass(frozen=True)
class Relay:
    host: str
    port: int
    security: Security
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_bundle: str | None = None  # MAIL_CA_BUNDLE; None: the system trust store

    @classmethod
    def from_url(cls, url: str, ca_bundle: str | None = None) -> Relay:
        """Parse ``MAIL_SMTP_URL``; ``ConfigError`` for anything not exactly one of the documented forms."""
        parts = urlsplit(url.strip())
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
            raise ConfigError(f"MAIL_SMTP_URL must be smtp://host[:port] or smtps://host[:port], got {url!r}")
        try:
            port = parts.port or DEFAULT_PORTS[parts.scheme]
        except ValueError:
            raise ConfigError(f"MAIL_SMTP_URL has an invalid port: {url!r}") from None
        relay = cls(
            host=parts.hostname,
            port=port,
            security="tls" if parts.scheme == "smtps" else _plain_or_starttls(parts.query),
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None,
            ca_bundle=ca_bundle,
        )
        relay.check_credentials_travel_safely()
        return relay

    def check_credentials_travel_safely(self) -> None:
        if self.username and self.security == "plain" and not _is_loopback(self.host):
            raise ConfigError(
                "MAIL_SMTP_URL sends credentials over a plain connection; use smtps:// or ?starttls=true"
            )


def _plain_or_starttls(query: str) -> Security:
    options = parse_qs(query, keep_blank_values=True)
    unknown = set(options) - {"starttls"}
    if unknown:
        raise ConfigError(f"MAIL_SMTP_URL: unknown option(s) {sorted(unknown)}; only starttls is known")
    starttls = parse_bool("MAIL_SMTP_URL starttls", options.get("starttls", ["false"])[-1])
    return "starttls" if starttls else "plain"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def transmit(relay: Relay, message: EmailMessage) -> None:
    """Hand ``message`` to the relay; returns once the relay accepted it for every recipient."""
    try:
        with _connect(relay) as smtp:
            if relay.username:
                smtp.login(relay.username, relay.password or "")
            refused = smtp.send_message(message)
    except smtplib.SMTPRecipientsRefused as error:
        _raise_for_codes([code for code, _ in error.recipients.values()], str(error.recipients))
    except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as error:
        _raise_for_codes([error.smtp_code], f"{error.smtp_code} {error.smtp_error!r}")
    except (smtplib.SMTPException, OSError) as error:  # connection, TLS, auth, timeouts, 4xx
        raise TemporaryFailure(f"{type(error).__name__}: {error}") from error
    if refused:  # some recipients refused, others accepted: we send one recipient per message
        _raise_for_codes([code for code, _ in refused.values()], str(refused))


def _raise_for_codes(codes: list[int], detail: str) -> None:
    if codes and all(code >= 500 for code in codes):
        raise PermanentFailure(detail)
    raise TemporaryFailure(detail)


def _connect(relay: Relay) -> smtplib.SMTP:
    context = ssl.create_default_context(cafile=relay.ca_bundle)
    if relay.security == "tls":
        return smtplib.SMTP_SSL(relay.host, relay.port, timeout=TIMEOUT_SECONDS, context=context)
    smtp = smtplib.SMTP(relay.host, relay.port, timeout=TIMEOUT_SECONDS)
    if relay.security == "starttls":
        try:
            smtp.starttls(context=context)  # raises SMTPNotSupportedError if not offered: no downgrade
        except BaseException:
            smtp.close()
            raise
    return smtp
