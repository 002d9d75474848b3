"""Outbound email: ``queue`` in the caller's transaction, ``send_due`` after commit, retried on a schedule.

Every message the service sends goes through here, so every one is recorded in ``outbound_mail``:
queued, then sent or failed, with its attempts counted and the last error kept. ``queue`` only writes a
row: a rollback takes the email away with the change it reports, and nothing is sent for a change that
did not happen. ``send_due`` (run by the beat sweeper after its own transactions committed) takes one
due row at a time with ``SELECT ... FOR UPDATE SKIP LOCKED`` and holds that lock while it talks to the
relay, so two sweepers at once never send the same message.

Trade-offs accepted: a transaction stays open while the relay answers (at most the 30 s timeout), one
pooled connection per concurrent send. If the process dies after the relay accepted a message but before
the commit, the message is sent again on the next sweep (at-least-once); it carries the same Message-ID,
which mail clients use to fold duplicates.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid, parseaddr
from html import escape

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.mail import MailStatus, OutboundMail
from services import sealing
from services.due_work import work_through_due
from services.mail.errors import PermanentFailure, TemporaryFailure
from services.mail.relay import Relay, transmit
from settings import get_settings

# The delay before attempt N+1 (attempt 1 is as soon as a sweeper runs); five attempts over about 15 hours.
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=12),
)
MAX_SEND_ATTEMPTS = len(RETRY_DELAYS) + 1
SEND_LIMIT = 100
ERROR_MAX = 1000


@dataclass(frozen=True)
class Draft:
    """One email to one person, already rendered: plain text for every client, HTML for those that show it.

    ``sender`` is the From header when it must not be MAIL_FROM (a white-labelled account's reseller)."""

    recipient: str
    subject: str
    text: str
    html: str
    sender: str | None = None
    # Placeholder -> value for what the bodies must not hold at rest (a link with a token): sealed in the
    # row, put in place only in the message handed to the relay, dropped once it was sent or given up on.
    sealed: Mapping[str, str] = field(default_factory=dict)


def queue(session: Session, account_id: int | None, draft: Draft) -> OutboundMail:
    """Record ``draft`` for sending once the caller's transaction commits."""
    mail = OutboundMail(
        account_id=account_id,
        recipient=draft.recipient,
        sender=draft.sender,
        subject=draft.subject,
        text_body=draft.text,
        html_body=draft.html,
        message_id=make_msgid(domain=_sender_domain(draft.sender or get_settings().mail_from)),
        status=MailStatus.QUEUED.value,
        attempts=0,
        max_attempts=MAX_SEND_ATTEMPTS,
        next_attempt_at=clock.now(),
    )
    if draft.sealed:
        plain = json.dumps(dict(draft.sealed)).encode()
        mail.sealed_nonce, mail.sealed_values = sealing.seal(plain, _bound_to(mail.message_id))
    session.add(mail)
    session.flush()
    return mail


def send_due(*, limit: int = SEND_LIMIT) -> int:
    """Make one attempt for each queued message that is due; returns how many attempts were made."""
    settings = get_settings()
    relay = Relay.from_url(settings.mail_smtp_url, settings.mail_ca_bundle)
    return work_through_due(_lock_next_due, lambda _session, mail: attempt(mail, relay), limit=limit)


def _lock_next_due(session: Session) -> OutboundMail | None:
    stmt = (
        select(OutboundMail)
        .where(OutboundMail.status == MailStatus.QUEUED.value, OutboundMail.next_attempt_at <= clock.now())
        .order_by(OutboundMail.next_attempt_at, OutboundMail.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    return session.scalars(stmt).one_or_none()


def attempt(mail: OutboundMail, relay: Relay) -> None:
    """Send ``mail`` once (the caller holds its row lock) and record the outcome on the row."""
    mail.attempts += 1
    try:
        message = build_message(mail)
    except (ValueError, TypeError) as error:  # e.g. a header the email package refuses: never sendable
        _give_up(mail, f"unsendable: {error}")
        return
    try:
        transmit(relay, message)
    except PermanentFailure as error:
        _give_up(mail, f"refused: {error}")
    except TemporaryFailure as error:
        _retry_or_give_up(mail, str(error))
    else:
        mail.status, mail.sent_at, mail.next_attempt_at, mail.last_error = (
            MailStatus.SENT.value,
            clock.now(),
            None,
            None,
        )
        _drop_sealed(mail)


def _retry_or_give_up(mail: OutboundMail, error: str) -> None:
    if mail.attempts >= mail.max_attempts:
        _give_up(mail, error)
        return
    mail.last_error = error[:ERROR_MAX]
    mail.next_attempt_at = clock.now() + RETRY_DELAYS[mail.attempts - 1]


def _give_up(mail: OutboundMail, error: str) -> None:
    mail.status, mail.next_attempt_at, mail.last_error = MailStatus.FAILED.value, None, error[:ERROR_MAX]
    _drop_sealed(mail)


def _drop_sealed(mail: OutboundMail) -> None:
    mail.sealed_nonce = mail.sealed_values = None


def _opened(mail: OutboundMail) -> dict[str, str]:
    """The sealed values of ``mail`` (none: an empty mapping); ``ValueError`` when they cannot be opened
    (sealed under a KEY_SEALING_KEY since replaced): such a message can never be sent as written."""
    if mail.sealed_nonce is None or mail.sealed_values is None:
        return {}
    plain = sealing.unseal(mail.sealed_nonce, mail.sealed_values, _bound_to(mail.message_id))
    if plain is None:
        raise ValueError("its sealed link cannot be opened with the current KEY_SEALING_KEY")
    opened: dict[str, str] = json.loads(plain)
    return opened


def _bound_to(message_id: str) -> bytes:
    return f"verimail sealed mail:{message_id}".encode()


def build_message(mail: OutboundMail) -> EmailMessage:
    """The MIME message: multipart/alternative, text first (the fallback) and HTML second (preferred)."""
    message = EmailMessage()
    message["From"] = mail.sender or get_settings().mail_from
    message["To"] = mail.recipient
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(mail.queued_at)
    message["Message-ID"] = mail.message_id
    values = _opened(mail)
    message.set_content(_filled(mail.text_body, values, html=False))
    message.add_alternative(_filled(mail.html_body, values, html=True), subtype="html")
    return message


def _filled(body: str, values: Mapping[str, str], *, html: bool) -> str:
    for placeholder, value in values.items():
        body = body.replace(placeholder, escape(value) if html else value)
    return body


def _sender_domain(sender: str) -> str:
    """The Message-ID's domain is the sender's own, so it names whoever the From header names."""
    address = parseaddr(sender)[1]
    return address.rpartition("@")[2] or "localhost"
