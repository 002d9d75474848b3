"""Authentication on every route unless it is marked ``@public``; scopes per view with ``@require_scope``.

Secure by default: a blueprint added later is authenticated without doing anything, and the OpenAPI test
fails for any non-public operation that forgot to name its scope. The authenticated caller is
``current_auth()`` (also ``g.auth``) for the rest of the request.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import current_app, g, request
from redis.exceptions import RedisError

from services import auth as auth_service
from services.audit import Origin
from services.auth import PUBLISHABLE_ONLY, AuthContext, KeyKinds
from services.errors import InvalidApiKey, IpNotAllowed, MissingApiKey, QueryApiKeyRefused
from services.usage import rate_limits
from web.client_ip import client_ip
from web.config import app_settings

P = ParamSpec("P")
R = TypeVar("R")
PUBLIC = "verimail_public"
# Set by ``web.limits.rate_limited`` on views that count requests; read here and by /openapi.json.
RATE_LIMITED = "verimail_rate_limited"
SCOPE = "verimail_scope"
PUBLISHABLE_OK = "verimail_publishable_ok"
SECRET_OK = "verimail_secret_ok"  # noqa: S105 - a view attribute's name
ALTERNATIVE_SCOPES = "verimail_alternative_scopes"
QUERY_KEY_PARAM = "api_key"
REFUSALS = (MissingApiKey, InvalidApiKey, IpNotAllowed, QueryApiKeyRefused)
log = logging.getLogger(__name__)


def public(view: Callable[P, R]) -> Callable[P, R]:
    """Serve this view without a key (health, the API description)."""
    setattr(view, PUBLIC, True)
    return view


def require_scope(
    scope: str,
    *,
    publishable_ok: bool = False,
    publishable_only: bool = False,
    alternatives: tuple[str, ...] = (),
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Let the view run only for a key holding ``scope`` or one of ``alternatives`` (for a view that then
    checks the exact scope of what it found); ``publishable_ok`` only for read-only GETs,
    ``publishable_only`` for the endpoint web pages call (secret keys are refused there)."""
    kinds = PUBLISHABLE_ONLY if publishable_only else KeyKinds(publishable=publishable_ok)

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            g.auth = guarding(
                lambda: auth_service.authorize(current_auth(), scope, kinds=kinds, alternatives=alternatives)
            )
            return view(*args, **kwargs)

        setattr(guarded, SCOPE, scope)
        setattr(guarded, ALTERNATIVE_SCOPES, alternatives)
        setattr(guarded, PUBLISHABLE_OK, kinds.publishable)
        setattr(guarded, SECRET_OK, kinds.secret)
        return guarded

    return decorate


def current_auth() -> AuthContext:
    auth: AuthContext = g.auth
    return auth


def origin() -> Origin:
    return Origin(ip=client_ip(), user_agent=request.user_agent.string or None)


def authenticate_request() -> None:
    """``before_request``: unknown routes fall through to 404, public views pass, the rest need a key.

    A key may come from this process's snapshot; it is confirmed before the view runs, on the rate-limit
    round trip: the counting one of a rate-limited view (``web.limits.rate_limited``), else a peek here
    (whose windows then go into the headers).
    """
    if request.url_rule is None or request.endpoint is None:
        return
    view = current_app.view_functions[request.endpoint]
    if getattr(view, PUBLIC, False):
        return
    g.auth = guarding(lambda: auth_service.authenticate(presented_key(), origin()))
    if not getattr(view, RATE_LIMITED, False):
        g.auth, g.rate_status = guarding(lambda: rate_limits.peek_confirmed(current_auth()))


def guarding(step: Callable[[], R]) -> R:
    """Run an authentication step; when it refuses the caller, the request no longer speaks for an account:
    it counts against its client's anonymous windows, and past them the refusal is a 429 instead."""
    try:
        return step()
    except REFUSALS:
        g.auth = None
        _count_anonymous()
        raise


def _count_anonymous() -> None:
    try:
        g.rate_status = rate_limits.admit_anonymous(client_ip())
    except RedisError:
        log.warning("refused request not counted: Redis unreachable", exc_info=True)


def presented_key() -> str | None:
    """X-API-Key, else ``Authorization: Bearer``, else (development only) the ``api_key`` query parameter."""
    query_key = request.args.get(QUERY_KEY_PARAM)
    if query_key is not None and app_settings().is_production:
        raise QueryApiKeyRefused(
            "The api_key query parameter is refused in production: URLs are written to logs and browser "
            "history, so a key there leaks. Send it in the X-API-Key header and consider rotating this key."
        )
    if header := request.headers.get("X-API-Key", "").strip():
        return header
    if authorization := request.headers.get("Authorization", "").strip():
        return bearer_token(authorization)
    return query_key


def bearer_token(authorization: str) -> str:
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise InvalidApiKey("The Authorization header must read 'Bearer <API_KEY>'.")
    return token.strip()
