"""Sub-user bodies (spec 2.9, 4.9): create and update input, the sub-user resource, a page of them."""

from __future__ import annotations

from typing import Annotated, Literal

from email_validator import EmailNotValidError, validate_email
from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from models.accounts import Tier
from services.resellers import sub_users
from services.resellers.sub_users import CreatedSubUser, SubUserPage, SubUserView
from web.schemas.base import Body, Out, Query, Timestamp
from web.schemas.inputs import patterned, trimmed

# A plain address email_validator takes (it also refuses special-use top-level domains: local, localhost,
# test, invalid, onion, arpa); the pattern is checked first, so what it refuses is refused here too.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = r"[A-Za-z0-9]{1,20}(?:-[A-Za-z0-9]{1,20})?"
EMAIL_PATTERN = rf"^{_ATOM}{{1,32}}(?:\.{_ATOM}{{1,31}})?@(?:{_LABEL}\.){{1,3}}[A-Za-z]{{2,24}}$"
SUB_USER_ID_PATTERN = r"^sub_[0-9a-f]{24}$"


def checked_email(value: str) -> str:
    try:
        return validate_email(value, check_deliverability=False).normalized.lower()
    except EmailNotValidError as error:
        raise ValueError(f"email is not a valid address: {error}") from None


def sub_user_tier(value: str) -> Tier:
    allowed = [tier.value for tier in sub_users.SUB_USER_TIERS]
    if value not in allowed:
        raise ValueError(f"tier must be one of {', '.join(allowed)} (a tier below Enterprise Plus).")
    return Tier(value)


Email = Annotated[
    str,
    *patterned(EMAIL_PATTERN, "{field} is not a valid address such as ops@example.com."),
    AfterValidator(checked_email),
]
Name = Annotated[str, *trimmed(1, 100)]
SubTier = Annotated[
    str,
    AfterValidator(sub_user_tier),
    WithJsonSchema({"type": "string", "enum": [tier.value for tier in sub_users.SUB_USER_TIERS]}),
]
SubUserId = Annotated[
    str,
    *patterned(SUB_USER_ID_PATTERN, "{field} must be a sub-user id such as sub_0123456789abcdef01234567."),
]


class CreateSubUserBody(Body):
    email: Email
    name: Name
    tier: SubTier = Field(description="growth, pro, business, scale or enterprise")

    def to_new(self) -> sub_users.NewSubUser:
        return sub_users.NewSubUser(email=self.email, name=self.name, tier=Tier(self.tier))


class UpdateSubUserBody(Body):
    """Send any of the fields; ``status`` suspends (its keys answer 401) or reactivates the sub-user."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})  # something to change

    name: Name | None = None
    tier: SubTier | None = None
    status: Literal["active", "suspended"] | None = None

    @field_validator("name", "tier", "status")
    @classmethod
    def not_null(cls, value: object, info: ValidationInfo) -> object:
        if value is None:
            raise ValueError(
                f"{to_camel(info.field_name or '')} cannot be null; leave it out to keep it as is."
            )
        return value

    @model_validator(mode="after")
    def something_to_change(self) -> UpdateSubUserBody:
        if not self.model_fields_set:
            raise ValueError("Send at least one of name, tier, status.")
        return self

    def to_changes(self) -> sub_users.SubUserChanges:
        return sub_users.SubUserChanges(
            name=self.name,
            tier=Tier(self.tier) if self.tier is not None else None,
            suspended=None if self.status is None else self.status == "suspended",
        )


class SubUserListQuery(Query):
    starting_after: SubUserId | None = Field(
        default=None, description="id of the last sub-user of the previous page"
    )
    limit: int = Field(default=20, ge=1, le=sub_users.PAGE_MAX)


class SubUserOut(Out):
    """A sub-user: an account of its own under the reseller."""

    id: str
    email: str
    name: str
    tier: str
    status: str = Field(description="active or suspended")
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, view: SubUserView) -> SubUserOut:
        account = view.account
        return cls(
            id=view.sub.public_id,
            email=view.sub.email,
            name=account.name or "",
            tier=account.tier,
            status=view.status,
            created_at=view.sub.created_at,
            updated_at=max(account.updated_at, view.sub.updated_at),
        )


class CreatedSubUserOut(SubUserOut):
    """The new sub-user and its first admin key; the secret key is shown this once."""

    key_id: int
    secret_key: str
    publishable_key: str

    @classmethod
    def of_created(cls, created: CreatedSubUser) -> CreatedSubUserOut:
        key = created.admin_key
        return cls.model_validate(
            {
                **SubUserOut.of(created.view).model_dump(),
                "key_id": key.key.id,
                "secret_key": key.secret,
                "publishable_key": key.key.publishable_key,
            }
        )


class SubUserPageOut(Out):
    """Oldest first. Pass ``nextCursor`` as ``startingAfter`` for the next page while ``hasMore``."""

    data: list[SubUserOut]
    has_more: bool
    next_cursor: str | None

    @classmethod
    def of(cls, page: SubUserPage) -> SubUserPageOut:
        last = page.items[-1].sub.public_id if page.items and page.has_more else None
        return cls(
            data=[SubUserOut.of(view) for view in page.items], has_more=page.has_more, next_cursor=last
        )


class DeletedSubUserOut(Out):
    id: str
    deleted: bool = True
