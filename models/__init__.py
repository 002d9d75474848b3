"""SQLAlchemy 2 typed models; the schema itself is owned by the Alembic migrations in ``migrations/``."""

from models.accounts import Account
from models.audit import AuditEntry
from models.base import Base
from models.keys import ApiKey, KeyStatus
from models.listeners import EventListener, ListenerEvent
from models.webhooks import (
    DeliveryStatus,
    EndpointStatus,
    Event,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

__all__ = [
    "Account",
    "ApiKey",
    "AuditEntry",
    "Base",
    "DeliveryStatus",
    "EndpointStatus",
    "Event",
    "EventListener",
    "KeyStatus",
    "ListenerEvent",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]
