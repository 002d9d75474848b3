"""Worker tests start and kill their own worker processes; beat and the API come from the harness."""

from tests.workers.harness import api, beat, job_env

__all__ = ["api", "beat", "job_env"]
