"""The demo's own retry and politeness times: the service's, shortened, so that the lab's greylisting and
busy servers settle within a demo of half a minute instead of minutes.

With the service's defaults, ``busy.test`` (a 421 at every greeting) holds the last address of the list for
minutes: each of its five tries waits out a politeness backoff of 30, 60, 120 then 240 s. The demo passes
these values to the processes it starts; a value already in the caller's environment wins, so
``SMTP_BACKOFF_SECONDS=30 bin/demo`` shows the service's real pace.
"""

from __future__ import annotations

from dataclasses import dataclass

from settings import JobSettings
from verifier.config import EngineConfig


@dataclass(frozen=True)
class Timing:
    name: str
    demo: int
    service: int  # the service's default, for --help
    meaning: str


def table() -> tuple[Timing, ...]:
    jobs, engine = JobSettings(), EngineConfig()
    return (
        Timing(
            "SMTP_GREYLIST_RETRY_AFTER",
            1,
            engine.smtp_greylist_retry_after,
            "seconds before a greylisted or busy server is asked again",
        ),
        Timing(
            "SMTP_BACKOFF_SECONDS",
            1,
            jobs.backoff_seconds,
            "no new session to a server for this long after its 421 (doubling at each 421)",
        ),
        Timing("SMTP_BACKOFF_MAX_SECONDS", 2, jobs.backoff_max_seconds, "the longest such backoff"),
        Timing("JOB_SWEEP_SECONDS", 1, jobs.sweep_interval, "how often retries that are due are sent"),
    )


def timings() -> dict[str, str]:
    """The demo's values as environment variables."""
    return {timing.name: str(timing.demo) for timing in table()}


def described() -> str:
    """The table as plain text for ``--help``."""
    lines = [f"  {t.name}={t.demo}  (service default {t.service}): {t.meaning}" for t in table()]
    return "\n".join(lines)
