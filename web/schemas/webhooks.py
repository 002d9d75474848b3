"""Webhook bodies: endpoint input and output, the delivery log, test sends."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, WithJsonSchema, model_validator

from models.webhooks import EndpointStatus, WebhookAttempt, WebhookEndpoint
from services.webhooks import endpoints
from services.webhooks.delivery_log import DeliveryPage, DeliveryRecord
from services.webhooks.events import EVENT_TYPES, envelope
from web.schemas.base import LIVEMODE_DATA, Body, Out, Query, Timestamp
from web.schemas.inputs import HTTPS_URL_PATTERN, DatabaseId, patterned


def known_event_type(event_type: str) -> str:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"Unknown event type {event_type!r}; use one of: {', '.join(EVENT_TYPES)}.")
    return event_type


# The schema lists the types, so /openapi.json shows what ``events`` and ``type`` accept.
EventType = Annotated[
    str, AfterValidator(known_event_type), WithJsonSchema({"type": "string", "enum": list(EVENT_TYPES)})
]
EventTypes = Annotated[list[EventType], Field(min_length=1, max_length=len(EVENT_TYPES))]
# The form is checked here; that the host resolves only to public addresses, when the endpoint is saved
# and at every delivery, is the service's (a 400 naming ``url`` otherwise).
URL_PROBLEM = (
    "{field} must be an https:// URL to a host name or IPv4 address (deliveries carry your data and a "
    f"signature), at most {endpoints.MAX_URL_LENGTH} characters."
)
Url = Annotated[str, *patterned(HTTPS_URL_PATTERN, URL_PROBLEM, max_length=endpoints.MAX_URL_LENGTH)]


class CreateWebhookBody(Body):
    url: Url
    events: EventTypes


class UpdateWebhookBody(Body):
    model_config = ConfigDict(json_schema_extra={"minProperties": 1})  # something to change

    url: Url | None = None
    events: EventTypes | None = None
    status: Literal["enabled", "disabled"] | None = None

    @model_validator(mode="after")
    def something_to_change(self) -> UpdateWebhookBody:
        if not self.model_fields_set:
            raise ValueError("Send at least one of url, events, status.")
        return self

    def to_changes(self) -> endpoints.EndpointChanges:
        return endpoints.EndpointChanges(
            url=self.url,
            events=tuple(self.events) if self.events is not None else None,
            status=EndpointStatus(self.status) if self.status is not None else None,
        )


class TestWebhookBody(Body):
    type: EventType
    endpoint_id: DatabaseId | None = Field(default=None, description="required when the account has several")


class DeliveriesQuery(Query):
    starting_after: DatabaseId | None = None
    limit: int = Field(default=20, ge=1, le=100)


class WebhookOut(Out):
    """An endpoint as listed: never its signing secret."""

    id: int
    url: str
    events: list[str]
    status: str
    # False: a test-mode endpoint (made with a test key), sent test-mode events only.
    livemode: bool
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, endpoint: WebhookEndpoint) -> WebhookOut:
        return cls(
            id=endpoint.id,
            url=endpoint.url,
            events=endpoint.events,
            status=endpoint.status,
            livemode=endpoint.livemode,
            created_at=endpoint.created_at,
            updated_at=endpoint.updated_at,
        )


class WebhookWithSecretOut(WebhookOut):
    """The endpoint with its signing secret: shown at creation and rotation only, never again."""

    secret: str

    @classmethod
    def of_created(cls, created: endpoints.EndpointWithSecret) -> WebhookWithSecretOut:
        return cls(**WebhookOut.of(created.endpoint).model_dump(), secret=created.secret)


class WebhookListOut(Out):
    data: list[WebhookOut]
    livemode: bool = Field(description=LIVEMODE_DATA)


class DeletedWebhookOut(Out):
    id: int
    deleted: bool = True
    livemode: bool = Field(description=LIVEMODE_DATA)


class AttemptOut(Out):
    number: int
    attempted_at: Timestamp
    status_code: int | None = Field(description="absent when no HTTP answer came (see error)")
    response_excerpt: str | None = Field(description="the first 1 KiB of the response body")
    response_time_ms: int | None
    error: str | None

    @classmethod
    def of(cls, attempt: WebhookAttempt) -> AttemptOut:
        return cls(
            number=attempt.number,
            attempted_at=attempt.attempted_at,
            status_code=attempt.status_code,
            response_excerpt=attempt.response_excerpt,
            response_time_ms=attempt.response_time_ms,
            error=attempt.error,
        )


class DeliveryOut(Out):
    """One event sent to one endpoint: its state (pending while attempts remain, then delivered on a 2xx
    or failed after the last attempt), the payload sent and every attempt."""

    id: int
    event_id: str
    event_type: str
    status: str
    test: bool
    attempt_count: int
    max_attempts: int
    next_attempt_at: Timestamp | None
    completed_at: Timestamp | None
    created_at: Timestamp
    payload: dict[str, Any]
    attempts: list[AttemptOut]
    livemode: bool = Field(description="false for a test-mode event (sent to a test-mode endpoint)")

    @classmethod
    def of(cls, record: DeliveryRecord) -> DeliveryOut:
        delivery, event = record.delivery, record.event
        return cls(
            id=delivery.id,
            event_id=event.id,
            event_type=event.type,
            status=delivery.status,
            test=event.is_test,
            attempt_count=delivery.attempt_count,
            max_attempts=delivery.max_attempts,
            next_attempt_at=delivery.next_attempt_at,
            completed_at=delivery.completed_at,
            created_at=delivery.created_at,
            payload=envelope(event),
            attempts=[AttemptOut.of(attempt) for attempt in record.attempts],
            livemode=event.livemode,
        )


class DeliveryPageOut(Out):
    """Newest first. Pass ``nextCursor`` as ``startingAfter`` for the next page while ``hasMore``."""

    data: list[DeliveryOut]
    has_more: bool
    next_cursor: int | None
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, page: DeliveryPage, livemode: bool) -> DeliveryPageOut:
        last = page.records[-1].delivery.id if page.records and page.has_more else None
        data = [DeliveryOut.of(record) for record in page.records]
        return cls(data=data, has_more=page.has_more, next_cursor=last, livemode=livemode)


class TestResultOut(Out):
    """The outcome of a test send: delivered means the endpoint answered 2xx."""

    delivered: bool
    status_code: int | None
    response_time_ms: int | None
    error: str | None
    delivery: DeliveryOut
    livemode: bool = Field(description="false for a test key's test send (to a test-mode endpoint)")

    @classmethod
    def of(cls, record: DeliveryRecord) -> TestResultOut:
        attempt = record.attempts[-1]
        return cls(
            delivered=record.delivery.status == "delivered",
            status_code=attempt.status_code,
            response_time_ms=attempt.response_time_ms,
            error=attempt.error,
            delivery=DeliveryOut.of(record),
            livemode=record.event.livemode,
        )
