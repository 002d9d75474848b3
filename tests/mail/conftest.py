"""Mail tests talk to a real SMTP server on loopback (``tests.mail.mailbox``)."""

from tests.mail.mailbox import mailbox

__all__ = ["mailbox"]
