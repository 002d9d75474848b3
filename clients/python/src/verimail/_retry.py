"""When to try a request again, and after how long: 429 and 503 answers, honouring ``Retry-After``.

The wait is at least what the service asked for, plus up to ``jitter`` of it on top, so clients refused
in the same second do not all come back in the same second. A wait longer than ``max_wait`` (the monthly
hard limit says "next month") is not slept: the error is raised at once for the caller to decide.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx

RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3  # attempts after the first; 0 turns retries off
    max_wait: float = 60.0  # seconds: the longest one wait may be (a minute's rate window)
    backoff: float = 0.5  # seconds before the first retry when the answer gives no Retry-After
    jitter: float = 0.25  # up to this share of the wait is added at random

    def wait(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to stop here (``response`` None: the
        connection could not be made)."""
        if attempt >= self.max_retries:
            return None
        if response is not None and response.status_code not in RETRIED_STATUSES:
            return None
        asked = retry_after(response) if response is not None else None
        base = asked if asked is not None else self.backoff * 2**attempt
        if base > self.max_wait:
            return None
        return base + random.uniform(0, self.jitter * max(base, self.backoff))


def retry_after(response: httpx.Response) -> float | None:
    """The ``Retry-After`` header in seconds (the service sends seconds, never an HTTP date)."""
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
