"""A secret handed from the request that issued it to the one page that shows it, once.

A form that issues a secret (a key created, refreshed or revealed; a webhook signing secret; a sub-user's
first key) answers with a redirect to a page that shows it (Post/Redirect/Get), so reloading that page
never repeats the action. Between the two requests the secret waits in Redis for at most ``WAIT`` under a
random ticket, encrypted with AES-256-GCM under a key of its own that only the caller keeps (the dashboard
puts ticket and key in the owner's session cookie): Redis alone cannot read it, the cookie alone holds
nothing, and the first read deletes it (GETDEL), so it is shown exactly once, as spec 5.1 asks.
"""

from __future__ import annotations

import base64
import os
import secrets
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from services.redis_client import get_redis, key

WAIT_SECONDS = 600  # from the form's answer to the page that shows it: a redirect, or a slow connection
NONCE_BYTES = 12


@dataclass(frozen=True)
class Claim:
    """What the holder needs to take the secret back: the ticket and the key it was sealed with."""

    ticket: str
    key: str  # URL-safe base64 of 32 bytes


def hold(secret: str) -> Claim:
    """Keep ``secret`` sealed for one ``take`` within ``WAIT_SECONDS``."""
    claim = Claim(secrets.token_urlsafe(16), _text(AESGCM.generate_key(bit_length=256)))
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(_bytes(claim.key)).encrypt(nonce, secret.encode(), claim.ticket.encode())
    get_redis().set(key("shown-once", claim.ticket), _text(nonce + sealed), ex=WAIT_SECONDS)
    return claim


def take(claim: Claim) -> str | None:
    """The secret, the first time only; None once taken, expired, or with a claim that does not fit."""
    stored = get_redis().getdel(key("shown-once", claim.ticket))
    if not isinstance(stored, str):
        return None
    data = _bytes(stored)
    try:
        opened = AESGCM(_bytes(claim.key)).decrypt(
            data[:NONCE_BYTES], data[NONCE_BYTES:], claim.ticket.encode()
        )
    except (InvalidTag, ValueError):
        return None
    return opened.decode()


def _text(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii")


def _bytes(text: str) -> bytes:
    return base64.urlsafe_b64decode(text.encode("ascii"))
