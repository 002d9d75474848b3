"""Owner email task: send what is queued and due now (``services.mail.outbox.send_due``); safe to run twice.

Published after the commit of a change that queued an email a person is waiting for (a password-reset
link), so it leaves within seconds; the key-rotation sweep still sends anything whose message was lost.
"""

from __future__ import annotations

from celery import shared_task

from services.mail import outbox
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def send_due_mail() -> int:
    return outbox.send_due()


# No tick of its own: the rotation sweep already sends due mail every 15 minutes (tasks.keys).
BEAT: list[Every] = []
