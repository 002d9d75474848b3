"""Password hashing with argon2id (argon2-cffi's defaults, RFC 9106's second recommended profile).

The hash string carries its own parameters and salt, so raising the cost later only needs ``needs_rehash``
at the next sign-in. ``DUMMY_HASH`` is verified against when an email is unknown, so a sign-in takes the
same time whether or not the account exists.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from services.users.errors import WeakPassword

MIN_LENGTH = 10
# Long enough for any passphrase or manager, short enough that hashing cannot be used to burn our CPU.
MAX_LENGTH = 256
_HASHER = PasswordHasher()
DUMMY_HASH = _HASHER.hash("not a password anyone has")


def check_strength(password: str) -> None:
    """Length is the rule (NIST SP 800-63B): no composition rules, which push people to predictable tricks."""
    if len(password) < MIN_LENGTH:
        raise WeakPassword(f"Choose a password of at least {MIN_LENGTH} characters.")
    if len(password) > MAX_LENGTH:
        raise WeakPassword(f"Passwords are limited to {MAX_LENGTH} characters.")
    if not password.strip():
        raise WeakPassword("A password cannot be only spaces.")


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify(stored_hash: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored_hash, password[:MAX_LENGTH])
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored_hash: str) -> bool:
    return _HASHER.check_needs_rehash(stored_hash)
