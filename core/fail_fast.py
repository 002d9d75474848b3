"""Failing fast on a store that stopped answering, instead of waiting out its timeout at every call.

A stopped Redis or Postgres refuses a connection at once; one behind a dead host or a dropped route lets
the connect wait its whole timeout (5 s), and a request makes several calls (authentication, the rate
limit, the limit headers, the error count), each retried by its client: half a minute before the 503.
After one connect to a store timed out, every other connect of the process fails at once for as long as
that timeout, then one is tried again (each caller raises its store's own connection error).

Trade-off accepted: a store that comes back within that window is used again up to one timeout late.
A refused connect trips nothing: it is already fast, and a restarted store is used at once.
"""

from __future__ import annotations

import time


class FailFast:
    """Per process and per store: open for ``seconds`` after a connect timed out."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._closed_at = 0.0

    @property
    def open(self) -> bool:
        return time.monotonic() < self._closed_at

    def trip(self) -> None:
        """A connect just timed out: the next ones fail at once for ``seconds``."""
        self._closed_at = time.monotonic() + self.seconds
