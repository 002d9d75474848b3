"""Outbound email through a real SMTP server: what arrives, what the database records, retries, refusals."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select

from core import clock
from models.mail import MailStatus, OutboundMail
from models.session import transaction
from services.mail import outbox
from tests.mail.mailbox import Mailbox, point_mail_at
from tests.processes import free_port


def queue_one(subject: str = "Hello") -> tuple[int, str]:
    recipient = f"owner-{secrets.token_hex(4)}@example.com"
    draft = outbox.Draft(recipient, subject, "Plain words.\n", "<p>Plain <strong>words</strong>.</p>")
    with transaction() as session:
        return outbox.queue(session, None, draft).id, recipient


def row(mail_id: int) -> OutboundMail:
    with transaction() as session:
        return session.scalars(select(OutboundMail).where(OutboundMail.id == mail_id)).one()


def test_a_queued_email_arrives_with_a_text_and_an_html_part(mailbox: Mailbox, database_url: str) -> None:
    mail_id, recipient = queue_one("Your key")

    outbox.send_due()

    [received] = mailbox.to(recipient)
    assert received.message["Subject"] == "Your key"
    assert received.message["To"] == recipient
    assert received.message["Message-ID"] == row(mail_id).message_id
    assert received.message.get_content_type() == "multipart/alternative"
    assert received.text() == "Plain words.\n"
    assert "<strong>words</strong>" in received.html()
    recorded = row(mail_id)
    assert (recorded.status, recorded.attempts, recorded.last_error) == (MailStatus.SENT, 1, None)
    assert recorded.sent_at is not None


def test_sending_again_does_not_send_twice(mailbox: Mailbox, database_url: str) -> None:
    _, recipient = queue_one()

    outbox.send_due()
    outbox.send_due()

    assert len(mailbox.to(recipient)) == 1


def test_a_permanent_refusal_fails_the_email_without_retrying(mailbox: Mailbox, database_url: str) -> None:
    mailbox.refuse_rcpt = "550 5.1.1 No such mailbox"
    mail_id, recipient = queue_one()

    outbox.send_due()

    recorded = row(mail_id)
    assert (recorded.status, recorded.attempts, recorded.next_attempt_at) == (MailStatus.FAILED, 1, None)
    assert "550" in (recorded.last_error or "")
    assert mailbox.to(recipient) == []


def test_a_temporary_refusal_is_retried_after_the_backoff(
    mailbox: Mailbox, database_url: str, frozen_clock: None
) -> None:
    mailbox.refuse_rcpt = "451 4.3.0 Try again later"
    mail_id, recipient = queue_one()

    outbox.send_due()
    queued = row(mail_id)
    assert (queued.status, queued.attempts) == (MailStatus.QUEUED, 1)
    assert queued.next_attempt_at == clock.now() + outbox.RETRY_DELAYS[0]
    assert "451" in (queued.last_error or "")

    mailbox.refuse_rcpt = None
    outbox.send_due()  # not due yet
    assert mailbox.to(recipient) == []
    clock.move(outbox.RETRY_DELAYS[0])
    outbox.send_due()

    assert len(mailbox.to(recipient)) == 1
    sent = row(mail_id)
    assert (sent.status, sent.attempts, sent.last_error) == (MailStatus.SENT, 2, None)


def test_an_unreachable_relay_is_retried_until_the_last_attempt_then_failed(
    monkeypatch, database_url: str, frozen_clock: None
) -> None:
    point_mail_at(monkeypatch, f"smtp://127.0.0.1:{free_port()}")
    mail_id, _ = queue_one()

    for delay in (*outbox.RETRY_DELAYS, timedelta(0)):
        outbox.send_due()
        clock.move(delay)

    failed = row(mail_id)
    assert (failed.status, failed.attempts) == (MailStatus.FAILED, outbox.MAX_SEND_ATTEMPTS)
    assert "ConnectionRefusedError" in (failed.last_error or "")


def test_an_unsendable_email_fails_at_once_and_does_not_block_the_queue(
    mailbox: Mailbox, database_url: str
) -> None:
    injected = outbox.Draft("owner@example.com\r\nBcc: thief@example.net", "Hi", "text\n", "<p>html</p>")
    with transaction() as session:
        bad_id = outbox.queue(session, None, injected).id
    good_id, recipient = queue_one()

    outbox.send_due()

    bad = row(bad_id)
    assert (bad.status, bad.attempts) == (MailStatus.FAILED, 1)
    assert (bad.last_error or "").startswith("unsendable")
    assert row(good_id).status == MailStatus.SENT
    assert len(mailbox.to(recipient)) == 1
    assert mailbox.to("thief@example.net") == []
