"""Key material: generation and hashing, so no other module handles a plaintext secret's bytes.

A secret is ``sk_live_`` (a test-mode key's ``sk_test_``) + 32 bytes from ``secrets`` (256 bits, URL-safe
base64). Only its SHA-256 is stored. A plain (unsalted, fast) hash is the right tool here and not for
passwords: the input is already 256 random bits, so there is nothing to brute-force, and a deterministic
hash is what lets a request find its key through a unique index instead of scanning.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SECRET_PREFIX = "sk_live_"  # noqa: S105 - a public prefix, not a credential
PUBLISHABLE_PREFIX = "pk_live_"
TEST_SECRET_PREFIX = "sk_test_"  # noqa: S105 - a public prefix, not a credential
TEST_PUBLISHABLE_PREFIX = "pk_test_"
SECRET_BYTES = 32
PUBLISHABLE_BYTES = 24


def secret_prefix(livemode: bool) -> str:
    return SECRET_PREFIX if livemode else TEST_SECRET_PREFIX


def new_secret(livemode: bool = True) -> str:
    return secret_prefix(livemode) + secrets.token_urlsafe(SECRET_BYTES)


def new_publishable_key(livemode: bool = True) -> str:
    prefix = PUBLISHABLE_PREFIX if livemode else TEST_PUBLISHABLE_PREFIX
    return prefix + secrets.token_urlsafe(PUBLISHABLE_BYTES)


def is_publishable(credential: str) -> bool:
    return credential.startswith((PUBLISHABLE_PREFIX, TEST_PUBLISHABLE_PREFIX))


def is_secret(credential: str) -> bool:
    return credential.startswith((SECRET_PREFIX, TEST_SECRET_PREFIX))


def hash_secret(secret: str) -> str:
    """Lowercase hex SHA-256, the value stored in ``api_keys.secret_hash``."""
    return hashlib.sha256(secret.encode()).hexdigest()


def matches(secret: str, stored_hash: str) -> bool:
    """Constant-time check that ``secret`` hashes to ``stored_hash`` (the lookup already matched it; this
    guards against a lookup that ever becomes a prefix or case-insensitive match)."""
    return hmac.compare_digest(hash_secret(secret), stored_hash)


def hint(last4: str, livemode: bool = True) -> str:
    """How a stored key is shown after creation: enough to tell keys apart, nothing to use."""
    return f"{secret_prefix(livemode)}...{last4}"
