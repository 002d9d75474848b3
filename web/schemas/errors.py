"""The two error shapes of spec 7, as schemas for the API description (``web/errors.py`` builds them)."""

from __future__ import annotations

from pydantic import ConfigDict

from web.schemas.base import Out


class CodedErrorDetail(Out):
    model_config = ConfigDict(extra="allow", title="CodedErrorDetail")

    code: str
    message: str


class CodedError(Out):
    """Authentication, permission and plan errors: a stable ``code``, a ``message`` and the code's own
    fields (``requiredScope``, ``grantedScopes``, ``clientIp``, ``allowedIps``, ``retryAfter``,
    ``details``)."""

    error: CodedErrorDetail


class FlatError(Out):
    """Protocol errors: ``field`` on 400, ``requestId`` on 500."""

    model_config = ConfigDict(extra="allow")

    error: str
    message: str
    field: str | None = None
    request_id: str | None = None
