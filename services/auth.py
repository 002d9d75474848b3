"""Authentication (who is calling) and authorization (may they do this), with their audit entries.

``authenticate`` turns a presented key into an ``AuthContext`` or raises MISSING/INVALID_API_KEY or
IP_NOT_ALLOWED; ``authorize`` checks one required scope. The web tier keeps the context on ``g.auth``
for the request. Services take an ``Actor``: an API key's ``AuthContext``, or the account's owner signed in
to the dashboard (``services.users.acting.Owner``), so both act through the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NoReturn, Protocol, Self

from sqlalchemy import select
from sqlalchemy.orm import joinedload

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.keys import ApiKey
from models.session import transaction
from services import audit, audit_folding, snapshots
from services.errors import (
    InsufficientPermissions,
    InvalidApiKey,
    IpNotAllowed,
    LiveModeRequired,
    MissingApiKey,
)
from services.keys import allowlist, last_used, retired_secrets, rotation_policy, scopes, secrets

INVALID_MESSAGE = "The API key is not valid: it may be mistyped, revoked or deactivated."
UNVERIFIED_MESSAGE = (
    "The API key's account has not confirmed its email address yet: follow the link emailed to its owner, "
    "then this key works."
)
# Found keys with their account, by (publishable?, SHA-256 of the credential): ``services.snapshots`` says
# how a revocation, a rotation or a suspension reaches every process on the next request.
_KEYS: snapshots.Snapshots[tuple[bool, str], ApiKey] = snapshots.Snapshots()


@dataclass(frozen=True)
class Presented:
    """A credential as presented: kept for the request so a snapshot can be confirmed by reading again."""

    credential: str = field(repr=False)

    @property
    def is_publishable(self) -> bool:
        return secrets.is_publishable(self.credential)

    @property
    def cache_key(self) -> tuple[bool, str]:
        return (self.is_publishable, secrets.hash_secret(self.credential))


class Actor(Protocol):
    """Who acts on an account: an API key (``AuthContext``) or its signed-in owner. Audit entries carry the
    acting key's id, or with no key (``key_id`` None) name the owner through ``origin.dashboard_user``."""

    @property
    def account(self) -> Account: ...
    @property
    def origin(self) -> audit.Origin: ...
    @property
    def key_id(self) -> int | None: ...
    @property
    def scopes(self) -> list[str]: ...
    @property
    def is_publishable(self) -> bool: ...
    @property
    def livemode(self) -> bool:
        """False in test mode (a test key, the dashboard's test switch): the sandbox, nothing charged, and
        only test-mode data seen or made."""

    @property
    def generation(self) -> str | None:
        """The key-state generation this actor was read under (``services.snapshots``); None when it was
        read for this request."""

    def confirmed(self, current: str | None) -> Self:
        """This actor as the ``current`` generation has it (``confirm``)."""


@dataclass(frozen=True)
class AuthContext:
    """The authenticated caller: its account, its key row (a detached snapshot) and where it called from.

    ``generation`` is the snapshot generation the key was read under when it came from this process's
    memory (``confirm`` checks it against the current one), None when it was read from Postgres for this
    request.
    """

    account: Account
    key: ApiKey
    is_publishable: bool
    origin: audit.Origin
    presented: Presented | None = field(default=None, repr=False)
    generation: str | None = None

    @property
    def scopes(self) -> list[str]:
        return list(self.key.scopes)

    @property
    def key_id(self) -> int:
        return self.key.id

    @property
    def livemode(self) -> bool:
        return self.key.livemode

    def confirmed(self, current: str | None) -> AuthContext:
        return confirm(self, current)


def authenticate(credential: str | None, origin: audit.Origin) -> AuthContext:
    """Find the key behind ``credential`` and check it may be used from ``origin.ip``.

    The key may come from this process's snapshot: the caller confirms it (``confirm``) with the
    generation its rate-limit round trip returns before serving the request.
    """
    if not credential:
        raise MissingApiKey("No API key supplied. Send it in the X-API-Key header.")
    presented = Presented(credential)
    found = _KEYS.get(presented.cache_key, lambda: _find_key(presented))
    return _admit(presented, found.value, origin, found.generation)


def confirm(auth: AuthContext, current: str | None) -> AuthContext:
    """``auth`` itself when its key was read under the ``current`` generation (or for this request);
    otherwise the key read again, admitted or refused as a fresh request would be."""
    if auth.generation is None or auth.generation == current or auth.presented is None:
        return auth
    return _read_again(auth.presented, auth.origin, current)


def _read_again(presented: Presented, origin: audit.Origin, current: str | None) -> AuthContext:
    key = _KEYS.reload(presented.cache_key, current, lambda: _find_key(presented))
    return _admit(presented, key, origin, None)


def _admit(
    presented: Presented, key: ApiKey | None, origin: audit.Origin, generation: str | None
) -> AuthContext:
    """The checks of a key found for ``presented``; a refusal based on a snapshot is confirmed first
    (a reactivated account, a widened allowlist must not be refused on the next request either)."""
    usable = key is not None and key.is_usable and not _past_deactivation(key)
    if key is None or not usable or key.account.suspended_at is not None or not _verified(key):
        if generation is not None:
            return _read_again(presented, origin, snapshots.read_generation())
        _record_failure(key, presented, origin)
        raise InvalidApiKey(UNVERIFIED_MESSAGE if key is not None and not _verified(key) else INVALID_MESSAGE)
    if not allowlist.permits(key.allowed_ips, origin.ip):
        if generation is not None:
            return _read_again(presented, origin, snapshots.read_generation())
        _record(AuditEvent.IP_DENIED, key, origin, clientIp=origin.ip)
        raise IpNotAllowed(
            f"Requests with this key must come from an allowed IP address; {origin.ip} is not one.",
            client_ip=origin.ip,
            allowed=None if presented.is_publishable else key.allowed_ips,
        )
    last_used.note_use(key)
    return AuthContext(key.account, key, presented.is_publishable, origin, presented, generation)


def _verified(key: ApiKey) -> bool:
    return key.account.email_verified_at is not None


def _past_deactivation(key: ApiKey) -> bool:
    """Day 97 of the secret's life (spec 3.1) ends it at that instant, whether or not the rotation sweeper
    has run since: a stopped or late beat must not extend a key's life. Test keys have no day 97."""
    return key.livemode and clock.now() >= rotation_policy.stops_working_at(key)


def _record_failure(key: ApiKey | None, presented: Presented, origin: audit.Origin) -> None:
    """A revoked, deactivated or expired key, one of a suspended account, or a secret the account rotated
    away or deleted, is that account's business; an unknown key names nobody. All are folded per key,
    source IP and minute (``services.audit_folding``)."""
    if key is not None:
        status = "expired" if key.is_usable else key.status
        reason = "account suspended" if key.account.suspended_at is not None else f"key {status}"
        reason = reason if _verified(key) else "email not verified"
        _record(AuditEvent.AUTH_FAILED, key, origin, reason=reason)
        return
    retired = retired_secrets.find(presented.cache_key[1]) if not presented.is_publishable else None
    if retired is None:
        _record(AuditEvent.AUTH_FAILED, None, origin, reason="unknown key")
        return
    audit_folding.record_folded(
        AuditEvent.AUTH_FAILED,
        account_id=retired.account_id,
        key_id=retired.key_id,
        origin=origin,
        details={"reason": f"secret {retired.reason}"},
    )


def _find_key(presented: Presented) -> ApiKey | None:
    """One indexed lookup: by plaintext for publishable keys, by SHA-256 for secret keys. The row is a
    detached snapshot shared by concurrent requests of this process: read it, never change it."""
    credential = presented.credential
    stmt = select(ApiKey).options(joinedload(ApiKey.account))
    if presented.is_publishable:
        stmt = stmt.where(ApiKey.publishable_key == credential)
    elif secrets.is_secret(credential):
        stmt = stmt.where(ApiKey.secret_hash == secrets.hash_secret(credential))
    else:
        return None
    with transaction() as session:
        key = session.scalars(stmt).one_or_none()
    if key is not None and not presented.is_publishable and not secrets.matches(credential, key.secret_hash):
        return None
    return key


@dataclass(frozen=True)
class KeyKinds:
    """Which half of a key a route takes: secret keys everywhere, publishable keys only where a route opts
    in (read-only routes, and the one endpoint web pages validate with), secret keys not at all there."""

    publishable: bool = False
    secret: bool = True


SECRET_ONLY = KeyKinds()
PUBLISHABLE_ONLY = KeyKinds(publishable=True, secret=False)
FOR_PAGES_ONLY = (
    "This endpoint is for web pages, which take the publishable key (pk_live_...): a secret key must never "
    "reach a browser. Servers validate with POST /validate."
)


def authorize(
    auth: AuthContext, required: str, *, kinds: KeyKinds = SECRET_ONLY, alternatives: tuple[str, ...] = ()
) -> AuthContext:
    """Raise INSUFFICIENT_PERMISSIONS unless the caller's key covers ``required`` or one of ``alternatives``;
    the caller as confirmed (a refusal from a snapshot is checked against the key as it is now).

    Publishable keys live in browsers and apps where anyone can read them, so they pass only where a
    route opted in (``kinds``): read-only routes, and browser validation, which spec 5.1's "client-side
    use" exists for (validating an address is no sensitive action: docs/decisions.md). Never for creating,
    rotating or revoking, whatever scopes their key row carries.
    """
    if _permits(auth, required, kinds, alternatives):
        return auth
    auth = confirm(auth, snapshots.read_generation())
    if auth.is_publishable and not kinds.publishable:
        deny(auth, required, "Publishable keys are read-only and cannot be used here; use the secret key.")
    if not any(scopes.allows(auth.scopes, scope) for scope in (required, *alternatives)):
        deny(auth, required, f"This key lacks the {required} scope needed for this request.")
    if not auth.is_publishable and not kinds.secret:
        deny(auth, required, FOR_PAGES_ONLY)
    return auth


def _permits(auth: AuthContext, required: str, kinds: KeyKinds, alternatives: tuple[str, ...]) -> bool:
    if not (kinds.publishable if auth.is_publishable else kinds.secret):
        return False
    return any(scopes.allows(auth.scopes, scope) for scope in (required, *alternatives))


LIVE_ONLY_HOW = "Use a live key (sk_live_...), or switch the dashboard to live data."


def require_live(actor: Actor, what: str) -> None:
    """Raise LIVE_MODE_REQUIRED when ``actor`` acts in test mode: ``what`` says what exists only live and
    why. Checked before the scopes, as the plan is: a test key's scopes never reach live objects."""
    if not actor.livemode:
        raise LiveModeRequired(f"{what} This request was made in test mode. {LIVE_ONLY_HOW}")


def deny(actor: Actor, required: str, message: str) -> NoReturn:
    """Record a scope violation and raise it (also used by rules such as 'only admins grant *:*')."""
    audit_folding.record_folded(
        AuditEvent.SCOPE_DENIED,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"requiredScope": required},
        livemode=actor.livemode,
    )
    granted = None if actor.is_publishable else actor.scopes
    raise InsufficientPermissions(message, required=required, granted=granted)


def _record(event: AuditEvent, key: ApiKey | None, origin: audit.Origin, **details: object) -> None:
    """A failure's entry in its own transaction (the request is about to fail, the trail must stay),
    folded with the others of its key, type and source IP this minute: a caller cannot flood the log."""
    account_id, key_id = (key.account_id, key.id) if key is not None else (None, None)
    livemode = key.livemode if key is not None else True
    audit_folding.record_folded(
        event, account_id=account_id, key_id=key_id, origin=origin, details=details, livemode=livemode
    )
