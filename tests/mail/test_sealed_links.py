"""A password-reset link is a credential: the outbox row never holds it in clear, the message that reaches
the relay does, and once sent nothing of it is kept."""

from __future__ import annotations

import re

from sqlalchemy import select

from models.mail import MailStatus, OutboundMail
from models.session import transaction
from services import audit
from services.mail import outbox
from services.users import reset
from tests.fixtures.db import open_owner
from tests.mail.mailbox import Mailbox

LINK = re.compile(r"/dashboard/reset-password/([A-Za-z0-9_-]{20,})")


def stored(recipient: str) -> OutboundMail:
    with transaction() as session:
        return session.scalars(select(OutboundMail).where(OutboundMail.recipient == recipient)).one()


def test_a_reset_link_is_sealed_at_rest_delivered_whole_and_forgotten_once_sent(
    mailbox: Mailbox, database_url: str
) -> None:
    email = open_owner("correct horse battery")
    reset.request_reset(email, audit.Origin(ip="192.0.2.1"))

    queued = stored(email)
    assert not LINK.search(queued.text_body + queued.html_body)
    assert queued.sealed_values is not None

    outbox.send_due()

    [received] = mailbox.to(email)
    token = LINK.search(received.text())
    assert token is not None
    assert f"/dashboard/reset-password/{token[1]}" in received.html()
    reset.check_link(token[1])  # the link that arrived is the one the service will accept
    sent = stored(email)
    assert sent.status == MailStatus.SENT
    assert (sent.sealed_nonce, sent.sealed_values) == (None, None)
    assert token[1] not in sent.text_body + sent.html_body
