"""API key bodies: create/update input, the key resource, refresh and revoke-all results."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from models.keys import DEFAULT_DAILY_BUDGET, DEFAULT_MONTHLY_BUDGET, ApiKey
from services.keys import allowlist, allowlist_pattern, lifecycle, origins, scopes, secrets
from web.schemas.base import LIVEMODE_DATA, Body, Out, Timestamp
from web.schemas.inputs import ORIGIN_PATTERN, integral, patterned, trimmed


def known_scope(scope: str) -> str:
    if scope not in scopes.SCOPES:
        raise ValueError(f"Unknown scope {scope!r}; use one of: {', '.join(scopes.SCOPES)}.")
    return scope


# The pattern is the service's own (services.keys.allowlist_pattern), "no host bits set" spelled out per
# prefix length: with a format alone, which only our tools know, everyone else's let any string through
# ("000"). The format stays beside it: the pattern is long, and drawing values from it is slow, so a tool
# that knows the format (the contract run) draws from that and checks the pattern.
IP_ENTRY_SCHEMA = {
    "type": "string",
    "format": "ip-address-or-network",
    "pattern": allowlist_pattern.ENTRY_PATTERN,
    "description": "An IPv4 or IPv6 address, or a CIDR range of either with no host bits set "
    "(10.0.0.0/24, 2001:db8::/32); whitespace around it is trimmed.",
}
Name = Annotated[str, *trimmed(5, 100)]
Scope = Annotated[
    str, AfterValidator(known_scope), WithJsonSchema({"type": "string", "enum": list(scopes.SCOPES)})
]
Scopes = Annotated[list[Scope], Field(min_length=1)]
IpEntry = Annotated[str, AfterValidator(allowlist.normalise_entry), WithJsonSchema(IP_ENTRY_SCHEMA)]
AllowedIps = Annotated[list[IpEntry], Field(max_length=allowlist.MAX_ENTRIES)]
OriginEntry = Annotated[
    str,
    *patterned(
        ORIGIN_PATTERN,
        "{field} holds origins such as https://shop.example.com or http://localhost:3000: a scheme, a host "
        "and an optional port, exactly as the page's address starts; no path and no wildcard.",
        max_length=origins.MAX_LENGTH,
    ),
    AfterValidator(origins.normalise_origin),
]
AllowedOrigins = Annotated[list[OriginEntry], Field(max_length=origins.MAX_ENTRIES)]
# A budget past the largest plan's whole month means "no budget", which a public key must not have.
MAX_BUDGET = 10_000_000
DailyBudget = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_BUDGET,
        description="Validations web pages may have answered with the publishable key per UTC day "
        f"(POST /validate/browser; past it, 429 PUBLISHABLE_KEY_BUDGET_EXCEEDED); 0 turns the key's pages "
        f"off. Default {DEFAULT_DAILY_BUDGET}",
    ),
    BeforeValidator(integral),
]
MonthlyBudget = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_BUDGET,
        description=f"The same per billing period (the quota's). Default {DEFAULT_MONTHLY_BUDGET}",
    ),
    BeforeValidator(integral),
]


def unique(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(dict.fromkeys(values))


class CreateKeyBody(Body):
    name: Name
    scopes: Scopes | None = None
    allowed_ips: AllowedIps = Field(default_factory=list)
    auto_rotate: bool = False
    allowed_origins: AllowedOrigins = Field(default_factory=list)
    livemode: bool | None = Field(
        default=None,
        description="false makes a test-mode key (sk_test_/pk_test_): magic addresses answered by the "
        "sandbox, nothing charged, its own jobs and webhook endpoints. Left out: the calling key's mode",
    )
    publishable_daily_budget: DailyBudget = DEFAULT_DAILY_BUDGET
    publishable_monthly_budget: MonthlyBudget = DEFAULT_MONTHLY_BUDGET

    def to_spec(self, caller_livemode: bool) -> lifecycle.KeySpec:
        return lifecycle.KeySpec(
            name=self.name,
            scopes=unique(self.scopes) or scopes.DEFAULT_SCOPES,
            allowed_ips=unique(self.allowed_ips) or (),
            auto_rotate=self.auto_rotate,
            allowed_origins=unique(self.allowed_origins) or (),
            livemode=caller_livemode if self.livemode is None else self.livemode,
            publishable_daily_budget=self.publishable_daily_budget,
            publishable_monthly_budget=self.publishable_monthly_budget,
        )


UPDATABLE = (
    "name",
    "scopes",
    "allowed_ips",
    "auto_rotate",
    "allowed_origins",
    "publishable_daily_budget",
    "publishable_monthly_budget",
)


class UpdateKeyBody(Body):
    model_config = ConfigDict(json_schema_extra={"minProperties": 1})  # something to change

    name: Name | None = None
    scopes: Scopes | None = None
    allowed_ips: AllowedIps | None = None
    auto_rotate: bool | None = None
    allowed_origins: AllowedOrigins | None = None
    publishable_daily_budget: DailyBudget | None = None
    publishable_monthly_budget: MonthlyBudget | None = None

    @field_validator(*UPDATABLE)
    @classmethod
    def not_null(cls, value: object, info: ValidationInfo) -> object:
        """``null`` would silently change nothing; say so instead (a field left out keeps its value)."""
        if value is None:
            name = to_camel(info.field_name or "")
            raise ValueError(f"{name} cannot be null; leave it out to keep it as is.")
        return value

    @model_validator(mode="after")
    def something_to_change(self) -> UpdateKeyBody:
        if not self.model_fields_set:
            fields = ", ".join(to_camel(name) for name in UPDATABLE)
            raise ValueError(f"Send at least one of {fields}.")
        return self

    def to_changes(self) -> lifecycle.KeyChanges:
        return lifecycle.KeyChanges(
            name=self.name,
            scopes=unique(self.scopes),
            allowed_ips=unique(self.allowed_ips),
            auto_rotate=self.auto_rotate,
            allowed_origins=unique(self.allowed_origins),
            publishable_daily_budget=self.publishable_daily_budget,
            publishable_monthly_budget=self.publishable_monthly_budget,
        )


class KeyOut(Out):
    """A key as listed: never its secret, only a hint of its last four characters. ``allowedOrigins``: the web
    pages (scheme://host[:port]) whose scripts may use the publishable key with POST /validate/browser;
    ``publishableDailyBudget``/``MonthlyBudget``: how many validations they may have answered with it."""

    id: int
    name: str
    scopes: list[str]
    allowed_ips: list[str]
    allowed_origins: list[str]
    publishable_daily_budget: int
    publishable_monthly_budget: int
    publishable_key: str
    secret_key_hint: str
    # False for a test-mode key: it validates in the sandbox and sees only test-mode data.
    livemode: bool
    status: str
    auto_rotate: bool
    secret_issued_at: Timestamp
    last_used_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, key: ApiKey) -> KeyOut:
        return cls(
            id=key.id,
            name=key.name,
            scopes=key.scopes,
            allowed_ips=key.allowed_ips,
            allowed_origins=key.allowed_origins,
            publishable_daily_budget=key.publishable_daily_budget,
            publishable_monthly_budget=key.publishable_monthly_budget,
            publishable_key=key.publishable_key,
            secret_key_hint=secrets.hint(key.secret_last4, key.livemode),
            livemode=key.livemode,
            status=key.status,
            auto_rotate=key.auto_rotate,
            secret_issued_at=key.secret_issued_at,
            last_used_at=key.last_used_at,
            created_at=key.created_at,
            updated_at=key.updated_at,
        )


class CreatedKeyOut(KeyOut):
    """The key just created, with its secret: the only response that will ever show it."""

    secret_key: str

    @classmethod
    def of_issued(cls, issued: lifecycle.IssuedKey) -> CreatedKeyOut:
        return cls(**KeyOut.of(issued.key).model_dump(), secret_key=issued.secret)


class KeyListOut(Out):
    data: list[KeyOut]
    livemode: bool = Field(description=LIVEMODE_DATA)


class DeletedKeyOut(Out):
    id: int
    deleted: bool = True
    livemode: bool = Field(description=LIVEMODE_DATA)


class RefreshedKey(Out):
    id: int
    secret_key: str
    publishable_key: str
    updated_at: Timestamp


class RefreshOut(Out):
    """The key with its new secret, shown only here; the previous secret stopped working at once."""

    success: bool = True
    message: str = "The secret key was refreshed. The previous secret key no longer works."
    key: RefreshedKey
    warning: str = "Store the new secret key now: it is shown only in this response and cannot be retrieved."
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of_issued(cls, issued: lifecycle.IssuedKey) -> RefreshOut:
        key = issued.key
        return cls(
            key=RefreshedKey(
                id=key.id,
                secret_key=issued.secret,
                publishable_key=key.publishable_key,
                updated_at=key.updated_at,
            ),
            livemode=key.livemode,
        )


class RevealOut(RefreshOut):
    """A secret issued by the automatic 90-day rotation, shown once; the same shape as a refresh."""

    message: str = "This is the secret key issued by the automatic 90-day rotation."
    warning: str = "Store the secret key now: it was shown once and is no longer kept anywhere."


class RevokeAllOut(Out):
    """Every key of the account deactivated, and how many were."""

    success: bool = True
    message: str
    revoked_count: int
    warning: str = (
        "Every key of the account is now inactive, including the one that made this request, and cannot be "
        "recovered. An operator issues a new admin key with `flask --app web accounts issue-key`."
    )
    livemode: bool = Field(description="the mode whose keys were deactivated (the caller's)")
