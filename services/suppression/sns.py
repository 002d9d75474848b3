"""Amazon SNS message signatures, checked as AWS documents them ("Verifying the signatures of Amazon SNS
messages"): the canonical string of the message's fields, signed with RSA by the certificate at
``SigningCertURL``, SHA1 for ``SignatureVersion`` 1 and SHA256 for 2.

The certificate URL is trusted only when it is HTTPS on SNS's own host (``sns.<region>.amazonaws.com``,
``.com.cn`` in China): the URL comes from the very message being checked, so any other host would let a
forger sign with its own key, and fetching it would let anyone make us call an address of their choice.
The certificate is fetched once per URL and process, redirects not followed. With ``SNS_CERTIFICATE_DIR``
it is read from that directory instead (by the URL's file name), for hosts without internet and for
tests signing with their own CA; the host rule still holds.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import requests
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from core import clock
from services.suppression.errors import InboundRefused
from settings import get_settings

SNS_HOST = re.compile(r"sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?")
NOTIFICATION_FIELDS = ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type")
SUBSCRIPTION_FIELDS = ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type")
FETCH_SECONDS = 5.0
CERTIFICATE_MAX_BYTES = 16_384


def verify(message: Mapping[str, object]) -> None:
    """Refuse (``InboundRefused``) unless ``message`` is signed by SNS as its fields say."""
    # SHA1 is what SignatureVersion 1 is (SNS's default); refusing it would refuse most topics.
    versions = {"1": hashes.SHA1(), "2": hashes.SHA256()}  # noqa: S303
    algorithm = versions.get(str(message.get("SignatureVersion")))
    if algorithm is None:
        raise InboundRefused("The SNS message has no SignatureVersion 1 or 2.", reason="signature_version")
    key = _certificate(allowed_certificate_url(message.get("SigningCertURL"))).public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        raise InboundRefused("The SNS signing certificate is not an RSA certificate.", reason="certificate")
    try:
        signature = base64.b64decode(str(message.get("Signature", "")), validate=True)
        key.verify(signature, canonical(message), padding.PKCS1v15(), algorithm)
    except (InvalidSignature, binascii.Error, ValueError):
        raise InboundRefused("The SNS signature does not match the message.", reason="signature") from None


def canonical(message: Mapping[str, object]) -> bytes:
    """The string SNS signs: each present field's name and value, one per line, in AWS's order."""
    kind = message.get("Type")
    fields = NOTIFICATION_FIELDS if kind == "Notification" else SUBSCRIPTION_FIELDS
    lines = [f"{name}\n{message[name]}\n" for name in fields if message.get(name) is not None]
    return "".join(lines).encode()


def allowed_certificate_url(url: object) -> str:
    """``url`` when it is an HTTPS ``.pem`` on SNS's own host; refused otherwise."""
    parts = urlsplit(str(url or ""))
    if not (
        parts.scheme == "https"
        and SNS_HOST.fullmatch(parts.hostname or "")
        and parts.port is None
        and not parts.username
        and parts.path.endswith(".pem")
    ):
        raise InboundRefused("The SNS SigningCertURL is not on Amazon SNS's host.", reason="certificate_url")
    return str(url)


def is_sns_url(url: object) -> bool:
    """Is ``url`` an HTTPS URL on SNS's own host (a SubscribeURL worth showing to the owner)?"""
    parts = urlsplit(str(url or ""))
    return parts.scheme == "https" and bool(SNS_HOST.fullmatch(parts.hostname or ""))


def _certificate(url: str) -> x509.Certificate:
    certificate = _load(url)
    now = clock.now()
    if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
        raise InboundRefused("The SNS signing certificate is not valid now.", reason="certificate")
    return certificate


@functools.lru_cache(maxsize=64)
def _load(url: str) -> x509.Certificate:
    directory = get_settings().sns_certificate_dir
    pem = _read(directory, url) if directory else _fetch(url)
    try:
        return x509.load_pem_x509_certificate(pem)
    except ValueError:
        raise InboundRefused("The SNS signing certificate cannot be read.", reason="certificate") from None


def _read(directory: str, url: str) -> bytes:
    path = Path(directory) / PurePosixPath(urlsplit(url).path).name
    try:
        return path.read_bytes()[:CERTIFICATE_MAX_BYTES]
    except OSError:
        raise InboundRefused("The SNS signing certificate is not known here.", reason="certificate") from None


def _fetch(url: str) -> bytes:
    try:
        response = requests.get(url, timeout=FETCH_SECONDS, allow_redirects=False)
    except requests.RequestException:
        raise InboundRefused(
            "The SNS signing certificate could not be fetched.", reason="certificate"
        ) from None
    if response.status_code != 200:
        raise InboundRefused("The SNS signing certificate could not be fetched.", reason="certificate")
    return response.content[:CERTIFICATE_MAX_BYTES]
