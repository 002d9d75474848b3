"""The ``Idempotency-Key`` request header of job creation, and ``Idempotent-Replayed`` on a replay (as
Stripe names it), for ``POST /validate/batch`` and ``POST /bulk/jobs``; the rules are in
``services.validation.idempotency``."""

from __future__ import annotations

from flask import Response, request

from services.validation.idempotency import HEADER, parse_key


def idempotency_key() -> str | None:
    """The request's key, or None; a malformed key is a 400 naming the header."""
    return parse_key(request.headers.get(HEADER))


def marked(response: Response, replayed: bool) -> Response:
    """Tell the client this answer is for the job an earlier request with the same key created."""
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response
