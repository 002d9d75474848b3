"""Inbound sources: one signed endpoint per sending service, its secret shown once, revocable.

Every request to a source carries its secret as the password of HTTP basic auth (the form each provider's
webhook URL accepts: ``https://inbound:<secret>@host/inbound/<id>``) or as a bearer token (uploads); the
secret is kept only as its SHA-256 and compared in constant time. Where the provider signs its requests,
the signature is checked as well (``services.suppression.inbound``): SendGrid's verification key (a public
key) is kept as given, Mailgun's signing key sealed (it must be read back to check an HMAC).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_der_public_key, load_pem_public_key
from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.session import transaction
from models.suppression import InboundSource, SourceKind
from services import audit, links, sealing
from services.auth import Actor
from services.errors import InvalidField, NotFound
from services.suppression.errors import SourceLimitReached

MAX_SOURCES = 20
SECRET_PREFIX = "isec_"  # noqa: S105 - the public prefix of every source secret, not a secret
ID_PREFIX = "src_"
PUBLIC_ID = re.compile(r"src_[0-9a-f]{24}")


@dataclass(frozen=True)
class SourceWithSecret:
    source: InboundSource
    secret: str = field(repr=False)

    @property
    def url_with_secret(self) -> str:
        return links.inbound_url(self.source.public_id, self.secret)


@dataclass(frozen=True)
class SourceSpec:
    kind: SourceKind
    name: str
    verification_key: str | None = None  # SendGrid
    signing_key: str | None = field(default=None, repr=False)  # Mailgun


def create(actor: Actor, spec: SourceSpec) -> SourceWithSecret:
    """A new source of ``spec.kind``; its secret is in the answer and nowhere else."""
    _check_keys(spec)
    secret, public_id = SECRET_PREFIX + secrets.token_urlsafe(32), ID_PREFIX + secrets.token_hex(12)
    source = InboundSource(
        public_id=public_id,
        account_id=actor.account.id,
        livemode=actor.livemode,
        kind=spec.kind.value,
        name=spec.name,
        secret_hash=hash_secret(secret),
        secret_hint=secret[-4:],
        verification_key=spec.verification_key,
    )
    if spec.signing_key is not None:
        nonce, sealed = sealing.seal(spec.signing_key.encode(), public_id.encode())
        source.signing_key_nonce, source.signing_key_sealed = nonce, sealed
    with transaction() as session:
        session.get_one(Account, actor.account.id, with_for_update=True)  # one creation at a time
        if _count(session, actor) >= MAX_SOURCES:
            raise SourceLimitReached(MAX_SOURCES)
        session.add(source)
        session.flush()
        _audit(session, actor, AuditEvent.INBOUND_SOURCE_CREATED, source)
    return SourceWithSecret(source, secret)


def list_sources(actor: Actor) -> list[InboundSource]:
    with transaction() as session:
        return list(session.scalars(_owned(actor).order_by(InboundSource.id.desc())))


def get(actor: Actor, public_id: str) -> InboundSource:
    with transaction() as session:
        return _one(session, actor, public_id)


def revoke(actor: Actor, public_id: str) -> InboundSource:
    """Stop accepting anything for the source at once (its history stays); revoking twice changes nothing."""
    with transaction() as session:
        source = _one(session, actor, public_id)
        if source.revoked_at is None:
            source.revoked_at = clock.now()
            _audit(session, actor, AuditEvent.INBOUND_SOURCE_REVOKED, source)
        return source


def is_source_id(text: str) -> bool:
    """Is ``text`` shaped like a source id? Anything else (a NUL, which Postgres refuses) is unknown."""
    return PUBLIC_ID.fullmatch(text) is not None


def _one(session: Session, actor: Actor, public_id: str) -> InboundSource:
    source = None
    if is_source_id(public_id):
        source = session.scalars(_owned(actor).where(InboundSource.public_id == public_id)).one_or_none()
    if source is None:
        raise NotFound(f"No inbound source {public_id!r} in this account.")
    return source


def hash_secret(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def secret_matches(source: InboundSource, presented: str | None) -> bool:
    """Constant-time comparison of the presented secret's hash with the stored one."""
    return presented is not None and hmac.compare_digest(hash_secret(presented), source.secret_hash)


def signing_key(source: InboundSource) -> bytes | None:
    if source.signing_key_nonce is None or source.signing_key_sealed is None:
        return None
    return sealing.unseal(source.signing_key_nonce, source.signing_key_sealed, source.public_id.encode())


def verification_key(text: str) -> ec.EllipticCurvePublicKey:
    """SendGrid's verification key as its settings page shows it (base64 DER), or PEM."""
    try:
        key = (
            load_pem_public_key(text.encode())
            if text.lstrip().startswith("-----")
            else load_der_public_key(base64.b64decode(text, validate=True))
        )
    except (ValueError, binascii.Error, TypeError):
        raise InvalidField("verificationKey", "verificationKey is not a public key SendGrid shows.") from None
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise InvalidField("verificationKey", "verificationKey must be SendGrid's ECDSA P-256 public key.")
    return key


def _check_keys(spec: SourceSpec) -> None:
    if spec.kind is SourceKind.SENDGRID:
        if not spec.verification_key:
            raise InvalidField(
                "verificationKey", "A SendGrid source needs its Event Webhook verification key."
            )
        verification_key(spec.verification_key)
    elif spec.verification_key:
        raise InvalidField("verificationKey", "Only a SendGrid source takes a verificationKey.")
    if spec.kind is SourceKind.MAILGUN and not spec.signing_key:
        raise InvalidField("signingKey", "A Mailgun source needs its HTTP webhook signing key.")
    if spec.kind is not SourceKind.MAILGUN and spec.signing_key:
        raise InvalidField("signingKey", "Only a Mailgun source takes a signingKey.")


def _owned(actor: Actor) -> Select[InboundSource]:
    return select(InboundSource).where(
        InboundSource.account_id == actor.account.id, InboundSource.livemode == actor.livemode
    )


def _count(session: Session, actor: Actor) -> int:
    query = (
        select(func.count())
        .select_from(InboundSource)
        .where(
            InboundSource.account_id == actor.account.id,
            InboundSource.livemode == actor.livemode,
            InboundSource.revoked_at.is_(None),
        )
    )
    return int(session.scalar(query) or 0)


def _audit(session: Session, actor: Actor, event: AuditEvent, source: InboundSource) -> None:
    audit.record(
        event,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"sourceId": source.public_id, "kind": source.kind, "name": source.name},
        session=session,
        livemode=actor.livemode,
    )
