"""Custom domain bodies: the hostname to register; the domain with its DNS challenge and status."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from models.resellers import CustomDomain
from services.resellers import custom_domains
from web.schemas.base import Body, Out, Timestamp
from web.schemas.inputs import DOMAIN_PATTERN, patterned


class AddDomainBody(Body):
    hostname: Annotated[
        str,
        *patterned(
            DOMAIN_PATTERN,
            "{field} must be a host name such as api.example.com (not an IP address).",
            max_length=253,
        ),
    ]


class ChallengeOut(Out):
    """The DNS record to publish before calling verify."""

    type: str = Field(description="TXT")
    name: str = Field(description="_domain-challenge.<hostname>")
    value: str


class CustomDomainOut(Out):
    """A hostname of yours; once verified, requests to it are served under your brand and links use it."""

    id: str
    hostname: str
    status: str = Field(description="pending or verified")
    verification: ChallengeOut
    verified_at: Timestamp | None
    created_at: Timestamp

    @classmethod
    def of(cls, domain: CustomDomain) -> CustomDomainOut:
        return cls(
            id=domain.public_id,
            hostname=domain.hostname,
            status="verified" if domain.verified_at is not None else "pending",
            verification=ChallengeOut(**custom_domains.challenge(domain)),
            verified_at=domain.verified_at,
            created_at=domain.created_at,
        )


class CustomDomainListOut(Out):
    data: list[CustomDomainOut]


class DeletedDomainOut(Out):
    id: str
    deleted: bool = True
