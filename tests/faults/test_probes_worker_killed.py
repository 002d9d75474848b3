"""The worker probing a bulk list is killed with SIGKILL in the middle of it, and another started in its
place: the list finishes within a minute of the new worker's start (the dead worker's lane holds run out in
seconds; its claims are not left to their ten-minute lease), with one result per line, one charge and one
``batch.completed``."""

from __future__ import annotations

from tests.faults.lists import assert_list_lost_nothing, list_through
from tests.faults.stack import Stack
from tests.webhooks.receiver import Receiver


def test_a_bulk_list_loses_nothing_when_its_worker_is_killed_in_the_middle(
    stack: Stack, receiver: Receiver
) -> None:
    fault = list_through(stack, receiver, stack.kill_worker, start=lambda: None)  # killed, started again

    assert_list_lost_nothing(stack, receiver, fault)
