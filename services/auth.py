"""Authentication (who is calling) and authorization (may they do this), with their audit entries.

``authenticate`` turns a presented key into an ``AuthContext`` or raises MISSING/INVALID_API_KEY or
IP_NOT_ALLOWED; ``authorize`` checks one required scope. The web tier keeps the context on ``g.auth``
for the request, and every capability (validation, usage, webhooks, limits) reads the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from sqlalchemy import select
from sqlalchemy.orm import joinedload

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.keys import ApiKey
from models.session import transaction
from services import audit, audit_folding, snapshots
from services.errors import InsufficientPermissions, InvalidApiKey, IpNotAllowed, MissingApiKey
from services.keys import allowlist, last_used, rotation_policy, scopes, secrets

INVALID_MESSAGE = "The API key is not valid: it may be mistyped, revoked or deactivated."
# Found keys with their account, by (publishable?, SHA-256 of the credential): ``services.snapshots`` says
# how a revocation, a rotation or a suspension reaches every process at once (at most TTL_SECONDS).
_KEYS: snapshots.Snapshots[tuple[bool, str], ApiKey] = snapshots.Snapshots()


@dataclass(frozen=True)
class AuthContext:
    """The authenticated caller: its account, its key row (a detached snapshot) and where it called from."""

    account: Account
    key: ApiKey
    is_publishable: bool
    origin: audit.Origin

    @property
    def scopes(self) -> list[str]:
        return list(self.key.scopes)


def authenticate(credential: str | None, origin: audit.Origin) -> AuthContext:
    """Find the key behind ``credential`` and check it may be used from ``origin.ip``."""
    if not credential:
        raise MissingApiKey("No API key supplied. Send it in the X-API-Key header.")
    is_publishable = credential.startswith(secrets.PUBLISHABLE_PREFIX)
    snapshots.sync()
    cache_key = (is_publishable, secrets.hash_secret(credential))
    key = _KEYS.get(cache_key, lambda: _find_key(credential, is_publishable))
    if key is None or not key.is_usable or _past_deactivation(key) or key.account.suspended_at is not None:
        _record_failure(key, origin)
        raise InvalidApiKey(INVALID_MESSAGE)
    if not allowlist.permits(key.allowed_ips, origin.ip):
        _record(AuditEvent.IP_DENIED, key, origin, clientIp=origin.ip)
        raise IpNotAllowed(
            f"Requests with this key must come from an allowed IP address; {origin.ip} is not one.",
            client_ip=origin.ip,
            allowed=None if is_publishable else key.allowed_ips,
        )
    last_used.note_use(key)
    return AuthContext(account=key.account, key=key, is_publishable=is_publishable, origin=origin)


def _past_deactivation(key: ApiKey) -> bool:
    """Day 97 of the secret's life (spec 3.1) ends it at that instant, whether or not the rotation sweeper
    has run since: a stopped or late beat must not extend a key's life."""
    return clock.now() >= rotation_policy.stops_working_at(key)


def _record_failure(key: ApiKey | None, origin: audit.Origin) -> None:
    """A revoked, deactivated or expired key, or one of a suspended account, is its account's business; an
    unknown key names nobody. Both are folded per key, source IP and minute (``services.audit_folding``)."""
    if key is not None:
        status = "expired" if key.is_usable else key.status
        reason = "account suspended" if key.account.suspended_at is not None else f"key {status}"
        _record(AuditEvent.AUTH_FAILED, key, origin, reason=reason)
    else:
        _record(AuditEvent.AUTH_FAILED, None, origin, reason="unknown key")


def _find_key(credential: str, is_publishable: bool) -> ApiKey | None:
    """One indexed lookup: by plaintext for publishable keys, by SHA-256 for secret keys. The row is a
    detached snapshot shared by concurrent requests of this process: read it, never change it."""
    stmt = select(ApiKey).options(joinedload(ApiKey.account))
    if is_publishable:
        stmt = stmt.where(ApiKey.publishable_key == credential)
    elif credential.startswith(secrets.SECRET_PREFIX):
        stmt = stmt.where(ApiKey.secret_hash == secrets.hash_secret(credential))
    else:
        return None
    with transaction() as session:
        key = session.scalars(stmt).one_or_none()
    if key is not None and not is_publishable and not secrets.matches(credential, key.secret_hash):
        return None
    return key


def authorize(
    auth: AuthContext, required: str, *, publishable_ok: bool = False, alternatives: tuple[str, ...] = ()
) -> None:
    """Raise INSUFFICIENT_PERMISSIONS unless the caller's key covers ``required`` or one of ``alternatives``.

    Publishable keys live in browsers and apps where anyone can read them, so they pass only where a
    route opted in (``publishable_ok``, read-only routes) and never for creating, rotating, revoking or
    validating, whatever scopes their key row carries.
    """
    if auth.is_publishable and not publishable_ok:
        deny(auth, required, "Publishable keys are read-only and cannot be used here; use the secret key.")
    if not any(scopes.allows(auth.scopes, scope) for scope in (required, *alternatives)):
        deny(auth, required, f"This key lacks the {required} scope needed for this request.")


def deny(auth: AuthContext, required: str, message: str) -> NoReturn:
    """Record a scope violation and raise it (also used by rules such as 'only admins grant *:*')."""
    _record(AuditEvent.SCOPE_DENIED, auth.key, auth.origin, requiredScope=required)
    granted = None if auth.is_publishable else auth.scopes
    raise InsufficientPermissions(message, required=required, granted=granted)


def _record(event: AuditEvent, key: ApiKey | None, origin: audit.Origin, **details: object) -> None:
    """A failure's entry in its own transaction (the request is about to fail, the trail must stay),
    folded with the others of its key, type and source IP this minute: a caller cannot flood the log."""
    account_id, key_id = (key.account_id, key.id) if key is not None else (None, None)
    audit_folding.record_folded(event, account_id=account_id, key_id=key_id, origin=origin, details=details)
