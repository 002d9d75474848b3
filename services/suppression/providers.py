"""What each sending service's notification says, as its documentation describes the payload.

Only bounces and complaints are read; deliveries, opens and the like are acknowledged and ignored. Each
notice carries the provider's own id of the event, so a notification delivered twice is recorded once.

- Amazon SES (through SNS): ``notificationType`` (or, with event publishing, ``eventType``) ``Bounce``,
  ``bounceType`` ``Permanent`` is hard, ``Transient`` and ``Undetermined`` soft; ``Complaint``.
- SendGrid Event Webhook: ``bounce`` is hard unless its ``type`` is ``blocked`` (soft), ``deferred`` soft,
  ``spamreport`` a complaint.
- Postmark: ``RecordType`` ``Bounce`` with ``Type`` ``HardBounce`` or ``BadEmailAddress`` hard,
  ``SoftBounce``, ``Transient`` or ``DnsError`` soft; ``RecordType`` ``SpamComplaint``.
- Mailgun: ``failed`` with ``severity`` ``permanent`` hard, ``temporary`` soft; ``complained``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from core import clock
from models.suppression import BounceKind
from services.suppression.errors import BadNotification
from services.suppression.recording import Notice

POSTMARK_HARD = frozenset({"HardBounce", "BadEmailAddress"})
POSTMARK_SOFT = frozenset({"SoftBounce", "Transient", "DnsError"})


def ses(message: Mapping[str, Any], sns_message_id: str) -> list[Notice]:
    """The notices of one SES notification (the SNS ``Message``, parsed)."""
    kind = message.get("notificationType") or message.get("eventType")
    if kind == "Bounce":
        bounce = _object(message, "bounce")
        hard = bounce.get("bounceType") == "Permanent"
        return [
            Notice(
                _text(recipient, "emailAddress"),
                BounceKind.HARD if hard else BounceKind.SOFT,
                _instant(bounce.get("timestamp")),
                recipient.get("diagnosticCode") or recipient.get("status"),
                str(bounce.get("feedbackId") or sns_message_id),
            )
            for recipient in _list(bounce, "bouncedRecipients")
        ]
    if kind == "Complaint":
        complaint = _object(message, "complaint")
        return [
            Notice(
                _text(recipient, "emailAddress"),
                BounceKind.COMPLAINT,
                _instant(complaint.get("timestamp")),
                complaint.get("complaintFeedbackType"),
                str(complaint.get("feedbackId") or sns_message_id),
            )
            for recipient in _list(complaint, "complainedRecipients")
        ]
    return []


def sendgrid(events: object) -> list[Notice]:
    if not isinstance(events, list):
        raise BadNotification("A SendGrid Event Webhook body is a JSON array of events.", field="body")
    notices = []
    for event in events:
        kind = _sendgrid_kind(_mapping(event))
        if kind is not None:
            when = _epoch(_number(event, "timestamp"))
            diagnostic = event.get("reason") or event.get("response") or event.get("status")
            notices.append(Notice(_text(event, "email"), kind, when, diagnostic, event.get("sg_event_id")))
    return notices


def _sendgrid_kind(event: Mapping[str, Any]) -> BounceKind | None:
    name = event.get("event")
    if name == "bounce":
        return BounceKind.SOFT if event.get("type") == "blocked" else BounceKind.HARD
    return {"deferred": BounceKind.SOFT, "spamreport": BounceKind.COMPLAINT}.get(str(name))


def postmark(record: object) -> list[Notice]:
    body = _mapping(record)
    kind = _postmark_kind(body)
    if kind is None:
        return []
    when = _instant(body.get("BouncedAt"))
    diagnostic = body.get("Details") or body.get("Description")
    return [Notice(_text(body, "Email"), kind, when, diagnostic, str(body.get("ID") or "") or None)]


def _postmark_kind(body: Mapping[str, Any]) -> BounceKind | None:
    if body.get("RecordType") == "SpamComplaint":
        return BounceKind.COMPLAINT
    if body.get("RecordType") != "Bounce":
        return None
    kind = body.get("Type")
    if kind in POSTMARK_HARD:
        return BounceKind.HARD
    return BounceKind.SOFT if kind in POSTMARK_SOFT else None


def mailgun(event: Mapping[str, Any]) -> list[Notice]:
    """The notice of one Mailgun webhook's ``event-data``."""
    name, severity = event.get("event"), event.get("severity")
    if name == "complained":
        kind = BounceKind.COMPLAINT
    elif name == "failed":
        kind = BounceKind.HARD if severity == "permanent" else BounceKind.SOFT
    else:
        return []
    status = event.get("delivery-status")
    status = status if isinstance(status, dict) else {}
    diagnostic = status.get("description") or status.get("message") or status.get("code")
    when = _epoch(_number(event, "timestamp"))
    return [Notice(_text(event, "recipient"), kind, when, _str(diagnostic), event.get("id"))]


def _mapping(value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise BadNotification("The notification is not a JSON object where one was expected.", field="body")
    return value


def _object(parent: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = parent.get(name)
    if not isinstance(value, dict):
        raise BadNotification(f"The notification has no `{name}` object.", field=name)
    return value


def _list(parent: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    value = parent.get(name)
    if not isinstance(value, list):
        raise BadNotification(f"The notification has no `{name}` array.", field=name)
    return [_mapping(item) for item in value]


def _text(parent: Mapping[str, Any], name: str) -> str:
    value = parent.get(name)
    if not isinstance(value, str) or not value:
        raise BadNotification(f"The notification has no `{name}`.", field=name)
    return value


def _number(parent: Mapping[str, Any], name: str) -> float:
    value = parent.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadNotification(f"The notification's `{name}` is not a number.", field=name)
    return float(value)


def _epoch(seconds: float) -> datetime:
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise BadNotification(f"{seconds!r} is not a time.", field="timestamp") from None


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def _instant(value: object) -> datetime:
    """An ISO 8601 time as providers write it; now when absent."""
    if value in (None, ""):
        return clock.now()
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise BadNotification(f"{value!r} is not an ISO 8601 time.", field="timestamp") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
