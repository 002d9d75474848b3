"""API key lifecycle: issue, list, update, delete, rotate the secret, deactivate, revoke all.

The lifecycle functions that take a ``Session`` (``issue``, ``rotate_secret``, ``deactivate``) join the
caller's transaction: the rotation sweeper calls them, and they emit ``key.created``/``key.disabled``. The
functions that take an ``Actor`` are the API's and the dashboard's: they add who-may rules and own the
transaction.

Who may: every function is scoped to the caller's account (another account's key id is "not found").
A key that does not hold ``*:*`` cannot grant ``*:*``, ``keys:write`` or a reseller scope, nor manage another
key that holds one, so ``keys:write`` never escalates (by rotating an admin key, say, and reading its new
secret, or by giving itself ``resellers:write``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.keys import DEFAULT_DAILY_BUDGET, DEFAULT_MONTHLY_BUDGET, ApiKey, KeyStatus
from models.session import transaction
from services import audit
from services.auth import Actor, deny, require_live
from services.errors import NotFound
from services.keys import retired_secrets, scopes, secrets
from services.keys.errors import KeyInactive, KeyLimitReached
from services.keys.scopes import ADMIN, DEFAULT_SCOPES
from services.resellers.access import ensure_reseller
from services.usage.plans import plan_for
from services.webhooks import events, payloads

LIVE_KEYS_ONLY_LIVE = "A live key can be created in live mode only: a test key never makes a live one."


@dataclass(frozen=True)
class KeySpec:
    """What a new key should be; values are already validated (names, scopes, normalised IPs and origins)."""

    name: str
    scopes: tuple[str, ...] = DEFAULT_SCOPES
    allowed_ips: tuple[str, ...] = ()
    auto_rotate: bool = False
    allowed_origins: tuple[str, ...] = ()
    livemode: bool = True  # False: a test-mode key (``sk_test_``/``pk_test_``)
    # What web pages may have validated with the publishable key per UTC day and billing period.
    publishable_daily_budget: int = DEFAULT_DAILY_BUDGET
    publishable_monthly_budget: int = DEFAULT_MONTHLY_BUDGET


@dataclass(frozen=True)
class KeyChanges:
    """A partial update: ``None`` leaves a field as it is."""

    name: str | None = None
    scopes: tuple[str, ...] | None = None
    allowed_ips: tuple[str, ...] | None = None
    auto_rotate: bool | None = None
    allowed_origins: tuple[str, ...] | None = None
    publishable_daily_budget: int | None = None
    publishable_monthly_budget: int | None = None


@dataclass(frozen=True)
class IssuedKey:
    """A key together with its plaintext secret, which exists only in this object and the response."""

    key: ApiKey
    secret: str = field(repr=False)


# -- lifecycle (session in, no permission rules) ---------------------------------------------------------


def issue(
    session: Session,
    account: Account,
    spec: KeySpec,
    origin: audit.Origin = audit.SYSTEM,
    actor_key_id: int | None = None,
) -> IssuedKey:
    """Create a key row, its ``key.created`` audit entry and event inside the caller's transaction."""
    secret = secrets.new_secret(spec.livemode)
    key = ApiKey(
        account_id=account.id,
        name=spec.name,
        scopes=list(spec.scopes),
        allowed_ips=list(spec.allowed_ips),
        allowed_origins=list(spec.allowed_origins),
        auto_rotate=spec.auto_rotate,
        secret_hash=secrets.hash_secret(secret),
        secret_last4=secret[-4:],
        publishable_key=secrets.new_publishable_key(spec.livemode),
        status=KeyStatus.ACTIVE.value,
        secret_issued_at=clock.now(),
        livemode=spec.livemode,
        publishable_daily_budget=spec.publishable_daily_budget,
        publishable_monthly_budget=spec.publishable_monthly_budget,
    )
    session.add(key)
    session.flush()
    origins = {"allowedOrigins": key.allowed_origins} if key.allowed_origins else {}
    _audit(
        session,
        AuditEvent.KEY_CREATED,
        key,
        origin,
        actor_key_id,
        name=key.name,
        scopes=key.scopes,
        **origins,
    )
    _emit_key_event(session, key, "key.created", payloads.key_created(key))
    return IssuedKey(key=key, secret=secret)


def rotate_secret(
    session: Session,
    key: ApiKey,
    origin: audit.Origin = audit.SYSTEM,
    actor_key_id: int | None = None,
    *,
    trigger: str = "refresh",
) -> str:
    """Give ``key`` a new secret: the old one stops matching at commit; the publishable key stays.

    Restarts the 90-day clock and brings a grace-period key back to active. ``trigger`` (refresh or
    auto-rotation) goes to the audit entry. Both rotations emit ``key.disabled`` (reason ``rotated``, naming
    the old secret's last four characters) then ``key.created`` (the new ones): spec 3.1 calls the result
    a new key, and a receiver mirroring its keys sees the credential it held stop and the new one start.
    """
    if not key.is_usable:
        raise KeyInactive("This key was deactivated and cannot be recovered; create a new key instead.")
    now = clock.now()
    _emit_key_event(session, key, "key.disabled", payloads.key_disabled(key, "rotated", now))
    retired_secrets.retire(session, key, retired_secrets.ROTATED)
    secret = secrets.new_secret(key.livemode)
    key.secret_hash, key.secret_last4 = secrets.hash_secret(secret), secret[-4:]
    key.secret_issued_at, key.status = now, KeyStatus.ACTIVE.value
    _audit(session, AuditEvent.KEY_ROTATED, key, origin, actor_key_id, trigger=trigger)
    _emit_key_event(session, key, "key.created", payloads.key_created(key))
    return secret


def deactivate(
    session: Session,
    key: ApiKey,
    reason: str,
    origin: audit.Origin = audit.SYSTEM,
    actor_key_id: int | None = None,
) -> None:
    """Make ``key`` inactive for good (spec 3.1: no recovery) and emit ``key.disabled``."""
    key.status, key.deactivated_at = KeyStatus.INACTIVE.value, clock.now()
    _audit(session, AuditEvent.KEY_DEACTIVATED, key, origin, actor_key_id, reason=reason)
    payload = payloads.key_disabled(key, reason, key.deactivated_at)
    _emit_key_event(session, key, "key.disabled", payload)


def _audit(
    session: Session,
    event: AuditEvent,
    key: ApiKey,
    origin: audit.Origin,
    actor_key_id: int | None,
    **details: object,
) -> None:
    """A test key's entries belong to the test-mode trail."""
    details = {"keyId": key.id, **details}
    audit.record(
        event,
        account_id=key.account_id,
        key_id=actor_key_id,
        origin=origin,
        details=details,
        session=session,
        livemode=key.livemode,
    )


# -- API operations (caller in, permission rules, own transaction) ---------------------------------------

# Fields whose new value the ``key.updated`` entry shows in full, by their API name.
_AUDITED = {
    "allowed_origins": "allowedOrigins",
    "publishable_daily_budget": "publishableDailyBudget",
    "publishable_monthly_budget": "publishableMonthlyBudget",
}


def create_key(actor: Actor, spec: KeySpec) -> IssuedKey:
    """Create a key in the caller's account, within the tier's key limit. A live caller may create a test
    key (how an account gets its first one); a test caller never a live key: a sandbox credential must not
    mint one that spends quota, whatever its scopes (LIVE_MODE_REQUIRED, before any scope rule)."""
    if spec.livemode:
        require_live(actor, LIVE_KEYS_ONLY_LIVE)
    _check_may_grant(actor, spec.scopes)
    with transaction() as session:
        # Lock the account row so two concurrent creations cannot both see "one slot left".
        account = session.get_one(Account, actor.account.id, with_for_update=True)
        _check_key_limit(session, account, spec.livemode)
        return issue(session, account, spec, actor.origin, actor.key_id)


def list_keys(actor: Actor) -> list[ApiKey]:
    """Every key of the caller's account and mode, oldest first, inactive ones included (shown as such)."""
    stmt = select(ApiKey).where(_of_caller(actor)).order_by(ApiKey.id)
    with transaction() as session:
        return list(session.scalars(stmt))


def get_key(actor: Actor, key_id: int) -> ApiKey:
    with transaction() as session:
        return _owned_key(session, actor, key_id)


def update_key(actor: Actor, key_id: int, changes: KeyChanges) -> ApiKey:
    """Change name, scopes, allowlist, allowed origins, the publishable budget or auto-rotation; the secret
    is untouched. The audit entry names the fields changed, and the new origins and budget in full: they
    decide which web pages may spend how much of the account's quota."""
    if changes.scopes is not None:
        _check_may_grant(actor, changes.scopes)
    with transaction() as session:
        key = _owned_key(session, actor, key_id, managing=True)
        values = {name: value for name, value in vars(changes).items() if value is not None}
        for name, value in values.items():
            setattr(key, name, list(value) if isinstance(value, tuple) else value)
        shown = {_AUDITED[name]: getattr(key, name) for name in values if name in _AUDITED}
        fields = sorted(values)
        _audit(session, AuditEvent.KEY_UPDATED, key, actor.origin, actor.key_id, fields=fields, **shown)
        return key


def delete_key(actor: Actor, key_id: int) -> None:
    """Remove a key for good; its audit trail stays (entries keep the id, not a foreign key)."""
    with transaction() as session:
        key = _owned_key(session, actor, key_id, managing=True)
        _audit(session, AuditEvent.KEY_DELETED, key, actor.origin, actor.key_id, name=key.name)
        if key.is_usable:  # deleting an already inactive key disables nothing
            payload = payloads.key_disabled(key, "deleted", clock.now())
            _emit_key_event(session, key, "key.disabled", payload)
        retired_secrets.retire(session, key, retired_secrets.DELETED)
        session.delete(key)


def refresh_key(actor: Actor, key_id: int) -> IssuedKey:
    """Manual rotation (spec 4.4): a new secret now, the old one invalid at once."""
    with transaction() as session:
        key = _owned_key(session, actor, key_id, managing=True)
        secret = rotate_secret(session, key, actor.origin, actor.key_id)
        return IssuedKey(key=key, secret=secret)


def revoke_all(actor: Actor) -> int:
    """Emergency revocation (spec 4.5): every usable key of the account in the caller's mode, the caller's
    own included (a test key cannot revoke the live keys, nor a live key's panic the test ones)."""
    stmt = select(ApiKey).where(_of_caller(actor), ApiKey.status != KeyStatus.INACTIVE)
    with transaction() as session:
        keys = list(session.scalars(stmt.with_for_update()))
        for key in keys:
            deactivate(session, key, "revoke-all", actor.origin, actor.key_id)
        audit.record(
            AuditEvent.KEYS_REVOKED_ALL,
            account_id=actor.account.id,
            key_id=actor.key_id,
            origin=actor.origin,
            details={"revokedCount": len(keys)},
            session=session,
            livemode=actor.livemode,
        )
    return len(keys)


def lock_managed_key(session: Session, actor: Actor, key_id: int) -> ApiKey:
    """``key_id`` of the caller's account, row-locked, if the caller may manage it (as refresh requires)."""
    return _owned_key(session, actor, key_id, managing=True)


def _owned_key(session: Session, actor: Actor, key_id: int, *, managing: bool = False) -> ApiKey:
    stmt = select(ApiKey).where(ApiKey.id == key_id, _of_caller(actor))
    key = session.scalars(stmt.with_for_update() if managing else stmt).one_or_none()
    if key is None:
        raise NotFound(f"No API key with id {key_id}.")
    if managing:
        _check_may_manage(actor, key)
    return key


def _of_caller(actor: Actor) -> ColumnElement[bool]:
    """The caller's account and mode: live keys manage live keys, test keys test keys."""
    return and_(ApiKey.account_id == actor.account.id, ApiKey.livemode == actor.livemode)


def _check_may_grant(actor: Actor, granting: tuple[str, ...]) -> None:
    """Only an admin (``*:*``) grants ``*:*``, ``keys:write`` or a reseller scope, so ``keys:write`` never
    escalates; reseller scopes exist only on a plan with reseller features."""
    privileged = [scope for scope in granting if scope in scopes.PRIVILEGED]
    if privileged and ADMIN not in actor.scopes:
        deny(actor, ADMIN, f"Only a key with the *:* scope can grant {', '.join(privileged)}.")
    if any(scope in scopes.RESELLER_SCOPES for scope in granting):
        ensure_reseller(actor.account)


def _check_may_manage(actor: Actor, key: ApiKey) -> None:
    """Rotating or changing a key hands its powers to the caller: a key holding a privileged scope is
    managed by an admin, or by itself (a key may always rotate its own secret)."""
    holds_power = any(scope in scopes.PRIVILEGED for scope in key.scopes)
    if holds_power and key.id != actor.key_id and ADMIN not in actor.scopes:
        deny(
            actor,
            ADMIN,
            "Only a key with the *:* scope can manage a key holding *:*, keys:write or a reseller scope.",
        )


def _check_key_limit(session: Session, account: Account, livemode: bool) -> None:
    """The plan's limit counts the keys of one mode: test keys never take a live key's slot."""
    plan = plan_for(account.tier)
    if plan.key_limit is None:
        return
    usable = select(func.count()).where(
        ApiKey.account_id == account.id, ApiKey.status != KeyStatus.INACTIVE, ApiKey.livemode == livemode
    )
    if (session.scalar(usable) or 0) >= plan.key_limit:
        raise KeyLimitReached(
            f"The {plan.name} plan allows {plan.key_limit} active keys; delete or revoke one, or upgrade.",
            limit=plan.key_limit,
            tier=plan.tier.value,
        )


def _emit_key_event(session: Session, key: ApiKey, event_type: str, data: dict[str, object]) -> None:
    """A test key's events are test-mode events: they reach test-mode endpoints only."""
    events.emit(session, key.account_id, event_type, data, livemode=key.livemode)
