"""What a job asked for, stored with it as JSON, and the small conversions every job module shares."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson

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
    # on they are also retried in the background until the job's deadline (``services.probing.settling``).
    retry_temporary: bool = False
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
        livemode: bool = True,
    ) -> JobOptions:
        return cls(quick_mode, skip_catch_all, _feature_names(account.tier), retry_temporary, livemode)

    def to_json(self) -> dict[str, Any]:
        return {
            "quickMode": self.quick_mode,
            "skipCatchAll": self.skip_catch_all,
            "features": list(self.features),
            "retryTemporary": self.retry_temporary,
            "livemode": self.livemode,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobOptions:
        # Jobs stored before the option existed kept retrying greylisted addresses: they still do.
        retry = bool(data.get("retryTemporary", True))
        livemode = bool(data.get("livemode", True))
        return cls(
            bool(data["quickMode"]), bool(data["skipCatchAll"]), tuple(data["features"]), retry, livemode
        )

    def client_switches(self) -> tuple[bool, ...]:
        """What the client chose, in a fixed order: part of an idempotent request's meaning."""
        return (self.quick_mode, self.skip_catch_all, self.retry_temporary)

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


def result_row(email: str, result: ValidationResult) -> dict[str, JsonValue]:
    """One settled address as the bulk UPDATEs read it (``jsonb_to_recordset``)."""
    return {
        "email": email,
        "result": result.to_dict(),
        "score": result.score,
        "severity": result.severity.value,
    }
