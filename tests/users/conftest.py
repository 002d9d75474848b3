"""Owner tests read their email from a real SMTP server on loopback (``tests.mail.mailbox``)."""

from tests.mail.mailbox import mailbox

__all__ = ["mailbox"]
