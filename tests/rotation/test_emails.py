"""What the owner reads: both parts, the key named (and escaped in HTML), what to do, and no secret."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, mail_about, owner_email, sweep


def test_the_first_warning_says_what_to_do_in_text_and_html_without_the_secret(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "<b>Shop</b> & co", auto_rotate=False)
    timeline.at(83)
    sweep()

    [warning] = mail_about(mailbox, owner.account_id, created.id)

    assert warning.message["To"] == owner_email(owner.account_id)
    assert warning.message.get_content_type() == "multipart/alternative"
    text, html = warning.text(), warning.html()
    assert 'Your API key "<b>Shop</b> & co" is 83 days old and must be refreshed within 7 days' in text
    assert f"/api/keys/{created.id}/refresh" in text
    assert "&lt;b&gt;Shop&lt;/b&gt; &amp; co" in html
    assert "<b>Shop</b>" not in html
    assert f"/api/keys/{created.id}/refresh" in html
    assert created.secret not in warning.message.as_string()
    assert created.secret[-4:] in text  # the hint that tells keys apart


def test_the_auto_rotation_email_explains_how_to_reveal_the_new_secret(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Search indexer", auto_rotate=True)
    timeline.at(90)
    sweep()

    [rotated] = mail_about(mailbox, owner.account_id, created.id)
    revealed = client.post(f"/api/keys/{created.id}/reveal-secret", headers=owner.headers)

    assert f"/api/keys/{created.id}/reveal-secret" in rotated.text()
    assert "no longer works" in rotated.text()
    assert revealed.get_json()["key"]["secretKey"] not in rotated.message.as_string()
