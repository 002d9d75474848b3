"""Custom domains (spec 1): a reseller serves its customers under its own hostname once it proves it owns it.

Registering a hostname gives a DNS TXT record to publish, ``_domain-challenge.<hostname>`` holding a
random token; ``verify`` looks it up through the engine's own resolver (``DNS_NAMESERVERS``; never the
system's, so a lab or internal name cannot leak), with no cache, so a record published a second ago is
seen now. Several resellers may claim one hostname; the first to verify it owns it, and the others'
verification is refused. Requests are matched against verified rows on every request
(``services.links``), so deleting a domain stops its use at once.
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlsplit

import dns.rdatatype
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.audit import AuditEvent
from models.resellers import CustomDomain
from models.session import transaction
from services import audit
from services.auth import Actor
from services.errors import InvalidField, NotFound
from services.resellers.access import ensure_acting_reseller
from services.resellers.errors import DomainNotVerified, DomainTaken
from settings import get_settings
from verifier.config import EngineConfig
from verifier.dns.lookup import Found, make_resolver, query

CHALLENGE_LABEL = "_domain-challenge"
ID_PREFIX = "dom_"
LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


# Where records were published before the label stopped naming the service: still honoured, so domains
# verified then keep their proof without republishing.
LEGACY_CHALLENGE_LABEL = "_verimail-challenge"


def challenge_name(hostname: str) -> str:
    return f"{CHALLENGE_LABEL}.{hostname}"


def published(domain: CustomDomain) -> bool:
    """Whether DNS holds the domain's token now, under the current label or the one used before."""
    return any(
        domain.token in txt_values(f"{label}.{domain.hostname}")
        for label in (CHALLENGE_LABEL, LEGACY_CHALLENGE_LABEL)
    )


def add(actor: Actor, hostname: str) -> CustomDomain:
    """Register ``hostname`` (pending until verified) with a fresh challenge token."""
    ensure_acting_reseller(actor)
    name = normalise(hostname)
    with transaction() as session:
        if _verified_elsewhere(session, actor.account.id, name):
            raise DomainTaken(f"{name} is already verified by another account.")
        domain = CustomDomain(
            public_id=ID_PREFIX + secrets.token_hex(12),
            reseller_id=actor.account.id,
            hostname=name,
            token=secrets.token_urlsafe(32),
        )
        session.add(domain)
        try:
            session.flush()
        except IntegrityError:
            raise DomainTaken(f"You registered {name} already.") from None
        _audit(session, actor, AuditEvent.CUSTOM_DOMAIN_ADDED, domain)
        return domain


def list_all(actor: Actor) -> list[CustomDomain]:
    ensure_acting_reseller(actor)
    stmt = select(CustomDomain).where(CustomDomain.reseller_id == actor.account.id).order_by(CustomDomain.id)
    with transaction() as session:
        return list(session.scalars(stmt))


def get(actor: Actor, domain_id: str) -> CustomDomain:
    ensure_acting_reseller(actor)
    with transaction() as session:
        return _owned(session, actor, domain_id)


def delete(actor: Actor, domain_id: str) -> None:
    """Forget the domain: requests through it are no longer branded, links no longer use it."""
    ensure_acting_reseller(actor)
    with transaction() as session:
        domain = _owned(session, actor, domain_id)
        _audit(session, actor, AuditEvent.CUSTOM_DOMAIN_DELETED, domain)
        session.delete(domain)


def verify(actor: Actor, domain_id: str) -> CustomDomain:
    """Look the TXT challenge up now; verified on a match, else DOMAIN_NOT_VERIFIED with what DNS said."""
    ensure_acting_reseller(actor)
    with transaction() as session:
        domain = _owned(session, actor, domain_id)
    if domain.verified_at is not None:
        return domain
    if not published(domain):
        found = txt_values(challenge_name(domain.hostname))
        raise DomainNotVerified(
            f"The TXT record {challenge_name(domain.hostname)} does not hold the expected value yet; publish "
            "it and try again (DNS changes can take a few minutes to reach every server).",
            record=challenge(domain),
            found=found,
        )
    return _mark_verified(actor, domain_id)


def _mark_verified(actor: Actor, domain_id: str) -> CustomDomain:
    try:
        with transaction() as session:
            domain = _owned(session, actor, domain_id, lock=True)
            if domain.verified_at is None:
                domain.verified_at = clock.now()
                session.flush()
                _audit(session, actor, AuditEvent.CUSTOM_DOMAIN_VERIFIED, domain)
            return domain
    except IntegrityError:  # another reseller verified the same hostname first
        raise DomainTaken("This hostname was verified by another account first.") from None


def txt_values(name: str) -> list[str]:
    """The TXT strings at ``name`` through the engine's configured resolver; [] when none (or no answer)."""
    config = EngineConfig.from_env()
    lookup = query(make_resolver(config), name, dns.rdatatype.TXT, config.dns_timeout)
    if lookup.found is not Found.RECORDS:
        return []
    return ["".join(QUOTED.findall(text)) for text in lookup.values]


def challenge(domain: CustomDomain) -> dict[str, str]:
    """The record the reseller publishes."""
    return {"type": "TXT", "name": challenge_name(domain.hostname), "value": domain.token}


def normalise(hostname: str) -> str:
    """A lowercase DNS name of two labels or more that is not ours; anything else is a 400 on ``hostname``."""
    name = hostname.strip().lower().rstrip(".")
    labels = name.split(".")
    if len(name) > 253 or len(labels) < 2 or not all(LABEL.fullmatch(label) for label in labels):
        raise InvalidField("hostname", f"{hostname!r} is not a host name such as api.example.com.")
    if labels[-1].isdigit():
        raise InvalidField("hostname", "An IP address cannot be a custom domain; use a host name.")
    if name == urlsplit(get_settings().base_url).hostname:
        raise InvalidField("hostname", f"{name} is the service's own host name.")
    return name


def _verified_elsewhere(session: Session, reseller_id: int, hostname: str) -> bool:
    stmt = select(CustomDomain.id).where(
        CustomDomain.hostname == hostname,
        CustomDomain.verified_at.is_not(None),
        CustomDomain.reseller_id != reseller_id,
    )
    return session.scalar(stmt) is not None


def _owned(session: Session, actor: Actor, domain_id: str, *, lock: bool = False) -> CustomDomain:
    stmt = select(CustomDomain).where(
        CustomDomain.public_id == domain_id, CustomDomain.reseller_id == actor.account.id
    )
    domain = session.scalars(stmt.with_for_update() if lock else stmt).one_or_none()
    if domain is None:
        raise NotFound(f"No custom domain with id {domain_id}.")
    return domain


def _audit(session: Session, actor: Actor, event: AuditEvent, domain: CustomDomain) -> None:
    audit.record(
        event,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"domainId": domain.public_id, "hostname": domain.hostname},
        session=session,
    )
