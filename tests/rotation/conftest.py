"""Rotation fixtures: a controlled timeline per test, the loopback SMTP server, the owner's mail per key.

Each test's day 0 lies in the past, a year earlier than the previous test's: the sweeper walks every key
of the run's database, and keys of other tests (created at real time, or on a later timeline) are then
in this test's future, so they never reach a milestone here and never send mail into this test's mailbox.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from flask.testing import FlaskClient

from core import clock
from models import Account
from models.session import transaction
from tasks.keys import sweep_key_rotation
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox, Received, mailbox

__all__ = ["mailbox"]
_EARLIER = itertools.count()


@dataclass(frozen=True)
class Timeline:
    day0: datetime

    def at(self, day: float) -> datetime:
        """Move the service clock to ``day`` days after day 0."""
        moment = self.day0 + timedelta(days=day)
        clock.freeze(moment)
        return moment


@pytest.fixture
def timeline(owner: Persona) -> Iterator[Timeline]:
    """Day 0 in the past; the owner's own admin key was made at real time, so it never ages here."""
    day0 = datetime(2016, 3, 1, 9, 0, tzinfo=UTC) - timedelta(days=365 * next(_EARLIER))
    clock.freeze(day0)
    yield Timeline(day0)
    clock.unfreeze()


def sweep(times: int = 1) -> None:
    """What beat does: run the task, here ``times`` times in a row."""
    for _ in range(times):
        sweep_key_rotation()


def sweep_concurrently(sweepers: int) -> None:
    """``sweepers`` tasks at the same instant, as two (or more) beat hosts would start them."""
    start = threading.Barrier(sweepers)
    errors: list[BaseException] = []

    def one() -> None:
        start.wait()
        try:
            sweep_key_rotation()
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(sweepers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def owner_email(account_id: int) -> str:
    with transaction() as session:
        return session.get_one(Account, account_id).owner_email


def mail_about(mailbox: Mailbox, account_id: int, key_id: int) -> list[Received]:
    """The owner's emails that name ``key_id``, in arrival order."""
    return [mail for mail in mailbox.to(owner_email(account_id)) if f"(id {key_id}," in mail.text()]


@dataclass(frozen=True)
class CreatedKey:
    id: int
    secret: str


def create_key(client: FlaskClient, owner: Persona, name: str, *, auto_rotate: bool) -> CreatedKey:
    """A key made through the API as its owner would, with ``keys:write`` so it can read itself back."""
    body = {"name": name, "scopes": ["keys:write", "validate:write"], "autoRotate": auto_rotate}
    response = client.post("/api/keys", json=body, headers=owner.headers)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return CreatedKey(id=int(created["id"]), secret=str(created["secretKey"]))
