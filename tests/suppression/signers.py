"""The providers' side of bounce feedback, made as each provider documents it: SNS messages signed by a
certificate of the test's own CA (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA), SendGrid's Event
Webhook signed with ECDSA P-256, Mailgun's HMAC-SHA256 of timestamp and token, and the payloads."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID

CERT_NAME = "SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem"
CERT_URL = f"https://sns.us-east-1.amazonaws.com/{CERT_NAME}"
TOPIC = "arn:aws:sns:us-east-1:123456789012:ses-bounces"
SUBSCRIBE_URL = (
    "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=" + TOPIC + "&Token=2336412f37"
)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(
    subject: str, key: rsa.RSAPrivateKey, issuer: str, signer: rsa.RSAPrivateKey
) -> x509.Certificate:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .sign(signer, hashes.SHA256())
    )


@dataclass
class SnsSigner:
    """A test CA, SNS's signing certificate issued by it (written where ``SNS_CERTIFICATE_DIR`` points), and
    the key that signs messages."""

    key: rsa.RSAPrivateKey

    @classmethod
    def into(cls, directory: Path) -> SnsSigner:
        ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        certificate = _certificate("sns.amazonaws.com", key, "Test Root CA", ca_key)
        (directory / CERT_NAME).write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        return cls(key)

    def sign(
        self, message: dict[str, Any], version: int = 1, key: rsa.RSAPrivateKey | None = None
    ) -> dict[str, Any]:
        """``message`` with SignatureVersion, SigningCertURL and Signature as SNS adds them."""
        fields = (
            ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type")
            if message["Type"] == "Notification"
            else ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type")
        )
        text = "".join(f"{name}\n{message[name]}\n" for name in fields if name in message)
        digest = hashes.SHA1() if version == 1 else hashes.SHA256()
        signature = (key or self.key).sign(text.encode(), padding.PKCS1v15(), digest)
        return {
            **message,
            "SignatureVersion": str(version),
            "Signature": base64.b64encode(signature).decode(),
            "SigningCertURL": CERT_URL,
            "UnsubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe",
        }


def sns_notification(inner: dict[str, Any], topic: str = TOPIC) -> dict[str, Any]:
    return {
        "Type": "Notification",
        "MessageId": str(uuid.uuid4()),
        "TopicArn": topic,
        "Message": json.dumps(inner),
        "Timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }


def sns_subscription(topic: str = TOPIC) -> dict[str, Any]:
    return {
        "Type": "SubscriptionConfirmation",
        "MessageId": str(uuid.uuid4()),
        "Token": "2336412f37",
        "TopicArn": topic,
        "Message": f"You have chosen to subscribe to the topic {topic}.",
        "SubscribeURL": SUBSCRIBE_URL,
        "Timestamp": "2026-12-07T23:00:00.000Z",
    }


def ses_bounce(
    email: str, bounce_type: str = "Permanent", code: str = "smtp; 550 5.1.1 user unknown"
) -> dict[str, Any]:
    """An SES bounce notification as SES documents it."""
    return {
        "notificationType": "Bounce",
        "bounce": {
            "bounceType": bounce_type,
            "bounceSubType": "General",
            "bouncedRecipients": [
                {"emailAddress": email, "action": "failed", "status": "5.1.1", "diagnosticCode": code}
            ],
            "timestamp": "2026-12-07T22:30:00.000Z",
            "feedbackId": f"0100018{secrets.token_hex(8)}-000000",
            "reportingMTA": "dsn; a8-70.smtp-out.amazonses.com",
        },
        "mail": {
            "timestamp": "2026-12-07T22:29:59.000Z",
            "source": "news@sender.example",
            "messageId": "m-1",
        },
    }


def ses_complaint(email: str) -> dict[str, Any]:
    return {
        "notificationType": "Complaint",
        "complaint": {
            "complainedRecipients": [{"emailAddress": email}],
            "timestamp": "2026-12-07T22:31:00.000Z",
            "feedbackId": f"0100018{secrets.token_hex(8)}-000000",
            "complaintFeedbackType": "abuse",
        },
        "mail": {
            "timestamp": "2026-12-07T22:29:59.000Z",
            "source": "news@sender.example",
            "messageId": "m-2",
        },
    }


@dataclass
class SendGridSigner:
    """SendGrid's Event Webhook signing: ECDSA P-256 over ``timestamp + body``; the verification key is the
    public key as base64 DER, as SendGrid's settings page shows it."""

    key: ec.EllipticCurvePrivateKey

    @classmethod
    def new(cls) -> SendGridSigner:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    @property
    def verification_key(self) -> str:
        der = self.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return base64.b64encode(der).decode()

    def headers(self, body: bytes) -> dict[str, str]:
        timestamp = str(int(time.time()))
        signature = self.key.sign(timestamp.encode() + body, ec.ECDSA(hashes.SHA256()))
        return {
            "X-Twilio-Email-Event-Webhook-Signature": base64.b64encode(signature).decode(),
            "X-Twilio-Email-Event-Webhook-Timestamp": timestamp,
            "Content-Type": "application/json",
        }


def sendgrid_events(email: str, event: str = "bounce", kind: str = "bounce") -> list[dict[str, Any]]:
    return [
        {
            "email": email,
            "timestamp": int(time.time()),
            "event": event,
            "type": kind,
            "reason": "550 5.1.1 The email account that you tried to reach does not exist.",
            "status": "5.1.1",
            "sg_event_id": secrets.token_urlsafe(16),
            "sg_message_id": "14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0",
        }
    ]


def mailgun_body(
    signing_key: str, email: str, event: str = "failed", severity: str = "permanent"
) -> dict[str, Any]:
    """A Mailgun webhook: ``signature`` (HMAC-SHA256 of timestamp + token under the signing key) and
    ``event-data``."""
    timestamp, token = str(int(time.time())), secrets.token_hex(25)
    signature = hmac.new(signing_key.encode(), (timestamp + token).encode(), hashlib.sha256).hexdigest()
    return {
        "signature": {"timestamp": timestamp, "token": token, "signature": signature},
        "event-data": {
            "id": secrets.token_urlsafe(16),
            "event": event,
            "severity": severity,
            "recipient": email,
            "timestamp": time.time(),
            "delivery-status": {"code": 550, "message": "5.1.1 No such user", "description": "No such user"},
        },
    }


def postmark_bounce(email: str, kind: str = "HardBounce", record: str = "Bounce") -> dict[str, Any]:
    return {
        "RecordType": record,
        "ID": secrets.randbelow(10**10),
        "Type": kind,
        "TypeCode": 1,
        "Name": "Hard bounce",
        "MessageID": str(uuid.uuid4()),
        "Description": "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
        "Details": "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
        "Email": email,
        "From": "sender@example.com",
        "BouncedAt": "2026-12-07T22:30:00Z",
        "Inactive": True,
        "CanActivate": True,
    }
