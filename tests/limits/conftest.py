"""The limits/usage fixtures live in ``tests.limits.helpers``; importing them here makes pytest see them.
Requests go to the real app through the suite's ``client`` fixture."""

from tests.limits.helpers import at_instant  # noqa: F401
