"""``validation.completed`` as a receiver gets it after a validation through the API: the address as the
result gives it (in lowercase, spec 2.1), in an envelope whose timestamp is UTC with a ``Z``."""

from __future__ import annotations

import re

from services.webhooks import delivery
from tests.fixtures.db import Persona
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Api, job_env, live_api

__all__ = ["job_env", "live_api"]

ONE_FORMAT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def test_validation_completed_carries_the_address_in_lowercase_as_the_result_does(
    live_api: Api, owner: Persona, receiver: Receiver
) -> None:
    hooks = {"url": receiver.url(), "events": ["validation.completed"]}
    created = live_api.call("post", "/webhooks", owner, json=hooks)
    assert created.status_code == 201, created.text
    receiver.secret = created.json()["secret"]
    sent = " Dave.Smith@MailBox.TEST"

    answer = live_api.call("post", "/validate", owner, json={"email": sent, "options": {"quickMode": True}})
    delivery.deliver_due()

    assert answer.status_code == 200, answer.text
    assert all(item.verified for item in receiver.received)
    [event] = receiver.events()
    assert event["data"]["email"] == answer.json()["email"] == "dave.smith@mailbox.test"
    assert ONE_FORMAT.fullmatch(event["timestamp"]), event["timestamp"]
