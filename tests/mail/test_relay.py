"""MAIL_SMTP_URL: the documented forms, refusals of everything else, and TLS with credentials for real."""

from __future__ import annotations

import secrets
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from aiosmtpd.controller import Controller
from sqlalchemy import select

from models.mail import MailStatus, OutboundMail
from models.session import transaction
from services.mail import outbox
from services.mail.relay import Relay
from settings import ConfigError, Settings, get_settings
from tests.mail.mailbox import Mailbox, point_mail_at, start_server

CREDENTIALS = "relay-user:p%40ss%20word"  # "p@ss word", percent-encoded as a URL requires


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://127.0.0.1", Relay("127.0.0.1", 25, "plain")),
        ("smtps://relay.example.com", Relay("relay.example.com", 465, "tls")),
        (
            f"smtp://{CREDENTIALS}@relay.example.com:587?starttls=true",
            Relay("relay.example.com", 587, "starttls", "relay-user", "p@ss word"),
        ),
        (
            f"smtp://{CREDENTIALS}@localhost:1025",
            Relay("localhost", 1025, "plain", "relay-user", "p@ss word"),
        ),
    ],
)
def test_the_documented_url_forms_are_understood(url: str, expected: Relay) -> None:
    assert Relay.from_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "http://relay.example.com",
        "smtp://",
        "smtp://relay.example.com:notaport",
        "smtp://relay.example.com?starttls=maybe",
        "smtp://relay.example.com?tls=true",
        f"smtp://{CREDENTIALS}@relay.example.com:587",  # a password in clear over the network
    ],
)
def test_anything_else_is_a_configuration_error(url: str) -> None:
    with pytest.raises(ConfigError):
        Relay.from_url(url)


def test_the_password_never_shows_in_the_relay_repr() -> None:
    assert "p@ss" not in repr(Relay.from_url(f"smtp://{CREDENTIALS}@localhost"))


@pytest.fixture
def tls_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[ssl.SSLContext]:
    """A server certificate for ``localhost`` from a test CA that the client trusts via MAIL_CA_BUNDLE."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("MAIL_CA_BUNDLE", str(bundle))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    yield context
    monkeypatch.undo()
    get_settings.cache_clear()


def test_mail_ca_bundle_must_be_a_readable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MAIL_CA_BUNDLE"):
        Settings.from_env({"MAIL_CA_BUNDLE": str(tmp_path / "missing.pem")})


def send_one() -> str:
    recipient = f"owner-{secrets.token_hex(4)}@example.com"
    with transaction() as session:
        outbox.queue(session, None, outbox.Draft(recipient, "TLS", "text\n", "<p>html</p>"))
    outbox.send_due()
    return recipient


def test_starttls_is_required_and_the_credentials_log_in(
    tls_server: ssl.SSLContext, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    box = Mailbox()
    controller = start_server(
        box, tls_context=tls_server, require_starttls=True, auth_required=True, authenticator=box.authenticate
    )
    try:
        point_mail_at(monkeypatch, f"smtp://{CREDENTIALS}@localhost:{controller.port}?starttls=true")
        recipient = send_one()
    finally:
        controller.stop()
    assert box.logins == [("relay-user", "p@ss word")]
    assert len(box.to(recipient)) == 1


def test_smtps_speaks_tls_from_the_first_byte(
    tls_server: ssl.SSLContext, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    box = Mailbox()
    controller: Controller = start_server(box, ssl_context=tls_server)
    try:
        point_mail_at(monkeypatch, f"smtps://localhost:{controller.port}")
        recipient = send_one()
    finally:
        controller.stop()
    assert len(box.to(recipient)) == 1


def test_a_relay_certificate_outside_the_configured_trust_is_refused_and_retried(
    tls_server: ssl.SSLContext, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    box = Mailbox()
    controller: Controller = start_server(box, ssl_context=tls_server)
    try:
        monkeypatch.delenv("MAIL_CA_BUNDLE")  # the system store does not know the test CA
        point_mail_at(monkeypatch, f"smtps://localhost:{controller.port}")
        recipient = send_one()
    finally:
        controller.stop()
    assert box.to(recipient) == []
    with transaction() as session:
        queued = session.scalars(select(OutboundMail).where(OutboundMail.recipient == recipient)).one()
        assert (queued.status, queued.attempts) == (MailStatus.QUEUED.value, 1)
        assert "CERTIFICATE_VERIFY_FAILED" in (queued.last_error or "")
