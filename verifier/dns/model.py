"""What DNS says about a mail domain, as the rest of the engine needs it (spec 2.2 ``domain`` check).

The status separates "this domain cannot receive mail" (NXDOMAIN, null MX, no mail hosts) from "we could
not find out" (timeout, SERVFAIL): only the first may ever make an address invalid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class DomainStatus(StrEnum):
    """The mail-relevant state of a domain."""

    ACCEPTS_MAIL = "accepts_mail"  # at least one MX host (or the implicit host) has an address
    NULL_MX = "null_mx"  # RFC 7505 "MX 0 .": the domain declares it accepts no mail
    NO_MAIL_HOSTS = (
        "no_mail_hosts"  # the name exists but has no MX and no address, or MX hosts do not resolve
    )
    NXDOMAIN = "nxdomain"  # the domain does not exist
    UNKNOWN = "unknown"  # timeout, SERVFAIL, refused: no conclusion may be drawn

    @property
    def is_definitive_no(self) -> bool:
        """True when DNS proves no mail can be delivered (an invalid verdict is justified)."""
        return self in (DomainStatus.NULL_MX, DomainStatus.NO_MAIL_HOSTS, DomainStatus.NXDOMAIN)


@dataclass(frozen=True, slots=True)
class MxRecord:
    """One mail host: preference, ASCII host name without trailing dot, its addresses (IPv4 first)."""

    preference: int
    host: str
    addresses: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"preference": self.preference, "host": self.host, "addresses": list(self.addresses)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MxRecord:
        return cls(int(data["preference"]), str(data["host"]), tuple(data["addresses"]))


@dataclass(frozen=True, slots=True)
class MailDomain:
    """The resolved mail routing of one ASCII domain.

    ``mx_records`` is ordered by preference (then host name, for stable output). For an implicit MX
    (RFC 5321 5.1: no MX, but A/AAAA) it holds the domain itself with preference 0 and ``implicit_mx``
    is set; ``has_mx`` stays False because the domain published no MX record.
    """

    domain: str
    status: DomainStatus
    mx_records: tuple[MxRecord, ...] = ()
    implicit_mx: bool = False
    ttl: int = 0
    detail: str = ""

    @property
    def accepts_mail(self) -> bool:
        return self.status is DomainStatus.ACCEPTS_MAIL

    @property
    def has_mx(self) -> bool:
        """Spec ``domain.metadata.hasMX``: the domain publishes usable MX records."""
        return bool(self.mx_records) and not self.implicit_mx and self.status is not DomainStatus.NULL_MX

    @property
    def mx_hosts(self) -> list[str]:
        """Spec ``domain.metadata.mxRecords``: explicit MX host names in preference order."""
        return [record.host for record in self.mx_records] if self.has_mx else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "status": self.status.value,
            "mxRecords": [record.to_dict() for record in self.mx_records],
            "implicitMx": self.implicit_mx,
            "ttl": self.ttl,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MailDomain:
        return cls(
            domain=str(data["domain"]),
            status=DomainStatus(data["status"]),
            mx_records=tuple(MxRecord.from_dict(item) for item in data["mxRecords"]),
            implicit_mx=bool(data["implicitMx"]),
            ttl=int(data["ttl"]),
            detail=str(data["detail"]),
        )
