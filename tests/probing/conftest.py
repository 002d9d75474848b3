"""Probing tests run against a real worker process and the API over HTTP."""

from collections.abc import Iterator

import pytest

from settings import get_settings
from tests.workers.harness import beat, job_env, live_api, worker

__all__ = ["beat", "job_env", "live_api", "worker"]


TEN_MINUTES = {"JOB_LEASE_SECONDS": "600", "JOB_REQUEUE_SECONDS": "600"}


@pytest.fixture
def long_timers(monkeypatch: pytest.MonkeyPatch, database_url: str) -> Iterator[None]:
    for name, value in TEN_MINUTES.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()
