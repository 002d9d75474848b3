"""Each milestone emails once, however often and however concurrently the task runs (several beat hosts)."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlalchemy import func, select

from models.keys import RotationNotice
from models.mail import MailStatus, OutboundMail
from models.session import transaction
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, mail_about, sweep, sweep_concurrently

SWEEPERS = 6
MILESTONE_DAYS = (83, 86, 89, 90, 97)


def test_concurrent_and_repeated_sweeps_send_one_email_per_milestone(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = create_key(client, owner, "Checkout service", auto_rotate=False).id
    counts: dict[int, int] = {}

    for day in MILESTONE_DAYS:
        timeline.at(day)
        sweep_concurrently(SWEEPERS)
        sweep_concurrently(SWEEPERS)
        sweep(3)
        counts[day] = len(mail_about(mailbox, owner.account_id, key_id))

    assert counts == {83: 1, 86: 2, 89: 3, 90: 4, 97: 5}
    assert notices_of(key_id) == 5
    assert mail_statuses(owner.account_id) == {MailStatus.SENT.value: 5}


def notices_of(key_id: int) -> int:
    stmt = select(func.count()).where(RotationNotice.key_id == key_id)
    with transaction() as session:
        return int(session.scalar(stmt) or 0)


def mail_statuses(account_id: int) -> dict[str, int]:
    stmt = (
        select(OutboundMail.status, func.count())
        .where(OutboundMail.account_id == account_id)
        .group_by(OutboundMail.status)
    )
    with transaction() as session:
        return {status: int(count) for status, count in session.execute(stmt)}
