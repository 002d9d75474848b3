"""The suppression list and its inbound sources as the API shows them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from models.suppression import BounceEvent, InboundSource, SoftBounce, SuppressedAddress
from services import links
from services.suppression.entries import Entry, Page
from services.suppression.inbound import Received
from services.suppression.rows import Read
from services.suppression.sources import SourceWithSecret
from web.schemas.base import LIVEMODE_DATA, Body, Out, Query, Timestamp
from web.schemas.inputs import BIGINT_MAX, NUL_FREE, trimmed
from web.schemas.suppression_evidence import KINDS

Address = Annotated[str, Field(min_length=3, max_length=254, pattern=NUL_FREE)]
ADDRESS = (
    "the suppression key: lowercase, the domain in its A-label form, and for Gmail no dots nor +tag, "
    "for Outlook, iCloud, Fastmail, Proton and Yandex no +tag (two spellings of one mailbox are one entry)"
)


class SuppressionQuery(Query):
    limit: int = Field(50, ge=1, le=100)
    starting_after: int | None = Field(
        None, ge=1, le=BIGINT_MAX, description="`id` of the last entry of the previous page (newest first)"
    )
    email: Address | None = Field(None, description="only this address (as the list normalises it)")


class AddSuppressionBody(Body):
    email: Address
    diagnostic_code: Annotated[str, Field(max_length=1000, pattern=NUL_FREE)] | None = Field(
        None, description="why you suppress it (kept as its evidence)"
    )


class SuppressedOut(Out):
    """An address on the list with the evidence that put it there."""

    id: int
    email: str = Field(description="the address as the evidence named it")
    address: str = Field(description=ADDRESS)
    kind: str = Field(description=KINDS)
    source: str = Field(description="ses, sendgrid, postmark, mailgun, upload, api, import or dashboard")
    diagnostic_code: str | None
    bounced_at: Timestamp
    suppressed_at: Timestamp
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, row: SuppressedAddress) -> SuppressedOut:
        return cls(
            id=row.id,
            email=row.email,
            address=row.address,
            kind=row.kind,
            source=row.source,
            diagnostic_code=row.diagnostic_code,
            bounced_at=row.bounced_at,
            suppressed_at=row.created_at,
            livemode=row.livemode,
        )


class SuppressionPageOut(Out):
    data: list[SuppressedOut]
    has_more: bool
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, page: Page, livemode: bool) -> SuppressionPageOut:
        return cls(
            data=[SuppressedOut.of(row) for row in page.entries], has_more=page.has_more, livemode=livemode
        )


class BounceOut(Out):
    """One notification (or import row) received about the address."""

    kind: str = Field(description="hard, soft, complaint or manual")
    source: str
    email: str
    diagnostic_code: str | None
    occurred_at: Timestamp
    received_at: Timestamp

    @classmethod
    def of(cls, row: BounceEvent) -> BounceOut:
        return cls(
            kind=row.kind,
            source=row.source,
            email=row.email,
            diagnostic_code=row.diagnostic_code,
            occurred_at=row.occurred_at,
            received_at=row.received_at,
        )


class SoftBouncesOut(Out):
    count: int
    last_at: Timestamp
    last_diagnostic_code: str | None

    @classmethod
    def of(cls, row: SoftBounce | None) -> SoftBouncesOut | None:
        if row is None:
            return None
        return cls(count=row.count, last_at=row.last_at, last_diagnostic_code=row.last_diagnostic_code)


class SuppressionEntryOut(Out):
    """An address's entry: suppressed or not, its soft bounces, and what was received about it (newest
    first, at most 100)."""

    address: str = Field(description=ADDRESS)
    suppressed: SuppressedOut | None = Field(description="null when it is not (or no longer) suppressed")
    soft_bounces: SoftBouncesOut | None = Field(description="counted, never suppressing; null when none")
    history: list[BounceOut]
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, entry: Entry, livemode: bool) -> SuppressionEntryOut:
        return cls(
            address=entry.address,
            suppressed=None if entry.suppressed is None else SuppressedOut.of(entry.suppressed),
            soft_bounces=SoftBouncesOut.of(entry.soft_bounces),
            history=[BounceOut.of(row) for row in entry.history],
            livemode=livemode,
        )


class RemovedOut(Out):
    address: str
    deleted: Literal[True] = True
    livemode: bool = Field(description=LIVEMODE_DATA)


class RefusedRowOut(Out):
    row: int = Field(description="the CSV line (the header is line 1) or the JSON array index")
    value: str
    reason: str


class RecordedOut(Out):
    """What a request added: new notices by kind (hard, soft, complaint, manual), ``duplicate`` for those
    already received, ``ignored`` for entries that name no address; and the rows that could not be read."""

    recorded: dict[str, int]
    refused: list[RefusedRowOut] = Field(default_factory=list, description="at most 100 of them")
    refused_count: int = 0

    @classmethod
    def counts(cls, counts: dict[str, int], read: Read | None) -> dict[str, Any]:
        refused = [] if read is None else [RefusedRowOut.model_validate(row) for row in read.refused]
        return {
            "recorded": dict(counts),
            "refused": refused,
            "refused_count": 0 if read is None else read.refused_count,
        }


class ImportOut(RecordedOut):
    livemode: bool = Field(description=LIVEMODE_DATA)


class ReceivedOut(RecordedOut):
    """A notification accepted by an inbound source."""

    source: str
    subscription: bool = Field(
        False,
        description="an SNS subscription confirmation: confirm it from the dashboard (the service never "
        "visits URLs a request names)",
    )

    @classmethod
    def of(cls, received: Received) -> ReceivedOut:
        return cls(
            source=received.source,
            subscription=received.subscription,
            **cls.counts(received.counts, received.refused),
        )


SOURCE_KINDS = ("ses", "sendgrid", "postmark", "mailgun", "upload")


class CreateSourceBody(Body):
    kind: Literal["ses", "sendgrid", "postmark", "mailgun", "upload"]
    name: Annotated[str, *trimmed(1, 100)]
    verification_key: Annotated[str, Field(max_length=4096, pattern=NUL_FREE)] | None = Field(
        None, description="SendGrid only (required): the Event Webhook's verification key (base64 DER or PEM)"
    )
    signing_key: Annotated[str, Field(max_length=256, pattern=NUL_FREE)] | None = Field(
        None, description="Mailgun only (required): the HTTP webhook signing key (kept encrypted)"
    )


class SourceOut(Out):
    """An inbound source (never its secret)."""

    id: str
    kind: str
    name: str
    url: str = Field(description="where the provider posts; give it the URL with the secret, shown once")
    secret_hint: str = Field(description="the secret's last four characters")
    topic_arn: str | None = Field(description="SES: the one SNS topic accepted (pinned by its first message)")
    confirm_url: str | None = Field(
        description="SES: the SNS subscription to confirm (open it once), until it is confirmed"
    )
    received: int = Field(description="notices recorded")
    last_received_at: Timestamp | None
    created_at: Timestamp
    revoked_at: Timestamp | None
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def fields_of(cls, source: InboundSource) -> dict[str, Any]:
        return {
            "id": source.public_id,
            "kind": source.kind,
            "name": source.name,
            "url": links.inbound_url(source.public_id),
            "secret_hint": source.secret_hint,
            "topic_arn": source.topic_arn,
            "confirm_url": source.confirm_url,
            "received": source.received,
            "last_received_at": source.last_received_at,
            "created_at": source.created_at,
            "revoked_at": source.revoked_at,
            "livemode": source.livemode,
        }

    @classmethod
    def of(cls, source: InboundSource) -> SourceOut:
        return cls(**cls.fields_of(source))


class SourceWithSecretOut(SourceOut):
    """A new source with its secret: shown this once, kept only as a hash."""

    secret: str
    url_with_secret: str = Field(description="the URL to paste into the provider: the secret as basic auth")

    @classmethod
    def of_created(cls, created: SourceWithSecret) -> SourceWithSecretOut:
        return cls(
            **cls.fields_of(created.source), secret=created.secret, url_with_secret=created.url_with_secret
        )


class SourceListOut(Out):
    data: list[SourceOut]
    livemode: bool = Field(description=LIVEMODE_DATA)
