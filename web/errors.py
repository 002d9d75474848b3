"""Every error body the API sends is built here (spec 7).

Coded shape ``{"error": {"code", "message", ...extra}}`` for errors that have a spec 7.1 code (or one of
ours in the same style): authentication, permissions, plan limits. Flat shape ``{"error", "message",
...extra}`` for protocol-level failures: 400 validation (with ``field``), 404, 405, 413, 415, 500 (with
``requestId``), 503 (Redis or Postgres unreachable: ``retryAfter``, ``requestId``, ``Retry-After``).
docs/decisions.md lists which status each code answers with.
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from flask import Flask, Response, g, jsonify
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError as RedisReadOnly
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolExhausted
from werkzeug.exceptions import HTTPException

from models import session as database
from services import errors as service
from services.browser.errors import BudgetExhausted, OriginNotAllowed, TokenAlreadyConfirmed, TokenRefused
from services.errors import CodedError, ServiceError
from services.keys.errors import KeyInactive, KeyLimitReached
from services.monitoring.errors import AlreadyMonitored, NotMonitorable, RunNotCompared
from services.resellers.errors import (
    DomainNotVerified,
    DomainTaken,
    EmailTaken,
    PlanUpgradeRequired,
    SubUserLimitReached,
)
from services.suppression.errors import BadNotification, InboundRefused, SourceLimitReached
from services.usage.errors import QuotaExhausted, RateLimited
from services.validation.errors import (
    BadUpload,
    BatchEmpty,
    BatchTooLarge,
    IdempotencyKeyReused,
    IdempotentRequestInProgress,
    JobNotFinished,
)
from services.webhooks.errors import EndpointLimitReached, ListenerLimitReached, NoTestTarget, SendsLimited

log = logging.getLogger(__name__)

STATUS: dict[type[ServiceError], int] = {
    service.MissingApiKey: 401,
    service.InvalidApiKey: 401,
    service.QueryApiKeyRefused: 401,
    service.InsufficientPermissions: 403,
    service.IpNotAllowed: 403,
    service.LiveModeRequired: 403,  # as PLAN_UPGRADE_REQUIRED: understood, and refused to this caller
    KeyLimitReached: 403,
    EndpointLimitReached: 403,
    ListenerLimitReached: 403,  # like the endpoint limit: a cap of the account, not a state conflict
    NoTestTarget: 409,  # the request is sound; the account's endpoints make it ambiguous or targetless
    SendsLimited: 429,  # flat shape, like the rate limit
    KeyInactive: 409,
    service.NotFound: 404,
    service.InvalidField: 400,
    RateLimited: 429,  # flat shape (spec 7.2)
    QuotaExhausted: 429,  # coded RATE_LIMIT_EXCEEDED (spec 7.1)
    BatchEmpty: 400,
    BatchTooLarge: 400,
    BadUpload: 400,
    JobNotFinished: 409,
    AlreadyMonitored: 409,
    NotMonitorable: 409,  # as JobNotFinished: the list is not in a state to be kept
    RunNotCompared: 409,
    IdempotencyKeyReused: 422,  # Stripe's answer to a key reused with other parameters
    IdempotentRequestInProgress: 409,
    PlanUpgradeRequired: 403,
    SubUserLimitReached: 403,
    EmailTaken: 409,
    DomainTaken: 409,
    DomainNotVerified: 422,  # the request was understood; the DNS record is not there (yet)
    OriginNotAllowed: 403,
    BudgetExhausted: 429,  # coded PUBLISHABLE_KEY_BUDGET_EXCEEDED, like the quota's coded 429
    TokenAlreadyConfirmed: 409,  # a replay: the token is genuine, its one confirmation is spent
    TokenRefused: 422,  # the request was understood; the token confirms nothing (forged, expired, foreign)
    InboundRefused: 401,  # one answer for every reason (unknown, revoked, secret, signature): audited
    BadNotification: 400,
    SourceLimitReached: 403,
}
# Spec 7.2 names the flat 429 "Rate Limit Exceeded" rather than the HTTP phrase "Too Many Requests".
PHRASES: dict[int, str] = {429: "Rate Limit Exceeded"}


def status_of(error: ServiceError) -> int:
    return status_for(type(error))


def status_for(error: type[ServiceError]) -> int:
    """The status of the nearest class in ``STATUS``; a service error nobody mapped is a server bug."""
    return next((STATUS[cls] for cls in error.__mro__ if cls in STATUS), 500)


def coded(status: int, code: str, message: str, **extra: object) -> Response:
    response = jsonify({"error": {"code": code, "message": message, **extra}})
    response.status_code = status
    return response


def flat(status: int, message: str, **extra: object) -> Response:
    response = jsonify({"error": PHRASES.get(status, HTTPStatus(status).phrase), "message": message, **extra})
    response.status_code = status
    return response


def on_service_error(error: ServiceError) -> Response:
    status = status_of(error)
    if isinstance(error, CodedError):
        return coded(status, error.code, error.message, **error.extra)
    return flat(status, error.message, **error.extra)


def on_http_error(error: HTTPException) -> Response:
    """Werkzeug's own errors (404, 405, 413, ...) in the flat shape, keeping headers such as ``Allow``."""
    status = error.code or 500
    response = flat(status, error.description or HTTPStatus(status).description)
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def on_unexpected(error: Exception) -> Response:
    """A bug: log it with the request id, show the client only the id to quote to support."""
    request_id = g.get("request_id", "unknown")
    log.error("unhandled error", exc_info=error, extra={"requestId": request_id})
    return flat(
        500, "Something went wrong on our side. Quote the requestId if you contact us.", requestId=request_id
    )


# How long a client should wait after a 503: long enough for a Redis restart or failover to finish.
UNAVAILABLE_RETRY_SECONDS = 10


def on_unavailable(error: Exception) -> Response:
    """Redis or Postgres unreachable (a restart, a failover): a 503 the client can retry, not a 500.

    It is not a bug of ours nor of the request, and nothing about the request was wrong: saying so, with
    ``Retry-After``, lets well-behaved clients back off and retry instead of reporting a crash.
    """
    request_id = g.get("request_id", "unknown")
    log.error("backing store unreachable", exc_info=error, extra={"requestId": request_id})
    response = flat(
        503,
        "The service is briefly unable to take this request (a backing store is unreachable). "
        f"Retry in {UNAVAILABLE_RETRY_SECONDS} seconds.",
        retryAfter=UNAVAILABLE_RETRY_SECONDS,
        requestId=request_id,
    )
    response.headers["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
    return response


def on_database_error(error: DBAPIError) -> Response:
    """Postgres gone for a moment is the same answer as Redis gone; a statement it refused is our bug."""
    return on_unavailable(error) if database.unreachable(error) else on_unexpected(error)


# Failures that say a store cannot serve now, not that the request or our code was wrong: a replica that
# a failover left read-only, every pooled Postgres connection busy past the pool's wait (a hung server).
UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    RedisReadOnly,
    PoolExhausted,
)


def install(app: Flask) -> None:
    for unavailable in UNAVAILABLE:
        app.register_error_handler(unavailable, on_unavailable)
    app.register_error_handler(DBAPIError, on_database_error)
    app.register_error_handler(ServiceError, on_service_error)
    app.register_error_handler(HTTPException, on_http_error)
    app.register_error_handler(Exception, on_unexpected)
