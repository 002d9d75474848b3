"""Probing tests run against a real worker process and the API over HTTP."""

from tests.workers.harness import beat, job_env, live_api, worker

__all__ = ["beat", "job_env", "live_api", "worker"]
