"""A reseller's white-label settings (spec 1, 2.3): the name, support contact and documentation URL its
own and its sub-users' results carry instead of ours while the switch is on (``services.branding``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.dialects.postgresql import insert

from core import clock
from models.audit import AuditEvent
from models.resellers import WhiteLabel
from models.session import transaction
from services import audit
from services.auth import Actor
from services.errors import InvalidField
from services.resellers.access import ensure_acting_reseller

FIELDS = ("provider", "support", "documentation")


@dataclass(frozen=True)
class WhiteLabelSettings:
    enabled: bool
    provider: str | None = None
    support: str | None = None
    documentation: str | None = None
    updated_at: datetime | None = None  # None: never saved


def get(actor: Actor) -> WhiteLabelSettings:
    ensure_acting_reseller(actor)
    with transaction() as session:
        row = session.get(WhiteLabel, actor.account.id)
    if row is None:
        return WhiteLabelSettings(enabled=False)
    return WhiteLabelSettings(row.enabled, row.provider, row.support, row.documentation, row.updated_at)


def put(actor: Actor, wanted: WhiteLabelSettings) -> WhiteLabelSettings:
    """Replace the settings; switching on needs all three values (every branded result carries them)."""
    ensure_acting_reseller(actor)
    if wanted.enabled:
        for name in FIELDS:
            if getattr(wanted, name) is None:
                raise InvalidField(name, f"{name} is required to switch white-label on.")
    now = clock.now()
    values = {
        "enabled": wanted.enabled,
        **{name: getattr(wanted, name) for name in FIELDS},
        "updated_at": now,
    }
    with transaction() as session:
        session.execute(
            insert(WhiteLabel)
            .values(reseller_id=actor.account.id, **values)
            .on_conflict_do_update(index_elements=["reseller_id"], set_=values)
        )
        audit.record(
            AuditEvent.WHITE_LABEL_UPDATED,
            account_id=actor.account.id,
            key_id=actor.key_id,
            origin=actor.origin,
            details={"enabled": wanted.enabled},
            session=session,
        )
    return WhiteLabelSettings(wanted.enabled, wanted.provider, wanted.support, wanted.documentation, now)
