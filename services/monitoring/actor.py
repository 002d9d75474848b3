"""Who runs a scheduled re-check: the account itself, with no key and no client (the audit's ``SYSTEM``).

The run is charged and admitted by the same ``services.validation.submit.admit`` as an upload, so quota,
overage and test mode's own usage apply to it as to any bulk list.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.accounts import Account
from services import audit


@dataclass(frozen=True)
class Scheduled:
    account: Account
    livemode: bool
    origin: audit.Origin = audit.SYSTEM
    key_id: None = None
    is_publishable: bool = False
    generation: None = None

    @property
    def scopes(self) -> list[str]:
        return []

    def confirmed(self, current: str | None) -> Scheduled:  # noqa: ARG002 - the signature of Actor.confirmed
        return self
