"""The receivers' verification module: what it accepts and every way it refuses."""

from __future__ import annotations

import hashlib
import hmac
import time

import pytest

from verimail_webhooks import SignatureVerificationError, compute_signature, construct_event, verify_signature

SECRET = "whsec_test"
BODY = b'{"id":"evt_1","type":"quota.reset","timestamp":"2026-11-21T08:00:00.000Z","data":{}}'
NOW = 1_800_000_000


def signed(timestamp: int = NOW, body: bytes = BODY, secret: str = SECRET) -> tuple[str, str]:
    return str(timestamp), compute_signature(secret, str(timestamp), body)


def test_signature_is_hex_hmac_sha256_of_timestamp_dot_body() -> None:
    expected = hmac.new(SECRET.encode(), f"{NOW}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert compute_signature(SECRET, str(NOW), BODY) == expected


def test_valid_signature_within_tolerance_is_accepted() -> None:
    timestamp, signature = signed(NOW - 299)
    verify_signature(BODY, timestamp, signature, SECRET, now=NOW)


@pytest.mark.parametrize(
    ("body", "timestamp", "signature", "reason"),
    [
        (BODY + b" ", *signed(), "does not match"),  # body altered
        (BODY, str(NOW + 1), signed()[1], "does not match"),  # timestamp altered
        (BODY, *signed(secret="whsec_other"), "does not match"),  # wrong secret
        (BODY, *signed(NOW - 301), "tolerance"),  # replayed later
        (BODY, *signed(NOW + 301), "tolerance"),  # from the future
        (BODY, None, signed()[1], "missing"),
        (BODY, str(NOW), None, "missing"),
        (BODY, "2026-11-21T08:00:00Z", signed()[1], "Unix seconds"),
    ],
)
def test_refusals(body: bytes, timestamp: str | None, signature: str | None, reason: str) -> None:
    with pytest.raises(SignatureVerificationError, match=reason):
        verify_signature(body, timestamp, signature, SECRET, now=NOW)


def test_construct_event_reads_lowercase_headers_and_returns_the_envelope() -> None:
    timestamp, signature = signed(NOW)
    headers = {"x-service-timestamp": timestamp, "x-service-signature": signature}
    with pytest.raises(SignatureVerificationError, match="tolerance"):
        construct_event(BODY, headers, SECRET)  # NOW is far from the real time
    headers = dict(zip(("x-service-timestamp", "x-service-signature"), signed(int(time.time())), strict=True))
    assert construct_event(BODY, headers, SECRET)["id"] == "evt_1"


@pytest.mark.parametrize(
    ("timestamp", "signature"),
    [
        (str(NOW), "é" * 64),  # non-ASCII: compare_digest would raise TypeError
        (str(NOW), signed()[1][:-1] + "ü"),
        (str(NOW), signed()[1] + "00"),  # too long
        (str(NOW), "zz" * 32),  # not hex
        ("١٨٠٠٠٠٠٠٠٠", signed()[1]),  # digits of another script
        ("²", signed()[1]),  # isdigit() yet not an integer
        ("9" * 5000, signed()[1]),  # past Python's limit on integer strings
    ],
)
def test_malformed_or_non_ascii_headers_fail_verification_and_never_raise_anything_else(
    timestamp: str, signature: str
) -> None:
    with pytest.raises(SignatureVerificationError):
        verify_signature(BODY, timestamp, signature, SECRET, now=NOW)
    with pytest.raises(SignatureVerificationError):
        construct_event(BODY, {"X-Service-Timestamp": timestamp, "X-Service-Signature": signature}, SECRET)


def test_an_upper_case_signature_with_spaces_around_it_still_verifies() -> None:
    timestamp, signature = signed(NOW)
    verify_signature(BODY, timestamp, f" {signature.upper()} ", SECRET, now=NOW)
