"""What every dashboard page tells the browser, and who may send it a large body.

- ``Content-Security-Policy``: scripts and styles only from the app's own files (no inline script, so an
  injected ``<script>`` does not run); style attributes stay allowed for the gauges' and charts' computed
  widths; no plugins, no ``<base>``, forms post only here; ``frame-ancestors 'none'`` (and
  ``X-Frame-Options: DENY`` for older browsers), so no other site can frame a page and trick a click on a
  one-click button.
- ``X-Content-Type-Options: nosniff``; ``Referrer-Policy: same-origin`` (a reset link's token never leaves
  in a Referer header).
- Uploads: only a signed-in owner may send a list-sized body; anyone else is refused by its length before
  anything reads it (the CSRF check parses the whole form).
"""

from __future__ import annotations

from flask import Response

from settings import get_settings
from web.config import app_settings
from web.dashboard import session

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def add_headers(response: Response) -> Response:
    response.headers.update(HEADERS)
    return response


def owner_upload_limit() -> int:
    """The list-sized limit for a signed-in owner, the API's ordinary one for anyone else."""
    if session.signed_in() is None:
        return app_settings().max_body_bytes
    return get_settings().jobs.bulk_max_body_bytes
