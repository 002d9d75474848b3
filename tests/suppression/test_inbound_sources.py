"""Bounce feedback in: each provider's real payload, signed the way the provider documents it, lands in the
account's suppression list with its evidence; soft bounces are only counted; anything unsigned, badly
signed, revoked or for another topic is refused with a 401 and audited."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from flask.testing import FlaskClient

from tests.fixtures.db import Persona
from tests.suppression.helpers import basic, entry, make_source, refusals
from tests.suppression.signers import (
    TOPIC,
    SendGridSigner,
    SnsSigner,
    mailgun_body,
    postmark_bounce,
    sendgrid_events,
    ses_bounce,
    ses_complaint,
    sns_notification,
    sns_subscription,
)

REFUSED = "INBOUND_REQUEST_REFUSED"


def post_sns(
    client: FlaskClient, source: dict[str, Any], message: dict[str, Any], secret: str | None = None
) -> Any:
    """As SNS posts over HTTPS: text/plain, its message-type header, the URL's basic auth."""
    headers = {"x-amz-sns-message-type": message["Type"], **basic(secret or source["secret"])}
    return client.post(
        f"/inbound/{source['id']}",
        data=json.dumps(message),
        headers=headers,
        content_type="text/plain; charset=UTF-8",
    )


@pytest.mark.parametrize("version", [1, 2])
def test_an_ses_hard_bounce_through_sns_suppresses_with_its_evidence(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner, version: int
) -> None:
    source = make_source(client, owner, "ses")

    answer = post_sns(
        client, source, sns_signer.sign(sns_notification(ses_bounce("Gone@Example.com")), version)
    )

    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["recorded"] == {"hard": 1}
    suppressed = entry(client, owner, "gone@example.com")["suppressed"]
    assert (suppressed["kind"], suppressed["source"]) == ("hard", "ses")
    assert suppressed["diagnosticCode"] == "smtp; 550 5.1.1 user unknown"
    assert suppressed["bouncedAt"] == "2026-12-07T22:30:00.000Z"


def test_an_ses_complaint_suppresses_and_a_transient_bounce_is_only_counted(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")

    post_sns(client, source, sns_signer.sign(sns_notification(ses_complaint("angry@example.com"))))
    for _ in range(2):
        post_sns(
            client, source, sns_signer.sign(sns_notification(ses_bounce("full@example.com", "Transient")))
        )

    assert entry(client, owner, "angry@example.com")["suppressed"]["kind"] == "complaint"
    full = entry(client, owner, "full@example.com")
    assert full["suppressed"] is None
    assert full["softBounces"]["count"] == 2
    assert [event["kind"] for event in full["history"]] == ["soft", "soft"]


def test_the_same_sns_message_delivered_twice_is_recorded_once(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")
    message = sns_signer.sign(sns_notification(ses_bounce("twice@example.com", "Transient")))

    first, second = post_sns(client, source, message), post_sns(client, source, message)

    assert (first.get_json()["recorded"], second.get_json()["recorded"]) == ({"soft": 1}, {"duplicate": 1})
    assert entry(client, owner, "twice@example.com")["softBounces"]["count"] == 1


def test_a_subscription_confirmation_pins_the_topic_and_waits_for_the_owner(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")

    answer = post_sns(client, source, sns_signer.sign(sns_subscription()))
    other_topic = sns_notification(ses_bounce("x@example.com"), topic=TOPIC + "-other")
    refused = post_sns(client, source, sns_signer.sign(other_topic))

    assert (answer.status_code, answer.get_json()["subscription"]) == (200, True)
    listed = client.get("/suppression/sources", headers=owner.headers).get_json()["data"][0]
    assert (listed["topicArn"], listed["confirmUrl"].startswith("https://sns.us-east-1.amazonaws.com/")) == (
        TOPIC,
        True,
    )
    assert (refused.status_code, refused.get_json()["error"]["code"]) == (401, REFUSED)
    assert refusals(owner.account_id, source["id"]) == ["topic"]


@pytest.mark.parametrize("version", [1, 2])
def test_an_sns_message_signed_by_another_key_is_refused_and_audited(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner, version: int
) -> None:
    source = make_source(client, owner, "ses")
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = sns_signer.sign(sns_notification(ses_bounce("victim@example.com")), version, key=forger)

    answer = post_sns(client, source, forged)

    assert (answer.status_code, answer.get_json()["error"]["code"]) == (401, REFUSED)
    assert "reason" not in answer.get_json()["error"]  # one answer for every reason
    assert refusals(owner.account_id, source["id"]) == ["signature"]
    assert client.get("/suppression/addresses/victim@example.com", headers=owner.headers).status_code == 404


def test_a_tampered_sns_message_is_refused(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")
    signed = sns_signer.sign(sns_notification(ses_bounce("real@example.com")))
    signed["Message"] = json.dumps(ses_bounce("someone-else@example.com"))

    assert post_sns(client, source, signed).status_code == 401
    assert refusals(owner.account_id, source["id"]) == ["signature"]


class _Recorder(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def certificate_host() -> Iterator[str]:
    """A loopback HTTP server a forger would name as SigningCertURL: it records every request."""
    _Recorder.hits = []
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_signing_certificate_off_snss_host_is_refused_and_never_fetched(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner, certificate_host: str, scheme: str
) -> None:
    source = make_source(client, owner, "ses")
    message = sns_signer.sign(sns_notification(ses_bounce("x@example.com")))
    message["SigningCertURL"] = f"{scheme}://{certificate_host}/SimpleNotificationService-evil.pem"

    answer = post_sns(client, source, message)

    assert answer.status_code == 401
    assert refusals(owner.account_id, source["id"]) == ["certificate_url"]
    assert _Recorder.hits == []


def test_a_request_without_the_secret_or_with_a_wrong_one_is_refused_and_audited(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")
    message = sns_signer.sign(sns_notification(ses_bounce("x@example.com")))

    unsigned = client.post(f"/inbound/{source['id']}", data=json.dumps(message), content_type="text/plain")
    wrong = post_sns(client, source, message, secret="isec_" + "A" * 43)

    assert (unsigned.status_code, wrong.status_code) == (401, 401)
    assert refusals(owner.account_id, source["id"]) == ["secret", "secret"]


def test_a_revoked_source_accepts_nothing_and_an_unknown_one_is_audited_for_the_operators(
    client: FlaskClient, owner: Persona, sns_signer: SnsSigner
) -> None:
    source = make_source(client, owner, "ses")
    revoked = client.delete(f"/suppression/sources/{source['id']}", headers=owner.headers)

    answer = post_sns(client, source, sns_signer.sign(sns_notification(ses_bounce("x@example.com"))))
    unknown = client.post("/inbound/src_000000000000000000000000", data="{}", headers=basic(source["secret"]))

    assert revoked.status_code == 200
    assert revoked.get_json()["revokedAt"]
    assert (answer.status_code, unknown.status_code) == (401, 401)
    assert answer.get_json() == unknown.get_json()  # nothing tells a prober which sources exist
    assert refusals(owner.account_id, source["id"]) == ["revoked"]
    assert refusals(None, "src_000000000000000000000000")[-1] == "unknown_source"


def test_the_secret_is_shown_once_and_kept_only_as_a_hash(client: FlaskClient, owner: Persona) -> None:
    source = make_source(client, owner, "postmark")

    listed = client.get("/suppression/sources", headers=owner.headers).get_data(as_text=True)

    assert source["secret"].startswith("isec_")
    assert source["urlWithSecret"].endswith(f"/inbound/{source['id']}")
    assert f"inbound:{source['secret']}@" in source["urlWithSecret"]
    assert source["secret"] not in listed
    assert json.loads(listed)["data"][0]["secretHint"] == source["secret"][-4:]


def test_a_sendgrid_event_webhook_signed_with_ecdsa_suppresses_its_bounces(
    client: FlaskClient, owner: Persona
) -> None:
    signer = SendGridSigner.new()
    source = make_source(client, owner, "sendgrid", verificationKey=signer.verification_key)
    events = sendgrid_events("hard@example.org") + sendgrid_events("blocked@example.org", kind="blocked")
    events += sendgrid_events("spam@example.org", event="spamreport")
    body = json.dumps(events).encode()

    answer = client.post(
        f"/inbound/{source['id']}", data=body, headers={**signer.headers(body), **basic(source["secret"])}
    )

    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["recorded"] == {"hard": 1, "soft": 1, "complaint": 1}
    assert entry(client, owner, "hard@example.org")["suppressed"]["source"] == "sendgrid"
    assert entry(client, owner, "blocked@example.org")["suppressed"] is None


def test_a_sendgrid_body_changed_after_signing_or_signed_by_another_key_is_refused(
    client: FlaskClient, owner: Persona
) -> None:
    signer = SendGridSigner.new()
    source = make_source(client, owner, "sendgrid", verificationKey=signer.verification_key)
    body = json.dumps(sendgrid_events("a@example.org")).encode()
    tampered = body.replace(b"a@example.org", b"b@example.org")
    other = SendGridSigner.new()

    answers = [
        client.post(f"/inbound/{source['id']}", data=data, headers={**headers, **basic(source["secret"])})
        for data, headers in ((tampered, signer.headers(body)), (body, other.headers(body)), (body, {}))
    ]

    assert [answer.status_code for answer in answers] == [401, 401, 401]
    assert refusals(owner.account_id, source["id"]) == ["signature"] * 3


def test_a_sendgrid_source_needs_a_p256_verification_key(client: FlaskClient, owner: Persona) -> None:
    answer = client.post(
        "/suppression/sources",
        json={"kind": "sendgrid", "name": "SendGrid", "verificationKey": "bm90IGEga2V5"},
        headers=owner.headers,
    )
    assert (answer.status_code, answer.get_json()["field"]) == (400, "verificationKey")


def test_a_mailgun_webhook_signed_with_hmac_suppresses_and_a_wrong_signature_is_refused(
    client: FlaskClient, owner: Persona
) -> None:
    signing_key = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0"
    source = make_source(client, owner, "mailgun", signingKey=signing_key)
    genuine = mailgun_body(signing_key, "nobody@example.net")
    forged = mailgun_body("key-not-the-one", "other@example.net")
    temporary = mailgun_body(signing_key, "later@example.net", severity="temporary")

    answers = [
        client.post(f"/inbound/{source['id']}", json=body, headers=basic(source["secret"]))
        for body in (genuine, forged, temporary)
    ]

    assert [answer.status_code for answer in answers] == [200, 401, 200]
    suppressed = entry(client, owner, "nobody@example.net")["suppressed"]
    assert (suppressed["source"], suppressed["diagnosticCode"]) == ("mailgun", "No such user")
    assert entry(client, owner, "later@example.net")["softBounces"]["count"] == 1
    assert refusals(owner.account_id, source["id"]) == ["signature"]


def test_a_postmark_hard_bounce_and_spam_complaint_suppress_a_soft_bounce_is_counted(
    client: FlaskClient, owner: Persona
) -> None:
    source = make_source(client, owner, "postmark")
    bodies = [
        postmark_bounce("hard@example.com"),
        postmark_bounce("soft@example.com", kind="SoftBounce"),
        postmark_bounce("spam@example.com", kind="SpamComplaint", record="SpamComplaint"),
    ]

    answers = [
        client.post(f"/inbound/{source['id']}", json=body, headers=basic(source["secret"])) for body in bodies
    ]

    assert [answer.get_json()["recorded"] for answer in answers] == [
        {"hard": 1},
        {"soft": 1},
        {"complaint": 1},
    ]
    assert entry(client, owner, "hard@example.com")["suppressed"]["diagnosticCode"].startswith(
        "smtp;550 5.1.1"
    )
    assert entry(client, owner, "spam@example.com")["suppressed"]["kind"] == "complaint"
    assert client.post(f"/inbound/{source['id']}", json=bodies[0]).status_code == 401  # no basic auth


def test_a_plain_upload_of_bounces_as_csv_or_json_with_a_bearer_secret(
    client: FlaskClient, owner: Persona
) -> None:
    source = make_source(client, owner, "upload")
    bearer = {"Authorization": f"Bearer {source['secret']}"}
    rows = ["email,kind,diagnosticCode", "old@example.com,,550 mailbox closed", "busy@example.com,soft,452"]
    csv_text = "\n".join([*rows, "nope,hard,"]) + "\n"

    from_csv = client.post(f"/inbound/{source['id']}", data=csv_text, headers=bearer, content_type="text/csv")
    from_json = client.post(
        f"/inbound/{source['id']}", json=[{"email": "spam@example.com", "kind": "complaint"}], headers=bearer
    )

    assert from_csv.get_json()["recorded"] == {"hard": 1, "soft": 1}
    assert from_csv.get_json()["refused"] == [
        {"row": 4, "value": "nope", "reason": from_csv.get_json()["refused"][0]["reason"]}
    ]
    assert from_json.get_json()["recorded"] == {"complaint": 1}
    assert entry(client, owner, "old@example.com")["suppressed"]["source"] == "upload"


def test_another_accounts_source_id_with_its_own_secret_never_reaches_this_list(
    client: FlaskClient, owner: Persona, outsider: Persona
) -> None:
    mine, theirs = make_source(client, owner, "postmark"), make_source(client, outsider, "postmark")

    crossed = client.post(
        f"/inbound/{mine['id']}", json=postmark_bounce("x@example.com"), headers=basic(theirs["secret"])
    )

    assert crossed.status_code == 401
    assert client.get("/suppression/addresses/x@example.com", headers=owner.headers).status_code == 404
    assert client.delete(f"/suppression/sources/{mine['id']}", headers=outsider.headers).status_code == 404
