"""Verify verimail webhook deliveries in your receiver: ``verify_signature`` and ``construct_event``.

Every delivery is an HTTPS POST carrying two headers:

- ``X-Service-Timestamp``: the Unix time (whole seconds) at which the delivery was signed;
- ``X-Service-Signature``: hex HMAC-SHA256 of ``timestamp + "." + raw body``, keyed with the endpoint's
  signing secret (the ``whsec_...`` value shown once when the endpoint was created or its secret rotated).

Verify against the *raw* body bytes, before any JSON parsing: re-serialising a parsed body changes bytes and
breaks the signature. The timestamp tolerance (five minutes by default) is what stops an attacker who captured
one delivery from replaying it later; the signature covers the timestamp, so it cannot be refreshed. A
delivery may arrive more than once: use the event ``id`` to drop duplicates, and ignore event types you do
not know (new types may be added without notice).

This module depends on the standard library only, so receivers can vendor it as a single file (it was the
top-level ``verimail_webhooks`` package, which now re-exports it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "EVENT_TYPES",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "SignatureVerificationError",
    "compute_signature",
    "construct_event",
    "verify_signature",
]

SIGNATURE_HEADER = "X-Service-Signature"
TIMESTAMP_HEADER = "X-Service-Timestamp"
DEFAULT_TOLERANCE_SECONDS = 300
_SIGNATURE_LENGTH = 64  # hex digits of an HMAC-SHA256
_HEX = frozenset("0123456789abcdef")
_TIMESTAMP_DIGITS = 12
# The event types verimail sends today (spec 6.1). More may be added: ignore types you do not handle.
EVENT_TYPES: tuple[str, ...] = (
    "validation.completed",
    "batch.completed",
    "quota.warning",
    "quota.exceeded",
    "quota.reset",
    "key.created",
    "key.disabled",
    "address.changed",
    "list.rechecked",
)


class SignatureVerificationError(ValueError):
    """The delivery did not come from verimail, was altered, or is too old (or too far in the future)."""


def compute_signature(secret: str, timestamp: str, body: bytes) -> str:
    """Hex HMAC-SHA256 of ``timestamp + "." + body``: the sender and every receiver share this function."""
    message = timestamp.encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def verify_signature(
    body: bytes,
    timestamp: str | None,
    signature: str | None,
    secret: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> None:
    """Raise ``SignatureVerificationError`` unless ``signature`` is valid for ``body`` and recent enough.

    ``hmac.compare_digest`` keeps the comparison time independent of how many leading characters match, so
    the signature cannot be guessed one character at a time from response timings. ``tolerance`` applies in
    both directions: a timestamp far in the future is as suspicious as an old one.
    """
    if not timestamp or not signature:
        raise SignatureVerificationError(f"missing {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    if not _is_unix_seconds(timestamp):
        raise SignatureVerificationError(f"{TIMESTAMP_HEADER} must be whole Unix seconds, got {timestamp!r}")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        raise SignatureVerificationError(f"timestamp outside the tolerance of {tolerance} seconds")
    received = signature.strip().lower()
    # Headers are attacker-controlled text: anything but 64 hex digits fails here, because
    # ``compare_digest`` raises TypeError on non-ASCII strings instead of answering False.
    if len(received) != _SIGNATURE_LENGTH or not all(char in _HEX for char in received):
        raise SignatureVerificationError(f"{SIGNATURE_HEADER} must be {_SIGNATURE_LENGTH} hex digits")
    expected = compute_signature(secret, timestamp, body)
    if not hmac.compare_digest(expected, received):
        raise SignatureVerificationError("signature does not match the body and timestamp")


def _is_unix_seconds(timestamp: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts "²" and other scripts' digits), and few enough of them
    that ``int`` never meets Python's limit on the length of integer strings."""
    return timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= _TIMESTAMP_DIGITS


def construct_event(
    body: bytes,
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
) -> dict[str, Any]:
    """Verify a delivery from its raw body and request headers, then return the parsed event envelope.

    ``headers`` may be any mapping; lookups try the exact header names and their lowercase forms, which
    covers the common frameworks (Flask/Werkzeug, Django's ``request.headers``, Starlette, ``http.server``).
    """
    verify_signature(
        body,
        _header(headers, TIMESTAMP_HEADER),
        _header(headers, SIGNATURE_HEADER),
        secret,
        tolerance=tolerance,
    )
    event: dict[str, Any] = json.loads(body)
    return event


def _header(headers: Mapping[str, str], name: str) -> str | None:
    return headers.get(name) or headers.get(name.lower())
