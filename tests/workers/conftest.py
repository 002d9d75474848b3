"""Worker tests start and kill their own worker processes; beat and the API come from the harness."""

from tests.workers.harness import beat, job_env, live_api

__all__ = ["beat", "job_env", "live_api"]
