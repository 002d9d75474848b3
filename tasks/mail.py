"""Owner email task: send what is queued and due now (``services.mail.outbox.send_due``); safe to run twice.

Sent after the commit of a change that queued an email a person is waiting for (a password-reset link), so
it leaves within seconds instead of at the next rotation sweep; that sweep still retries anything lost.
"""

from __future__ import annotations

from celery import shared_task

from services.mail import outbox

SEND_DUE_MAIL_TASK = "tasks.mail.send_due_mail"


@shared_task(name=SEND_DUE_MAIL_TASK, ignore_result=True)  # type: ignore[untyped-decorator]  # celery has no type hints
def send_due_mail() -> int:
    return outbox.send_due()
