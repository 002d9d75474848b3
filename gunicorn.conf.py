"""gunicorn settings for the web process type (read automatically by gunicorn from the working directory).

Threads, not more processes: a web request only waits on Postgres, Redis and (for a synchronous batch)
the worker's answer, never on SMTP, so a few processes with threads each keep memory flat while a slow
wait does not block other requests.
"""

import logging
import os
from typing import Any

from settings import get_settings
from verifier.engine import ready_to_serve

# Loopback unless BIND_ADDRESS says otherwise: behind a proxy (README, "Behind a proxy") only the proxy on
# this host should reach the app, or a client could bypass it and forge X-Forwarded-For.
bind = f"{get_settings().bind_address}:{get_settings().port}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "8"))
# One listening socket per worker (SO_REUSEPORT): the kernel spreads new connections over the workers.
# With one shared socket the first worker to wake accepted every keep-alive connection of a burst and
# served them all while the others idled (measured: 16 clients, 2 workers, one did 98% of the requests).
reuse_port = True
timeout = 60
graceful_timeout = 20
# No gunicorn access line: the app writes one JSON line per request (``web.pipeline.log_request``: request
# id, method, path without its query string, status, duration, client IP, account and key), and a second,
# plain line per request would cost a tenth of a quick validation's CPU. Requests that never reach the
# app (a malformed request line) are in gunicorn's error log.
accesslog = None
forwarded_allow_ips = "127.0.0.1"


class ListeningAddress(logging.Filter):
    """With ``reuse_port`` the master opens no socket (each worker binds its own), so gunicorn's "Listening
    at:" line names none; this fills in the address every worker binds."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Listening at: %s (%s)" and isinstance(record.args, tuple) and not record.args[0]:
            record.args = (self.url, *record.args[1:])
        return True


def on_starting(server: Any) -> None:
    """Before the master logs where it listens."""
    urls = [address if address.startswith("unix:") else f"http://{address}" for address in server.cfg.bind]
    server.log.error_log.addFilter(ListeningAddress(",".join(urls)))


def post_worker_init(_worker: Any) -> None:
    """Each worker is ready to serve before it accepts a connection (``ready_to_serve``), not during its
    first request: a full collection's 83 ms over the start-up heap paused a request about once per 3,000
    quick validations."""
    ready_to_serve()
