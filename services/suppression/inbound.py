"""One notification received at an inbound source: authenticated, checked, read, recorded; or refused and
audited.

Order: the source (unknown or revoked: refused), its secret (basic auth or bearer, constant time), then
the provider's own signature where it signs (SNS certificate, SendGrid ECDSA, Mailgun HMAC), and only
then the body is read. Every refusal is written to the account's audit log (``inbound.refused``, with the
reason; an unknown source's to the operators' trail) before the 401. A replayed genuine request is
harmless: recording is idempotent per provider event id (``recording``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import select

from models.audit import AuditEvent
from models.session import transaction
from models.suppression import BounceKind, InboundSource, SourceKind
from services import audit
from services.suppression import providers, sns, sources
from services.suppression.errors import BadNotification, InboundRefused
from services.suppression.recording import Notice, Origin, record
from services.suppression.rows import Read, read_csv, read_json

SENDGRID_SIGNATURE = "x-twilio-email-event-webhook-signature"
SENDGRID_TIMESTAMP = "x-twilio-email-event-webhook-timestamp"


@dataclass(frozen=True)
class Delivery:
    """A request as it arrived: which source it names, the secret it presented, headers (names in
    lowercase), raw body."""

    public_id: str
    secret: str | None = field(repr=False)
    headers: Mapping[str, str]
    body: bytes
    content_type: str
    origin: audit.Origin


@dataclass(frozen=True)
class Received:
    source: str
    kind: str
    counts: Counter[str]
    refused: Read | None = None  # an upload's rows that could not be read
    subscription: bool = False  # an SNS subscription confirmation: the owner confirms it from the dashboard


def receive(delivery: Delivery) -> Received:
    """Record ``delivery``'s bounces and complaints (see the module docstring)."""
    source = _authenticated(delivery)
    try:
        return _received(source, delivery)
    except InboundRefused as refusal:
        _audit_refusal(delivery, source, refusal)
        raise


def _authenticated(delivery: Delivery) -> InboundSource:
    source = None
    if sources.is_source_id(delivery.public_id):
        with transaction() as session:
            source = session.scalars(
                select(InboundSource).where(InboundSource.public_id == delivery.public_id)
            ).one_or_none()
    if source is None or (reason := _refusal(source, delivery)) is not None:
        refusal = _refused("unknown_source" if source is None else reason or "")
        _audit_refusal(delivery, source, refusal)
        raise refusal
    return source


def _refusal(source: InboundSource, delivery: Delivery) -> str | None:
    if source.revoked_at is not None:
        return "revoked"
    if not sources.secret_matches(source, delivery.secret):
        return "secret"
    return None


def _refused(reason: str) -> InboundRefused:
    return InboundRefused(
        "This inbound source does not accept the request: the source is unknown or revoked, or the secret "
        "or the provider's signature is missing or wrong. Copy the URL with its secret from the dashboard "
        "when you create a source.",
        reason=reason,
    )


def _received(source: InboundSource, delivery: Delivery) -> Received:
    kind = SourceKind(source.kind)
    if kind is SourceKind.SES:
        return _ses(source, delivery)
    if kind is SourceKind.UPLOAD:
        return _upload(source, delivery)
    reader = {SourceKind.SENDGRID: _sendgrid, SourceKind.POSTMARK: _postmark, SourceKind.MAILGUN: _mailgun}
    return _recorded(source, reader[kind](source, delivery))


def _recorded(source: InboundSource, notices: list[Notice], refused: Read | None = None) -> Received:
    origin = Origin(source.account_id, source.livemode, source.kind, source.id)
    with transaction() as session:
        counts = record(session, origin, notices)
    return Received(source.public_id, source.kind, counts, refused)


def _ses(source: InboundSource, delivery: Delivery) -> Received:
    message = _mapping(_json(delivery.body))
    sns.verify(message)
    topic = str(message.get("TopicArn") or "")
    if source.topic_arn is not None and not hmac.compare_digest(topic, source.topic_arn):
        raise InboundRefused("This source accepts another SNS topic.", reason="topic")
    if message.get("Type") == "SubscriptionConfirmation":
        _pin(source, topic, message.get("SubscribeURL"))
        return Received(source.public_id, source.kind, Counter(), subscription=True)
    if message.get("Type") != "Notification":
        return Received(source.public_id, source.kind, Counter())
    if source.topic_arn is None:
        _pin(source, topic, None)
    inner = _mapping(_json(str(message.get("Message", "")).encode()))
    return _recorded(source, providers.ses(inner, str(message.get("MessageId", ""))))


def _pin(source: InboundSource, topic: str, confirm_url: object) -> None:
    """The first verified message names the one topic this source accepts from then on."""
    with transaction() as session:
        row = session.get_one(InboundSource, source.id, with_for_update=True)
        row.topic_arn = row.topic_arn or topic
        if sns.is_sns_url(confirm_url):
            row.confirm_url = str(confirm_url)


def _sendgrid(source: InboundSource, delivery: Delivery) -> list[Notice]:
    key = sources.verification_key(source.verification_key or "")
    signature, timestamp = delivery.headers.get(SENDGRID_SIGNATURE), delivery.headers.get(SENDGRID_TIMESTAMP)
    if not signature or not timestamp:
        raise InboundRefused("The SendGrid signature headers are missing.", reason="signature")
    try:
        key.verify(
            base64.b64decode(signature, validate=True),
            timestamp.encode() + delivery.body,
            ec.ECDSA(hashes.SHA256()),
        )
    except (InvalidSignature, binascii.Error, ValueError):
        raise InboundRefused("The SendGrid signature does not match the body.", reason="signature") from None
    return providers.sendgrid(_json(delivery.body))


def _postmark(_: InboundSource, delivery: Delivery) -> list[Notice]:
    """Postmark does not sign its webhooks; it sends the basic-auth credentials of the URL, checked above."""
    return providers.postmark(_json(delivery.body))


def _mailgun(source: InboundSource, delivery: Delivery) -> list[Notice]:
    body = _mapping(_json(delivery.body))
    signed = body.get("signature")
    signed = signed if isinstance(signed, dict) else {}
    key = sources.signing_key(source)
    text = f"{signed.get('timestamp', '')}{signed.get('token', '')}".encode()
    expected = hmac.new(key or b"", text, hashlib.sha256).hexdigest()
    if key is None or not hmac.compare_digest(expected, str(signed.get("signature", ""))):
        raise InboundRefused("The Mailgun signature does not match.", reason="signature")
    return providers.mailgun(_mapping(body.get("event-data")))


def _upload(source: InboundSource, delivery: Delivery) -> Received:
    if delivery.content_type.startswith("text/csv"):
        read = read_csv(delivery.body.decode("utf-8-sig", errors="replace"), BounceKind.HARD)
    else:
        read = read_json(_json(delivery.body), BounceKind.HARD)
    return _recorded(source, read.notices, read)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadNotification("The body is not JSON.", field="body") from None


def _mapping(value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise BadNotification("The body is not a JSON object.", field="body")
    return value


def _audit_refusal(delivery: Delivery, source: InboundSource | None, refusal: InboundRefused) -> None:
    audit.record(
        AuditEvent.INBOUND_REFUSED,
        account_id=None if source is None else source.account_id,
        origin=delivery.origin,
        details={"sourceId": delivery.public_id, "reason": refusal.reason},
        livemode=True if source is None else source.livemode,
    )
