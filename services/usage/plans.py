"""The six tiers of spec 8.1 and the trial, with their limits, in one place.

The limits work (rate limits, quotas) reads per-minute/per-day/monthly numbers from here, and the
per-tier features beside them; key management reads ``key_limit``. Tier identifiers are the lowercase
names the API returns (``growth``, ..., ``enterprise_plus``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from models.accounts import Tier


class Feature(StrEnum):
    """The plan feature names of spec 2.2: what a tier may run. ``smtp`` is not one: every tier probes."""

    SYNTAX = "syntax"
    DOMAIN = "domain"
    MX_RECORDS = "mxRecords"
    DISPOSABLE = "disposable"
    ROLE_BASED = "roleBased"
    CATCH_ALL = "catchAll"
    TYPO_SUGGESTION = "typoSuggestion"
    FREE_EMAIL = "freeEmail"
    CORPORATE_EMAIL = "corporateEmail"
    MAILBOX_PROVIDER = "mailboxProvider"


@dataclass(frozen=True)
class Plan:
    tier: Tier
    name: str
    requests_per_minute: int
    requests_per_day: int
    monthly_volume: int
    key_limit: int | None  # None: unlimited (Enterprise Plus)
    monthly_price_usd: int

    @property
    def features(self) -> tuple[Feature, ...]:
        """The checks this plan runs, in spec 2.2 order; a check a plan lacks is not run at all."""
        return FEATURES[self.tier]


# Spec 8.1 also quotes 694/minute for Enterprise once; the table value (2,000) is the one we use.
PLANS: dict[Tier, Plan] = {
    plan.tier: plan
    for plan in (
        # A self-serve account's allowance until its plan is granted: enough to wire up a form and try
        # the API, not enough to clean a list (docs/plans.md).
        Plan(Tier.TRIAL, "Trial", 10, 100, 100, 2, 0),
        Plan(Tier.GROWTH, "Growth", 10, 167, 5_000, 2, 19),
        Plan(Tier.PRO, "Pro", 23, 333, 10_000, 3, 49),
        Plan(Tier.BUSINESS, "Business", 93, 1_333, 40_000, 5, 149),
        Plan(Tier.SCALE, "Scale", 289, 4_167, 125_000, 8, 399),
        Plan(Tier.ENTERPRISE, "Enterprise", 2_000, 60_000, 1_800_000, 20, 799),
        Plan(Tier.ENTERPRISE_PLUS, "Enterprise Plus", 5_000, 150_000, 4_500_000, None, 2_499),
    )
}


# Why each tier gets what it gets: docs/plans.md. Each tier includes everything of the tier below it.
_GROWTH = {
    Feature.SYNTAX,
    Feature.DOMAIN,
    Feature.MX_RECORDS,
    Feature.DISPOSABLE,
    Feature.ROLE_BASED,
    Feature.TYPO_SUGGESTION,
}
_PRO = _GROWTH | {Feature.CATCH_ALL, Feature.FREE_EMAIL}
_BUSINESS = _PRO | {Feature.CORPORATE_EMAIL}
_SCALE = set(Feature)


def _in_spec_order(features: set[Feature]) -> tuple[Feature, ...]:
    return tuple(feature for feature in Feature if feature in features)


FEATURES: dict[Tier, tuple[Feature, ...]] = {
    Tier.TRIAL: _in_spec_order(_GROWTH),
    Tier.GROWTH: _in_spec_order(_GROWTH),
    Tier.PRO: _in_spec_order(_PRO),
    Tier.BUSINESS: _in_spec_order(_BUSINESS),
    Tier.SCALE: _in_spec_order(_SCALE),
    Tier.ENTERPRISE: _in_spec_order(_SCALE),
    Tier.ENTERPRISE_PLUS: _in_spec_order(_SCALE),
}


def plan_for(tier: str) -> Plan:
    """The plan of a stored tier identifier; an unknown one is a data error, so it raises KeyError."""
    return PLANS[Tier(tier)]
