"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives, and the fixtures around it.

``mailbox`` starts a server on a free port of 127.0.0.1 and points ``MAIL_SMTP_URL`` at it, so the code
under test talks SMTP over a socket exactly as it would to a relay. Messages are parsed with the modern
``email`` policy, so tests read them as a mail client would (headers, text part, HTML part).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session

from settings import get_settings
from tests.processes import free_port


@dataclass
class Received:
    envelope_from: str
    envelope_to: list[str]
    message: EmailMessage

    def text(self) -> str:
        return self._part("plain")

    def html(self) -> str:
        return self._part("html")

    def _part(self, subtype: str) -> str:
        """A body part as a reader sees it (the wire's CRLF line ends read as plain newlines)."""
        part = self.message.get_body((subtype,))
        assert part is not None
        return str(part.get_content()).replace("\r\n", "\n")


@dataclass
class Mailbox:
    """Every message the server accepted; ``refuse_rcpt`` makes it answer RCPT with that reply instead."""

    received: list[Received] = field(default_factory=list)
    refuse_rcpt: str | None = None
    logins: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def to(self, address: str) -> list[Received]:
        with self.lock:
            return [mail for mail in self.received if address in mail.envelope_to]

    async def handle_RCPT(
        self, server: Any, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if self.refuse_rcpt:
            return self.refuse_rcpt
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        message = message_from_bytes(raw, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self.lock:
            self.received.append(Received(str(envelope.mail_from), list(envelope.rcpt_tos), message))
        return "250 Message accepted"

    def authenticate(
        self, server: Any, session: Session, envelope: Envelope, mechanism: str, auth_data: Any
    ) -> AuthResult:
        if isinstance(auth_data, LoginPassword):
            login, password = auth_data.login.decode(), auth_data.password.decode()
            self.logins.append((login, password))
            return AuthResult(success=(login, password) == ("relay-user", "p@ss word"))
        return AuthResult(success=False)


def start_server(mailbox: Mailbox, **smtp_options: Any) -> Controller:
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port(), **smtp_options)
    controller.start()
    return controller


def point_mail_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("MAIL_SMTP_URL", url)
    get_settings.cache_clear()


@pytest.fixture
def mailbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    """A plain SMTP server on loopback that the service sends to for the length of one test."""
    box = Mailbox()
    controller = start_server(box)
    box.url = f"smtp://127.0.0.1:{controller.port}"
    point_mail_at(monkeypatch, box.url)
    yield box
    controller.stop()
    monkeypatch.undo()
    get_settings.cache_clear()
