"""Verdict tokens: the answer a web page was given, sealed so that the page's server can trust it.

A browser can be made to say anything, so a form's server never takes the page's word for a verdict: the
page passes on the token that came with the answer, and the server confirms it with its secret key
(``services.browser.confirmations``). A token binds the account and key that asked, the address
(normalised as results write it), the verdict summary, the validation's id, the issue time and a unique id.

A token also says whether its verdict is *authoritative*: the result of a check the service finished
(``validation.authoritative``), rather than an answer given without one (throttled) or before one ended
(the time budget ran out). Only an authoritative verdict is confirmed as the service's word.

It is a Fernet token (``cryptography``: AES-128-CBC and HMAC-SHA256, with its issue time in it) under a
token key of its own (``VERDICT_TOKEN_KEYS``; by default one derived from ``SECRET_KEY``), so it is opaque
as well as tamper-proof: a page or a visitor reading it learns nothing (not even the account's id) that
the answer beside it did not say, and no other value signed with ``SECRET_KEY`` (a session cookie, a CSRF
token) can pass for one. Each secret goes through HKDF for this one use. The token is written
``<key id>.<Fernet token>``: the id picks the key that reads it, so the first key seals new tokens while
the others still read theirs, and rotating token keys never touches ``SECRET_KEY`` (dashboard sessions
survive it). Fernet's own ``ttl`` check cannot tell an expired token from a forged one, so the age is
checked here, after the library has verified the token and given its issue time.
"""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core import clock
from services.browser.errors import TokenExpired, TokenInvalid, TokenKeyRetired
from services.browser.verdicts import Verdict
from settings import DERIVED_TOKEN_KEY_ID, TokenKey, get_settings

_PURPOSE = b"verimail verdict tokens v1"
# A token stamped a little ahead of this process's clock (another web host's clock runs fast) is still fine.
CLOCK_SKEW = timedelta(seconds=30)
# A token confirms only with a key of its own mode: a sandbox verdict never passes for a live one.
LIVE = "live"
TEST = "test"
KEY_ID_SEPARATOR = "."


def mode_of(livemode: bool) -> str:
    return LIVE if livemode else TEST


@dataclass(frozen=True)
class Claims:
    """What a token says, once read back."""

    token_id: str
    account_id: int
    key_id: int
    mode: str
    validation_id: str | None
    verdict: Verdict
    issued_at: datetime
    authoritative: bool  # the verdict is the result of a check the service finished

    @property
    def expires_at(self) -> datetime:
        return self.issued_at + lifetime()


@dataclass(frozen=True)
class Issued:
    token: str
    expires_at: datetime


def lifetime() -> timedelta:
    return timedelta(seconds=get_settings().browser.token_lifetime)


def issue(
    account_id: int,
    key_id: int,
    verdict: Verdict,
    validation_id: str | None,
    *,
    authoritative: bool,
    livemode: bool = True,
) -> Issued:
    """A new token for ``verdict``, given to the page with the answer."""
    now = clock.now()
    body = {
        "i": secrets.token_urlsafe(16),
        "a": account_id,
        "k": key_id,
        "m": mode_of(livemode),
        "j": validation_id,
        "v": asdict(verdict),
        "c": authoritative,
    }
    ring = _keyring()
    sealed = ring.keys[ring.sealing].encrypt_at_time(
        json.dumps(body, separators=(",", ":")).encode(), int(now.timestamp())
    )
    return Issued(f"{ring.sealing}{KEY_ID_SEPARATOR}{sealed.decode('ascii')}", now + lifetime())


def read(token: str) -> Claims:
    """The claims of a genuine, unexpired token; ``TokenInvalid``, ``TokenExpired`` or ``TokenKeyRetired``
    otherwise."""
    # A token without a key id was sealed before tokens had one: by the key derived from SECRET_KEY.
    token_key, _, sealed = token.rpartition(KEY_ID_SEPARATOR)
    fernet = _fernet(token_key or DERIVED_TOKEN_KEY_ID)
    try:
        raw = sealed.encode("ascii")
        issued_at = datetime.fromtimestamp(fernet.extract_timestamp(raw), UTC)
        body = json.loads(fernet.decrypt(raw))
    except (InvalidToken, UnicodeEncodeError, ValueError):
        raise TokenInvalid(
            "This is not a verdict token issued by this service, or it was altered: do not trust the "
            "verdict the page reported; validate the address from your server instead."
        ) from None
    now = clock.now()
    if issued_at > now + CLOCK_SKEW:
        raise TokenInvalid("This verdict token claims to be issued in the future; it cannot be trusted.")
    if now - issued_at > lifetime():
        raise TokenExpired(
            f"This verdict token expired {int(lifetime().total_seconds())} s after it was issued (at "
            f"{issued_at:%Y-%m-%dT%H:%M:%SZ}); validate the address from your server instead."
        )
    return _claims(body, issued_at)


def _claims(body: dict[str, Any], issued_at: datetime) -> Claims:
    """The body as ``issue`` wrote it (only this service can have written it); a token sealed before
    tokens said whether their verdict is authoritative is taken as not."""
    return Claims(
        token_id=body["i"],
        account_id=body["a"],
        key_id=body["k"],
        mode=body["m"],
        validation_id=body["j"],
        verdict=Verdict.from_json(body["v"]),
        issued_at=issued_at,
        authoritative=body.get("c") is True,
    )


@dataclass(frozen=True)
class _Keyring:
    sealing: str  # the id of the key sealing new tokens
    keys: dict[str, Fernet]  # every key that reads tokens, by id


@lru_cache(maxsize=4)
def _keyring_of(token_keys: tuple[TokenKey, ...], secret_key: str) -> _Keyring:
    keys = {key.id: _derive(key.secret or secret_key) for key in token_keys}
    return _Keyring(token_keys[0].id, keys)


def _derive(secret: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_PURPOSE).derive(secret.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def _keyring() -> _Keyring:
    settings = get_settings()
    return _keyring_of(settings.browser.token_keys, settings.secret_key)


def _fernet(token_key: str) -> Fernet:
    """The key that sealed a token by its id; ``TokenKeyRetired`` when no configured key has it."""
    fernet = _keyring().keys.get(token_key)
    if fernet is None:
        raise TokenKeyRetired(
            f"This verdict token was sealed with the token key {token_key!r}, which this service no longer "
            "holds (its token keys were rotated since): do not trust the verdict the page reported; "
            "validate the address from your server instead."
        )
    return fernet
