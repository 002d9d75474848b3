"""``python -m verimail_webhooks listen --forward-to http://127.0.0.1:...``: a test-mode batch's real
``batch.completed`` reaches a plain-HTTP receiver on loopback, signed with the secret the command printed,
verified by ``verimail_webhooks``; nobody else's listener (another mode, another account) gets it."""

from __future__ import annotations

import time
from typing import Any

import requests

from tests.fixtures.db import Persona, add_key, open_twins
from tests.processes import Gunicorn
from tests.webhooks.listening import Listen, beat, job_env, listens, local_receiver, start_listen, web, worker
from tests.webhooks.receiver import Receiver

__all__ = ["beat", "job_env", "listens", "local_receiver", "web", "worker"]
MAGIC = ["deliverable@example.com", "full@example.com", "undeliverable@example.com"]


def call(web: Gunicorn, method: str, path: str, persona: Persona, **kwargs: Any) -> requests.Response:
    return requests.request(method, web.base_url + path, headers=persona.headers, timeout=60, **kwargs)


def batch_events(receiver: Receiver, batch_id: str) -> list[dict[str, Any]]:
    return [
        e for e in receiver.events() if e["type"] == "batch.completed" and e["data"]["batchId"] == batch_id
    ]


def wait_for_batch_event(receiver: Receiver, batch_id: str, seconds: float = 60) -> list[dict[str, Any]]:
    give_up = time.monotonic() + seconds
    while not batch_events(receiver, batch_id) and time.monotonic() < give_up:
        time.sleep(0.2)
    return batch_events(receiver, batch_id)


def test_a_test_mode_batch_reaches_a_local_receiver_signed_with_the_printed_secret(
    web: Gunicorn, worker: object, local_receiver: Receiver, listens: list[Listen]
) -> None:
    _, test = open_twins()
    listen = start_listen(web.base_url, test.secret, local_receiver.url("127.0.0.1", "/hooks"))
    listens.append(listen)
    local_receiver.secret = listen.secret

    batch = call(web, "post", "/validate/batch", test, json={"emails": MAGIC}).json()

    found = wait_for_batch_event(local_receiver, batch["batchId"])
    assert len(found) == 1, (batch, listen.output(), local_receiver.received)
    [event] = found
    assert event["livemode"] is False
    assert (event["data"]["total"], event["data"]["invalid"]) == (3, 1)
    assert local_receiver.received
    assert all(item.verified for item in local_receiver.received)
    assert "Forwarding test-mode events" in listen.output()
    assert f"batch.completed [{event['id']}] --> POST" in listen.output()
    assert "[200]" in listen.output()


def test_another_mode_or_account_gets_nothing_of_it(
    web: Gunicorn, worker: object, local_receiver: Receiver, listens: list[Listen]
) -> None:
    live, test = open_twins()
    _, outsider_test = open_twins()
    mine = start_listen(web.base_url, test.secret, local_receiver.url("127.0.0.1", "/mine"))
    for persona, path in ((live, "/live"), (outsider_test, "/outsider")):
        listens.append(start_listen(web.base_url, persona.secret, local_receiver.url("127.0.0.1", path)))
    listens.append(mine)
    local_receiver.secret = mine.secret

    batch = call(web, "post", "/validate/batch", test, json={"emails": MAGIC}).json()
    assert wait_for_batch_event(local_receiver, batch["batchId"])
    time.sleep(1)  # five more polls of the other listeners (0.2 s each), had anything been queued for them

    [event] = batch_events(local_receiver, batch["batchId"])
    assert [item.event["id"] for item in local_receiver.received if item.event] == [event["id"]]
    others = [listen for listen in listens if listen is not mine]
    assert [listen.output().count(" --> POST ") for listen in others] == [0, 0]
    assert mine.output().count(" --> POST ") == 1


def test_a_listener_is_its_own_mode_s_own_and_is_audited(web: Gunicorn, listens: list[Listen]) -> None:
    live, test = open_twins()
    opened = call(web, "post", "/webhooks/listeners", test, json={"events": ["batch.completed"]})
    assert opened.status_code == 201, opened.text
    listener = opened.json()
    assert (listener["livemode"], listener["secret"][:6], listener["events"]) == (
        False,
        "whsec_",
        ["batch.completed"],
    )

    from_live = call(web, "get", f"/webhooks/listeners/{listener['id']}/events", live)
    assert from_live.status_code == 404
    assert f"No event listener {listener['id']}" in from_live.text
    polled = call(web, "get", f"/webhooks/listeners/{listener['id']}/events", test).json()
    assert (polled["data"], polled["hasMore"], polled["livemode"]) == ([], False, False)
    closed = call(web, "delete", f"/webhooks/listeners/{listener['id']}", test)
    assert closed.json() == {"id": listener["id"], "deleted": True, "livemode": False}
    assert call(web, "get", f"/webhooks/listeners/{listener['id']}/events", test).status_code == 404

    trail = call(web, "get", "/api/audit-log?type=listener.opened,listener.closed", test).json()["data"]
    assert [(entry["type"], entry["details"]["listenerId"]) for entry in trail] == [
        ("listener.closed", listener["id"]),
        ("listener.opened", listener["id"]),
    ]
    assert call(web, "get", "/api/audit-log?type=listener.opened", live).json()["data"] == []


def test_a_key_without_webhooks_read_cannot_listen(web: Gunicorn) -> None:
    _, test = open_twins()
    narrow = add_key(test.account_id, "validate only", ("validate:write",), livemode=False)
    refused = call(web, "post", "/webhooks/listeners", narrow, json={})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
