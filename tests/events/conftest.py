"""The events suite reuses the webhook fixtures: a live HTTPS receiver and a subscribed endpoint."""

from tests.webhooks.conftest import (  # noqa: F401 - fixtures are found by name
    ca_bundle,
    no_foreign_endpoints,
    receiver,
    subscribed,
    test_ca,
    webhook_env,
)
