"""The official clients against the running service: gunicorn, a Celery worker and beat on this run's
database, Redis prefix and mail lab; the clients talk to it over real HTTP, in test mode."""

from collections.abc import Iterator

import pytest

from tests.processes import running
from tests.workers.harness import Gunicorn, Worker, beat, job_env, start_gunicorn, worker

__all__ = ["beat", "job_env", "worker"]
# The verdict-token test asks many times from one page: the per-visitor window must not be what it meets.
SERVICE_SETTINGS = {"BROWSER_VISITOR_PER_MINUTE": "1000"}


@pytest.fixture(scope="module")
def service(
    job_env: dict[str, str], worker: Worker, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gunicorn]:
    with running(start_gunicorn(job_env | SERVICE_SETTINGS, tmp_path_factory.mktemp("clients"))) as served:
        yield served
