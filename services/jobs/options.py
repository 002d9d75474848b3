"""What a job asked for, stored with it as JSON, and the small conversions every job module shares."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import orjson

from core.times import iso
from models.accounts import Account
from services.usage.plans import plan_for
from verifier.engine import Options
from verifier.results import JsonValue, ValidationResult


@dataclass(frozen=True)
class JobOptions:
    """The client's switches and the plan's features at submission (a plan change mid-job changes nothing)."""

    quick_mode: bool = False
    skip_catch_all: bool = False
    features: tuple[str, ...] = ()
    # Temporary failures (greylisting, 421, timeouts) are answered unknown at once either way; with this
    # on they are also retried in the background until the job's deadline
    # (``services.probing.jobs.settling``).
    retry_temporary: bool = False
    # Seconds: an address this account validated within them (same switches) is answered from that verdict
    # instead of probing again (``services.jobs.recent``); 0 checks live.
    max_age: int = 0
    # False: a test-mode job (``verifier.sandbox`` answers it; nothing charged, seen by test keys only).
    livemode: bool = True

    @classmethod
    def for_account(
        cls,
        account: Account,
        *,
        quick_mode: bool,
        skip_catch_all: bool,
        retry_temporary: bool = False,
        max_age: int = 0,
        livemode: bool = True,
    ) -> JobOptions:
        features = _feature_names(account.tier)
        return cls(quick_mode, skip_catch_all, features, retry_temporary, max_age, livemode)

    def to_json(self) -> dict[str, Any]:
        return {
            "quickMode": self.quick_mode,
            "skipCatchAll": self.skip_catch_all,
            "features": list(self.features),
            "retryTemporary": self.retry_temporary,
            "maxAge": self.max_age,
            "livemode": self.livemode,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobOptions:
        # Jobs stored before the option existed kept retrying greylisted addresses: they still do.
        retry = bool(data.get("retryTemporary", True))
        switches = (bool(data["quickMode"]), bool(data["skipCatchAll"]), tuple(data["features"]), retry)
        return cls(*switches, int(data.get("maxAge", 0)), bool(data.get("livemode", True)))

    def client_switches(self) -> tuple[bool | int, ...]:
        """What the client chose, in a fixed order: part of an idempotent request's meaning. ``max_age``
        only when asked for, so the requests of before it keep their digests."""
        switches = (self.quick_mode, self.skip_catch_all, self.retry_temporary)
        return (*switches, self.max_age) if self.max_age else switches

    @property
    def engine(self) -> Options:
        return Options(self.quick_mode, self.skip_catch_all, frozenset(self.features))


@cache
def _feature_names(tier: str) -> tuple[str, ...]:
    """Per tier, once: plans are constants, and every request of a job or a quick validation asks."""
    return tuple(feature.value for feature in plan_for(tier).features)


def storable(text: str) -> str:
    """Text Postgres can hold: NUL and lone surrogates become backslash escapes (both are invalid anyway)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


def json_text(value: Any) -> str:
    """JSON for a statement parameter. orjson rather than ``json``: results are written by the thousand,
    and the ``json`` module's encoder builds every piece as a Python string first (a save's peak memory).
    Checks are keyed by the engine's ``StrEnum`` names: written as their values, as ``json`` does."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def stamped(
    result: dict[str, JsonValue], checked_at: datetime, *, verdict: bool = True
) -> dict[str, JsonValue]:
    """A live result as stored: checked at ``checked_at`` (its ``metadata``, which the answer shows),
    not a copy of an earlier verdict (``services.jobs.recent``). ``verdict`` False: an answer given up on,
    not a verdict about the mailbox; stored marked so (``verdict: false``, never shown to clients), it is
    never reused as a recent verdict."""
    metadata: dict[str, JsonValue] = {"cached": False, "checkedAt": iso(checked_at)}
    return {**result, "metadata": metadata if verdict else {**metadata, "verdict": False}}


def result_row(
    email: str, result: ValidationResult, checked_at: datetime, *, verdict: bool = True
) -> dict[str, JsonValue]:
    """One settled address as the bulk UPDATEs read it (``jsonb_to_recordset``), checked at ``checked_at``
    (``verdict`` as ``stamped``'s)."""
    return {
        "email": email,
        "result": stamped(result.to_dict(), checked_at, verdict=verdict),
        "score": result.score,
        "severity": result.severity.value,
    }
