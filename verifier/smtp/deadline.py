"""An overall deadline that bounds every wait of a probe (connect, banner, each command, limiter).

The workers run probes in a gevent pool without task time limits, so nothing may wait unbounded: each
wait asks the deadline for ``min(its own timeout, time left)`` and gives up once nothing is left.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class DeadlineExceeded(TimeoutError):
    """The probe's overall time budget is spent."""


class Deadline:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self._end - self._clock())

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def bound(self, timeout: float) -> float:
        """``timeout`` cut to the time left; raise ``DeadlineExceeded`` when none is."""
        left = self.remaining()
        if left <= 0:
            raise DeadlineExceeded("SMTP deadline reached")
        return min(timeout, left)
