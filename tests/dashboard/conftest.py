"""Browser tests of the dashboard against the real service (gunicorn, worker, beat, Postgres, Redis)."""

from tests.dashboard.browser import browser, page
from tests.dashboard.service import service
from tests.workers.harness import job_env

__all__ = ["browser", "job_env", "page", "service"]
