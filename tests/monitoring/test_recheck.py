"""A kept list re-checked by the beat's task on a real worker: the addresses whose verdict changed are
announced once each, signed, the run's counts follow, the diff holds only the changed rows in the user's
own columns, and a sweep killed after charging neither charges again nor loses the run."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select, update

from maillab import MailLab
from maillab.model import DomainSpec
from maillab.world import host
from models.jobs import ValidationJob
from models.monitoring import MonitoredList
from models.session import transaction
from models.webhooks import Event
from services.audit import Origin
from services.broker import COMPARE_RUNS_TASK, send_task
from services.monitoring import runs
from services.users import sessions, signup
from tests.fixtures.db import Persona
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Api, Worker, poll_until_finished
from web.dashboard.session import SID

SWEEP_TASK = "tasks.monitoring.recheck_due_lists"
# One answer a second: the service's DNS cache forgets it a second after the domain is withdrawn.
MOVING = (
    DomainSpec("moving.test", mx=((10, "mx.moving.test"),), ttl=1),
    host("mx.moving.test", "127.0.0.11", ttl=1),
)
LIST = (
    "email,name\n"
    "alice@mailbox.test,Ann\n"  # stays valid
    "alice@moving.test,=Bea\n"  # valid, then the domain is gone (a formula in the user's own cell)
    "not an address,Cy\n"  # invalid both times: unchanged
    "ALICE@moving.test,Bea again\n"  # a duplicate row of a changed address: in the diff too
)


def wait_until(check: Callable[[], Any], timeout: float = 60) -> Any:
    give_up = time.monotonic() + timeout
    while not (found := check()) and time.monotonic() < give_up:
        time.sleep(0.3)
    return found


def used(live_api: Api, owner: Persona) -> int:
    return int(live_api.call("get", "/api/usage", owner).json()["quota"]["used"])


@pytest.fixture
def moving_domain(mail_lab: MailLab) -> Any:
    mail_lab.publish(*MOVING)
    yield
    mail_lab.withdraw("moving.test", "mx.moving.test")


def test_a_due_run_announces_each_change_once_and_charges_once(
    live_api: Api,
    recheck_worker: Worker,
    owner: Persona,
    receiver: Receiver,
    mail_lab: MailLab,
    moving_domain: None,
    client: FlaskClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hook = live_api.call(
        "post",
        "/webhooks",
        owner,
        json={"url": receiver.url(), "events": ["address.changed", "list.rechecked"]},
    ).json()
    receiver.secret = hook["secret"]
    uploaded = live_api.call(
        "post", "/bulk/jobs", owner, data=LIST.encode(), headers={"Content-Type": "text/csv"}
    ).json()
    assert poll_until_finished(live_api, owner, f"/bulk/jobs/{uploaded['id']}", 60)["status"] == "completed"
    kept = live_api.call(
        "post", "/monitored-lists", owner, json={"jobId": uploaded["id"], "schedule": "weekly"}
    )
    assert kept.status_code == 201, kept.text
    list_id = kept.json()["id"]
    again = live_api.call(
        "post", "/monitored-lists", owner, json={"jobId": uploaded["id"], "schedule": "monthly"}
    )
    assert (again.status_code, again.json()["listId"]) == (409, list_id)

    mail_lab.withdraw("moving.test", "mx.moving.test")
    time.sleep(1.2)  # the cached answer expires
    before = used(live_api, owner)
    _make_due(list_id)
    # A sweep killed right after charging the run: the beat's next sweep must finish it, not pay again.
    monkeypatch.setattr(runs, "_finish_step", _killed)
    with pytest.raises(RuntimeError):
        runs.start_due()
    monkeypatch.undo()
    charged = used(live_api, owner)
    assert charged == before + 3  # three distinct addresses, once
    send_task(SWEEP_TASK)
    send_task(SWEEP_TASK)  # a duplicate tick

    run = wait_until(lambda: _completed_run(live_api, owner, list_id))
    assert run is not None, live_api.call("get", f"/monitored-lists/{list_id}", owner).text
    assert (run["number"], run["total"], run["changed"]) == (1, 3, 1)
    send_task(COMPARE_RUNS_TASK, [_job_pk(run["jobId"])])  # a redelivered comparison
    send_task(SWEEP_TASK)
    rechecked = wait_until(lambda: [e for e in receiver.events() if e["type"] == "list.rechecked"])
    time.sleep(2)  # time for a double to arrive, if there were one

    assert all(item.verified for item in receiver.received)
    changed = [event["data"] for event in receiver.events() if event["type"] == "address.changed"]
    assert changed == [
        {
            "listId": list_id,
            "run": 1,
            "email": "alice@moving.test",
            "row": 1,
            "previous": {"severity": "valid", "reason": changed[0]["previous"]["reason"]},
            "current": {"severity": "invalid", "reason": changed[0]["current"]["reason"]},
        }
    ]
    [summary] = [event["data"] for event in rechecked]
    assert {key: summary[key] for key in ("listId", "run", "jobId", "total", "changed", "unchanged")} == {
        "listId": list_id,
        "run": 1,
        "jobId": run["jobId"],
        "total": 3,
        "changed": 1,
        "unchanged": 2,
    }
    assert summary["diffUrl"].endswith(f"/monitored-lists/{list_id}/runs/1/diff")
    assert _events(owner, "address.changed") == 1
    assert used(live_api, owner) == charged

    diff = live_api.call("get", f"/monitored-lists/{list_id}/runs/1/diff", owner)
    assert diff.status_code == 200, diff.text
    rows = list(csv.reader(io.StringIO(diff.text)))
    assert rows[0] == ["email", "name", *DIFF_HEADER]
    assert [row[:4] for row in rows[1:]] == [
        ["alice@moving.test", "'=Bea", "alice@moving.test", "valid"],
        ["ALICE@moving.test", "Bea again", "alice@moving.test", "valid"],
    ]
    assert {row[5] for row in rows[1:]} == {"invalid"}

    page = _dashboard(client, owner).get("/dashboard/monitored-lists")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert f"/dashboard/monitored-lists/{list_id}/runs/1/diff" in text
    assert 'data-testid="changed">1<' in text


DIFF_HEADER = ["result_email", "previous_severity", "previous_reason", "current_severity", "current_reason"]


def _killed(*_: object, **__: object) -> None:
    raise RuntimeError("the sweep's process died after the charge")


def _make_due(list_id: str) -> None:
    with transaction() as session:
        session.execute(
            update(MonitoredList)
            .where(MonitoredList.public_id == list_id)
            .values(next_run_at=MonitoredList.created_at)
        )


def _completed_run(live_api: Api, owner: Persona, list_id: str) -> dict[str, Any] | None:
    body = live_api.call("get", f"/monitored-lists/{list_id}", owner).json()
    return next((run for run in body["runs"] if run["status"] == "completed"), None)


def _job_pk(public_id: str) -> int:
    with transaction() as session:
        return session.scalars(select(ValidationJob.id).where(ValidationJob.public_id == public_id)).one()


def _events(owner: Persona, event_type: str) -> int:
    with transaction() as session:
        found = session.scalars(
            select(Event.id).where(Event.account_id == owner.account_id, Event.type == event_type)
        )
        return len(list(found))


def _dashboard(client: FlaskClient, owner: Persona) -> FlaskClient:
    """The owner of the persona's account, signed in to the dashboard."""
    user = signup.add_owner(owner.account_id, "a long enough passphrase")
    token = sessions.open_session(user, Origin(ip="127.0.0.1"))
    with client.session_transaction() as cookie:
        cookie[SID] = token
    return client
