"""Auto-rotated secrets, sealed at rest until their owner reveals them once (docs/decisions.md, Key rotation).

Spec 5.1 keeps only a SHA-256 of a secret, so a secret minted by the beat task, with nobody there to read
the response, has to wait somewhere. It waits here, encrypted with AES-256-GCM under the server's
``KEY_SEALING_KEY`` (never in the database), with the key id and secret generation as associated data so a
sealed row cannot be moved to another key or survive a later refresh. It is never emailed or put in an
event. ``reveal`` decrypts it for an authenticated caller allowed to manage the key and deletes it in the
same transaction: shown once, like a secret at creation. Unrevealed rows expire after ``REVEAL_WINDOW``.

Trade-off accepted: whoever holds both a database dump and the sealing key can read secrets waiting to be
revealed (at most ``REVEAL_WINDOW`` old). That is the price of rotating without a person present.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core import clock
from core.times import EPOCH
from models.audit import AuditEvent
from models.keys import ApiKey, SealedSecret
from models.session import transaction
from services import audit, sealing
from services.auth import Actor
from services.errors import NotFound
from services.keys import lifecycle, secrets

REVEAL_WINDOW = timedelta(days=7)


def seal(session: Session, key: ApiKey, secret: str) -> SealedSecret:
    """Keep ``secret`` (the key's current one) encrypted until revealed; replaces any older sealed one."""
    session.execute(delete(SealedSecret).where(SealedSecret.key_id == key.id))
    nonce, ciphertext = sealing.seal(secret.encode(), _bound_to(key.id, key.secret_issued_at))
    sealed = SealedSecret(
        key_id=key.id,
        secret_issued_at=key.secret_issued_at,
        nonce=nonce,
        ciphertext=ciphertext,
        expires_at=clock.now() + REVEAL_WINDOW,
    )
    session.add(sealed)
    return sealed


def reveal(actor: Actor, key_id: int) -> lifecycle.IssuedKey:
    """The auto-rotated secret of ``key_id``, once; ``NotFound`` if there is none to show (any more)."""
    with transaction() as session:
        key = lifecycle.lock_managed_key(session, actor, key_id)
        sealed = session.get(SealedSecret, key.id, with_for_update=True)
        if sealed is None or (secret := _open(sealed, key)) is None:
            raise NotFound(
                f"Key {key_id} has no auto-rotated secret waiting: it was revealed already, expired after "
                f"{REVEAL_WINDOW.days} days, or replaced by a refresh. Refresh the key to get a new secret."
            )
        session.delete(sealed)
        audit.record(
            AuditEvent.KEY_SECRET_REVEALED,
            account_id=key.account_id,
            key_id=actor.key_id,
            origin=actor.origin,
            details={"keyId": key.id},
            session=session,
        )
        return lifecycle.IssuedKey(key=key, secret=secret)


def waiting_for_reveal(actor: Actor) -> set[int]:
    """Ids of the caller's keys with an auto-rotated secret still waiting to be revealed (the dashboard
    offers the reveal button only there; ``reveal`` remains the authority on whether it can be shown)."""
    stmt = (
        select(SealedSecret.key_id)
        .join(ApiKey, ApiKey.id == SealedSecret.key_id)
        .where(ApiKey.account_id == actor.account.id, SealedSecret.expires_at > clock.now())
        .where(SealedSecret.secret_issued_at == ApiKey.secret_issued_at)
    )
    with transaction() as session:
        return set(session.scalars(stmt))


def purge_expired() -> int:
    """Forget secrets nobody revealed in time; the key keeps working with them, the owner refreshes it."""
    with transaction() as session:
        result = session.execute(delete(SealedSecret).where(SealedSecret.expires_at <= clock.now()))
        return int(getattr(result, "rowcount", 0) or 0)


def _open(sealed: SealedSecret, key: ApiKey) -> str | None:
    """The plaintext, or None when the row is stale (expired, or from an older generation of the key)."""
    if sealed.expires_at <= clock.now() or sealed.secret_issued_at != key.secret_issued_at:
        return None
    plain = sealing.unseal(sealed.nonce, sealed.ciphertext, _bound_to(key.id, key.secret_issued_at))
    if plain is None:  # sealed under another KEY_SEALING_KEY (rotated server key): nothing to show
        return None
    secret = plain.decode()
    # The decisive check: only the key's current secret is shown (a refresh in the same instant as the
    # rotation has the same issue time, but not the same hash).
    return secret if secrets.matches(secret, key.secret_hash) else None


def _bound_to(key_id: int, issued_at: datetime) -> bytes:
    microseconds = (issued_at - EPOCH) // timedelta(microseconds=1)
    return f"verimail sealed secret:{key_id}:{microseconds}".encode()
