"""The limits/usage fixtures live in ``tests.limits.probe``; importing them here makes pytest see them."""

from tests.limits.probe import api, at_instant, probe_app  # noqa: F401
