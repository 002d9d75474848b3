"""Bulk tests run against a real worker process and the API over HTTP."""

from tests.workers.harness import api, beat, job_env, worker

__all__ = ["api", "beat", "job_env", "worker"]
