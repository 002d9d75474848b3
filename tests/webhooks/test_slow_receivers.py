"""Slow receivers cost their owner only: every send ends within its wall-clock deadline, no row lock or
transaction is held while a receiver thinks, one account has at most ``ACCOUNT_SLOTS`` sends in flight, and
test sends never hold a web thread for more than a few seconds."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import psycopg2
import pytest
import trustme
from flask.testing import FlaskClient
from sqlalchemy import select

from models import WebhookAttempt, WebhookDelivery
from models import session as db_session
from services.broker import TASK_ROUTES, WEBHOOK_TASKS
from services.webhooks import delivery, events, outbound
from services.webhooks.errors import DeliveryError
from tests.fixtures.db import Persona, open_persona, open_twins
from tests.webhooks.conftest import subscribe
from tests.webhooks.receiver import Receiver

DEADLINE = 3.0


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's sends end after 3 s instead of 30, so a test proves the rule in seconds."""
    monkeypatch.setattr(outbound, "TIMEOUT_SECONDS", DEADLINE)


@pytest.fixture
def trickler(test_ca: trustme.CA, webhook_env: None) -> Iterator[Receiver]:
    """A receiver that answers five bytes a second: every socket read succeeds, the answer never ends (the
    status line is complete after 3 s, the headers never within the deadline)."""
    server = Receiver(ca=test_ca, trickle=0.2)
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("trickle_body", [False, True], ids=["headers", "body"])
def test_a_trickling_receiver_is_cut_off_at_the_wall_clock_deadline(
    short_deadline: None, trickler: Receiver, trickle_body: bool
) -> None:
    trickler.trickle_body = trickle_body
    started = time.monotonic()
    with pytest.raises(DeliveryError, match="no complete answer within 3 seconds"):
        outbound.post(trickler.url(), b"{}", {})
    elapsed = time.monotonic() - started
    # Each byte came within 0.2 s, so a per-read timeout of 3 s would never have fired.
    assert DEADLINE <= elapsed < DEADLINE + 1.5


def test_no_transaction_or_row_lock_is_held_while_a_receiver_is_slow(
    short_deadline: None, database_url: str, owner: Persona, trickler: Receiver, client: FlaskClient
) -> None:
    subscribe(client, owner, trickler, ["quota.reset"])
    with db_session.transaction() as session:
        event = events.emit(session, owner.account_id, "quota.reset", {"previousUsage": 1})
        assert event is not None
    sending = threading.Thread(target=delivery.deliver_due, kwargs={"event_id": event.id})
    sending.start()
    try:
        time.sleep(1.0)  # the POST is in flight, the receiver trickling
        connection = psycopg2.connect(database_url.replace("postgresql+psycopg2:", "postgresql:"))
        try:
            cursor = connection.cursor()
            # NOWAIT fails at once if anyone holds the row; and no session of the service sits in a
            # transaction while it waits on the network.
            cursor.execute(
                "SELECT id FROM webhook_deliveries WHERE event_id = %s FOR UPDATE NOWAIT", (event.id,)
            )
            assert cursor.fetchone() is not None
            connection.rollback()
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
            )
            assert cursor.fetchone() == (0,)
        finally:
            connection.close()
    finally:
        sending.join(DEADLINE + 5)
    with db_session.transaction() as session:
        [attempt] = session.scalars(
            select(WebhookAttempt).join(WebhookDelivery).where(WebhookDelivery.event_id == event.id)
        ).all()
    assert "no complete answer" in (attempt.error or "")


def test_one_accounts_slow_receivers_never_delay_another_accounts_deliveries(
    short_deadline: None,
    client: FlaskClient,
    test_ca: trustme.CA,
    trickler: Receiver,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(delivery, "ACCOUNT_SLOTS", 2)
    slow, quick = open_persona(), open_persona()
    for _ in range(3):
        subscribe(client, slow, trickler, ["quota.reset"])
    subscribe(client, quick, receiver, ["quota.reset"])
    with db_session.transaction() as session:
        slow_event = events.emit(session, slow.account_id, "quota.reset", {"previousUsage": 1})
    with db_session.transaction() as session:
        quick_event = events.emit(session, quick.account_id, "quota.reset", {"previousUsage": 2})
    assert slow_event is not None
    assert quick_event is not None
    quick_after = sweep_until_received(receiver)
    assert [event["id"] for event in receiver.events()] == [quick_event.id]
    assert quick_after < 1.5, "the other account's delivery waited for the slow receivers"
    with db_session.transaction() as session:
        attempts = session.scalars(
            select(WebhookAttempt.attempted_at)
            .join(WebhookDelivery)
            .where(WebhookDelivery.event_id == slow_event.id)
            .order_by(WebhookAttempt.attempted_at)
        ).all()
    # Two at once (the account's slots), the third only after one of them ended.
    assert len(attempts) == 3
    assert (attempts[2] - attempts[0]).total_seconds() >= DEADLINE - 0.5


@pytest.mark.parametrize("slow_livemode", [False, True], ids=["test-mode-flood", "live-flood"])
def test_one_modes_slow_receivers_never_delay_the_same_accounts_other_mode(
    short_deadline: None,
    client: FlaskClient,
    trickler: Receiver,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    slow_livemode: bool,
) -> None:
    monkeypatch.setattr(delivery, "ACCOUNT_SLOTS", 2)
    live, test = open_twins()
    slow, quick = (live, test) if slow_livemode else (test, live)
    for _ in range(3):
        subscribe(client, slow, trickler, ["quota.reset"])
    subscribe(client, quick, receiver, ["quota.reset"])
    with db_session.transaction() as session:
        events.emit(session, live.account_id, "quota.reset", {"previousUsage": 1}, livemode=slow_livemode)
    with db_session.transaction() as session:
        quick_event = events.emit(
            session, live.account_id, "quota.reset", {"previousUsage": 2}, livemode=not slow_livemode
        )
    assert quick_event is not None
    quick_after = sweep_until_received(receiver)
    [delivered] = receiver.events()
    assert (delivered["id"], delivered["livemode"]) == (quick_event.id, not slow_livemode)
    assert quick_after < 1.5, "the other mode's delivery waited for this mode's slow receivers"


def sweep_until_received(receiver: Receiver) -> float:
    """Four webhook worker threads sweeping at once, as a webhooks process with concurrency 4 would; the
    seconds until ``receiver`` got its first event (or the deadline), once every sweep has ended."""
    started = time.monotonic()
    sweepers = [threading.Thread(target=delivery.deliver_due) for _ in range(4)]
    for sweeper in sweepers:
        sweeper.start()
    while not receiver.events() and time.monotonic() - started < DEADLINE:
        time.sleep(0.05)
    received_after = time.monotonic() - started
    for sweeper in sweepers:
        sweeper.join(3 * DEADLINE + 5)
    return received_after


def test_every_delivery_task_runs_on_the_webhooks_queue() -> None:
    assert WEBHOOK_TASKS
    for name in WEBHOOK_TASKS:
        assert TASK_ROUTES[name] == {"queue": "webhooks"}
