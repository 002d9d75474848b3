"""Callers without a valid key have windows too: their client's (an IPv6 client by its /64). Every API
answer carries X-RateLimit-* (401, 403, 404, 405, public routes), refused authentications count, and past the
window a guesser gets 429 instead of another 401."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from models.accounts import Tier
from settings import get_settings
from tests.fixtures.db import add_key, open_persona

PER_MINUTE = 5
WINDOW_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


@pytest.fixture
def strict(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Five anonymous requests a minute, for this test's process."""
    monkeypatch.setitem(os.environ, "ANONYMOUS_REQUESTS_PER_MINUTE", str(PER_MINUTE))
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


def guess(client: FlaskClient, ip: str) -> tuple[int, dict[str, str]]:
    response = client.get(
        "/api/usage", headers={"X-API-Key": "sk_live_guessed"}, environ_base={"REMOTE_ADDR": ip}
    )
    return response.status_code, dict(response.headers)


def test_a_key_guesser_is_answered_429_once_its_window_is_spent(
    client: FlaskClient,
    strict: None,
    frozen_clock: None,  # every guess in one clock minute, however slow the machine
) -> None:
    answers = [guess(client, "198.51.100.7") for _ in range(PER_MINUTE + 2)]

    assert [status for status, _ in answers] == [401] * PER_MINUTE + [429, 429]
    assert [headers["X-RateLimit-Remaining"] for _, headers in answers[:PER_MINUTE]] == [
        "4",
        "3",
        "2",
        "1",
        "0",
    ]
    assert all(headers["X-RateLimit-Limit"] == str(PER_MINUTE) for _, headers in answers)
    assert int(answers[-1][1]["Retry-After"]) > 0
    assert guess(client, "198.51.100.8")[0] == 401  # another client has its own window


def test_an_ipv6_client_is_counted_by_its_64(
    client: FlaskClient,
    strict: None,
    frozen_clock: None,  # every guess in one clock minute, however slow the machine
) -> None:
    for host in range(PER_MINUTE):
        assert guess(client, f"2001:db8:1:2::{host + 1}")[0] == 401

    assert guess(client, "2001:db8:1:2:ffff::9")[0] == 429
    assert guess(client, "2001:db8:1:3::1")[0] == 401


def test_every_kind_of_answer_carries_the_windows(client: FlaskClient) -> None:
    owner = open_persona(Tier.GROWTH)
    reader = add_key(owner.account_id, "Reads results only", ("validate:read",))
    answers = {
        "401": client.get("/api/keys"),
        "403 scope": client.get("/api/keys", headers=reader.headers),
        "404 route": client.get("/no-such-route"),
        "404 row": client.get("/api/keys/999999999", headers=owner.headers),
        "405": client.delete("/validate", headers=owner.headers),
        "415": client.post("/validate", data="x", headers={**owner.headers, "Content-Type": "text/plain"}),
        "public": client.get("/health"),
    }

    for name, response in answers.items():
        assert all(header in response.headers for header in WINDOW_HEADERS), (name, response.status_code)
    assert answers["403 scope"].headers["X-RateLimit-Limit"] == "10"  # the account's Growth window
    assert answers["401"].headers["X-RateLimit-Limit"] == os.environ["ANONYMOUS_REQUESTS_PER_MINUTE"]


def test_public_routes_report_the_window_without_counting_it(client: FlaskClient, strict: None) -> None:
    ip = {"REMOTE_ADDR": "198.51.100.20"}
    remaining = [client.get("/health", environ_base=ip).headers["X-RateLimit-Remaining"] for _ in range(3)]

    assert remaining == [str(PER_MINUTE)] * 3
