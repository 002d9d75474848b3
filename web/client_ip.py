"""The client's IP address, the one place it is decided.

By default it is the socket peer. Behind N proxies (``TRUSTED_PROXIES=N``) Werkzeug's ProxyFix takes the
N-th address from the right of ``X-Forwarded-For``: each trusted proxy appends the peer it saw, so
entries further left were written by the client and are ignored. A client therefore cannot claim an
allowlisted address by sending the header itself, with or without proxies in front.
"""

from __future__ import annotations

from flask import Flask, request
from werkzeug.middleware.proxy_fix import ProxyFix


def install(app: Flask, trusted_proxies: int) -> None:
    if trusted_proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=trusted_proxies)  # type: ignore[method-assign]


def client_ip() -> str | None:
    return request.remote_addr
