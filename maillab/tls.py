"""The lab's TLS: a throw-away CA and server certificate made when a lab starts (``trustme``).

Real MTAs mostly present self-signed or mismatched certificates on port 25, and the prober does not
verify them; a fresh certificate per lab keeps private keys out of the repository.
"""

from __future__ import annotations

import ssl

import trustme


def server_context(*names: str) -> ssl.SSLContext:
    """A server-side context whose certificate names ``names`` (the lab's MX host names)."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*(names or ("localhost",))).configure_cert(context)
    return context
