"""The official Python client of the verimail API: ``Client`` (sync) and ``AsyncClient`` (async), typed
errors in ``verimail.errors``, answer shapes in ``verimail.types``, and webhook signature checks in
``verimail.webhooks`` (standard library only)."""

from verimail import webhooks
from verimail._retry import RetryPolicy
from verimail.async_client import AsyncClient
from verimail.client import Client
from verimail.errors import (
    APIConnectionError,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    LimitReachedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    TokenError,
    VerimailError,
)

__version__ = "0.1.0"
__all__ = [
    "APIConnectionError",
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "ConflictError",
    "InvalidRequestError",
    "LimitReachedError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailableError",
    "TokenError",
    "VerimailError",
    "webhooks",
]
