"""Webhook endpoints: create (secret shown once), list, read, change, delete, rotate the secret.

Who may: every function is scoped to the caller's account; another account's endpoint id is "not found".
A URL is accepted when it is HTTPS, carries no credentials, is at most ``MAX_URL_LENGTH`` characters and
its host resolves only to public addresses (``outbound_addresses``). The same check runs again at every
delivery, because DNS answers change after creation. Limits are documented in docs/decisions.md.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.orm import Session

from models.accounts import Account
from models.session import transaction
from models.webhooks import EndpointStatus, WebhookEndpoint
from services.auth import Actor
from services.errors import InvalidField, NotFound
from services.webhooks.addresses import resolve_checked
from services.webhooks.errors import EndpointLimitReached, UnsafeTarget
from services.webhooks.events import EVENT_TYPES
from settings import get_settings

MAX_ENDPOINTS = 16
MAX_URL_LENGTH = 2048
SECRET_PREFIX = "whsec_"  # noqa: S105 - the public prefix of every secret, not a secret


@dataclass(frozen=True)
class EndpointWithSecret:
    """An endpoint with its plaintext signing secret, returned only at creation and rotation."""

    endpoint: WebhookEndpoint
    secret: str = field(repr=False)


@dataclass(frozen=True)
class EndpointChanges:
    """A partial update: ``None`` leaves a field as it is."""

    url: str | None = None
    events: tuple[str, ...] | None = None
    status: EndpointStatus | None = None


def create_endpoint(actor: Actor, url: str, events: tuple[str, ...]) -> EndpointWithSecret:
    """Create an endpoint subscribed to ``events`` (already validated as known types)."""
    checked_url = check_url(url)
    with transaction() as session:
        # Lock the account row so two concurrent creations cannot both take the last slot.
        session.get_one(Account, actor.account.id, with_for_update=True)
        if _endpoint_count(session, actor) >= MAX_ENDPOINTS:
            raise EndpointLimitReached(MAX_ENDPOINTS)
        secret = new_secret()
        endpoint = WebhookEndpoint(
            account_id=actor.account.id,
            url=checked_url,
            events=list(check_events(events)),
            secret=secret,
            status=EndpointStatus.ENABLED.value,
            livemode=actor.livemode,
        )
        session.add(endpoint)
        session.flush()
        return EndpointWithSecret(endpoint, secret)


def of_caller(actor: Actor) -> ColumnElement[bool]:
    """The caller's account and mode: a test key's endpoints get test-mode events and only it sees them."""
    return and_(WebhookEndpoint.account_id == actor.account.id, WebhookEndpoint.livemode == actor.livemode)


def list_endpoints(actor: Actor) -> list[WebhookEndpoint]:
    stmt = select(WebhookEndpoint).where(of_caller(actor))
    with transaction() as session:
        return list(session.scalars(stmt.order_by(WebhookEndpoint.id)))


def get_endpoint(actor: Actor, endpoint_id: int) -> WebhookEndpoint:
    with transaction() as session:
        return owned_endpoint(session, actor, endpoint_id)


def update_endpoint(actor: Actor, endpoint_id: int, changes: EndpointChanges) -> WebhookEndpoint:
    """Change the URL, the subscribed events or the status; the secret is untouched."""
    checked_url = check_url(changes.url) if changes.url is not None else None
    with transaction() as session:
        endpoint = owned_endpoint(session, actor, endpoint_id, lock=True)
        if checked_url is not None:
            endpoint.url = checked_url
        if changes.events is not None:
            endpoint.events = list(check_events(changes.events))
        if changes.status is not None:
            endpoint.status = changes.status.value
        return endpoint


def delete_endpoint(actor: Actor, endpoint_id: int) -> None:
    """Remove the endpoint with its delivery log; pending retries to it stop."""
    with transaction() as session:
        session.delete(owned_endpoint(session, actor, endpoint_id, lock=True))


def rotate_secret(actor: Actor, endpoint_id: int) -> EndpointWithSecret:
    """A new signing secret, effective at once: every later attempt, retries included, is signed with it."""
    with transaction() as session:
        endpoint = owned_endpoint(session, actor, endpoint_id, lock=True)
        endpoint.secret = new_secret()
        return EndpointWithSecret(endpoint, endpoint.secret)


def owned_endpoint(
    session: Session, actor: Actor, endpoint_id: int, *, lock: bool = False
) -> WebhookEndpoint:
    stmt = select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id, of_caller(actor))
    endpoint = session.scalars(stmt.with_for_update() if lock else stmt).one_or_none()
    if endpoint is None:
        raise NotFound(f"No webhook endpoint with id {endpoint_id}.")
    return endpoint


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def check_url(url: str) -> str:
    """The URL as stored, or ``InvalidField("url", ...)`` saying what to fix."""
    if len(url) > MAX_URL_LENGTH:
        raise InvalidField("url", f"The URL is longer than {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url.strip())
        port = parts.port or 443
    except ValueError:
        raise InvalidField("url", "The URL is not valid.") from None
    if parts.scheme.lower() != "https":
        raise InvalidField("url", "The URL must use https:// (deliveries carry your data and a signature).")
    if not parts.hostname:
        raise InvalidField("url", "The URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise InvalidField("url", "The URL must not contain a user name or password.")
    try:
        resolve_checked(parts.hostname, port, allow_loopback=get_settings().webhook_allow_loopback)
    except UnsafeTarget as refusal:
        raise InvalidField("url", refusal.message) from None
    return parts.geturl()


def check_events(events: tuple[str, ...]) -> tuple[str, ...]:
    """Known types only, each once, in the order of spec 6.1."""
    if not events:
        raise InvalidField("events", "Subscribe to at least one event type.")
    for index, event_type in enumerate(events):
        if event_type not in EVENT_TYPES:
            known = ", ".join(EVENT_TYPES)
            raise InvalidField(f"events[{index}]", f"Unknown event type {event_type!r}; use one of: {known}.")
    return tuple(event_type for event_type in EVENT_TYPES if event_type in events)


def _endpoint_count(session: Session, actor: Actor) -> int:
    """Endpoints of the caller's mode: test endpoints never take a live one's place."""
    stmt = select(func.count()).where(of_caller(actor))
    return session.scalar(stmt) or 0
