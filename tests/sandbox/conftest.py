"""Test mode end to end: the API over HTTP, a worker that can deliver webhooks to the loopback receiver."""

from tests.webhooks.conftest import ca_bundle, receiver, test_ca, webhook_env
from tests.workers.harness import beat, job_env, live_api

__all__ = ["beat", "ca_bundle", "job_env", "live_api", "receiver", "test_ca", "webhook_env"]
