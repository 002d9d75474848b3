"""Browser validation tests: the API in-process (``client``) for its rules; gunicorn, a worker and Chromium
for what a page and a form's server see (``service``: a module sets ``SERVICE_SETTINGS`` for its own)."""

from collections.abc import Iterator

import pytest

from tests.dashboard.browser import browser
from tests.limits.helpers import at_instant
from tests.processes import running
from tests.workers.harness import Gunicorn, Worker, beat, job_env, start_gunicorn, worker

__all__ = ["at_instant", "beat", "browser", "job_env", "worker"]


@pytest.fixture(scope="module")
def service(
    request: pytest.FixtureRequest,
    job_env: dict[str, str],
    worker: Worker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Gunicorn]:
    """gunicorn for the module, with the module's ``SERVICE_SETTINGS`` (environment variables)."""
    settings: dict[str, str] = getattr(request.module, "SERVICE_SETTINGS", {})
    with running(start_gunicorn(job_env | settings, tmp_path_factory.mktemp("browser"))) as served:
        yield served
