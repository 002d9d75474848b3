"""Mail tests talk to a real SMTP server on loopback (``tests.mail.mailbox``)."""

import pytest
from sqlalchemy import delete

from models.mail import MailStatus, OutboundMail
from models.session import transaction
from tests.mail.mailbox import mailbox

__all__ = ["mailbox"]


@pytest.fixture(autouse=True)
def no_queued_mail_from_earlier_tests(request: pytest.FixtureRequest) -> None:
    """Each mail test starts with nothing queued: ``send_due`` is global by nature, and mail queued by an
    earlier test (rotation warnings, say) would be sent through this test's relay and counted here. Tests run
    one after another on the run's own database, so what is queued before a test starts is leftovers."""
    if "database_url" in request.fixturenames:
        with transaction() as session:
            session.execute(delete(OutboundMail).where(OutboundMail.status == MailStatus.QUEUED.value))
