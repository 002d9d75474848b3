"""A secret handed to the page that shows it is shown once: taken back once, unreadable in Redis alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services import shown_once
from services.redis_client import get_redis, key

SECRET = "sk_live_" + "x" * 40


@pytest.fixture(autouse=True)
def _database(database_url: str) -> None:
    """Redis settings are this run's (the database fixture resets the clients)."""


def test_a_held_secret_is_taken_back_once() -> None:
    claim = shown_once.hold(SECRET)

    assert shown_once.take(claim) == SECRET
    assert shown_once.take(claim) is None


def test_redis_holds_only_ciphertext_and_it_expires() -> None:
    claim = shown_once.hold(SECRET)
    name = key("shown-once", claim.ticket)

    stored = get_redis().get(name)
    assert isinstance(stored, str)
    assert "x" * 10 not in stored
    assert 0 < get_redis().ttl(name) <= shown_once.WAIT_SECONDS


def test_a_claim_with_another_key_reads_nothing_and_spends_the_secret() -> None:
    claim = shown_once.hold(SECRET)
    other = shown_once.hold("sk_live_other")

    assert shown_once.take(replace(claim, key=other.key)) is None
    assert shown_once.take(claim) is None
    assert shown_once.take(replace(other, key="not base64!")) is None
