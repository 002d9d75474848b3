"""Encryption at rest under the server's ``KEY_SEALING_KEY`` (AES-256-GCM), for what the service must keep
for a while but never in clear: auto-rotated secrets until revealed, the links of emails until sent.

``bound_to`` is associated data naming what a sealed value belongs to, so a value moved to another row does
not open."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from settings import get_settings

NONCE_BYTES = 12


def seal(plain: bytes, bound_to: bytes) -> tuple[bytes, bytes]:
    """``(nonce, ciphertext)`` of ``plain``."""
    nonce = os.urandom(NONCE_BYTES)
    return nonce, _cipher().encrypt(nonce, plain, bound_to)


def unseal(nonce: bytes, ciphertext: bytes, bound_to: bytes) -> bytes | None:
    """The plaintext, or None when it was sealed under another key or for another row."""
    try:
        return _cipher().decrypt(nonce, ciphertext, bound_to)
    except InvalidTag:
        return None


def _cipher() -> AESGCM:
    return AESGCM(get_settings().key_sealing_key)
