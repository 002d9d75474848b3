"""Spec 3.1, 4.4, 4.5 and the reseller tier: once the answer to a refresh, a revoke-all, a key deletion, a
sub-user's suspension or deletion has been sent, the very next request with an affected secret is refused by
every web process and thread; once a reactivation is answered, the next request is served.

Real gunicorn with three workers of eight threads each. Eight client threads hammer the secret (quick
validations, which count against the rate limit, and key listings, which only peek at it), each on its own
keep-alive connection and a fresh one every few requests, so every worker holds the key in memory when the
change is made. Every request is stamped with the moment it was sent: each one sent after the changing call
returned must be answered as the change says, and the ones before show the secret was in use up to it.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import requests
from sqlalchemy import select
from sqlalchemy.orm import Session

from models.accounts import Tier
from models.audit import AuditEntry, AuditEvent
from models.resellers import SubUser
from models.session import transaction
from tests.fixtures.db import Persona, open_persona
from tests.processes import start_gunicorn

CLIENT_THREADS = 8
AFTER_SECONDS = 1.0  # how long the hammering goes on after the change was answered
FRESH_EVERY = 5  # every fifth request opens a new connection (the kernel may hand it to another worker)


@pytest.fixture(scope="module")
def served(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("gunicorn-at-once")
    server = start_gunicorn(os.environ, folder, WEB_CONCURRENCY="3", WEB_THREADS="8")
    try:
        yield server.base_url
    finally:
        server.stop()


@dataclass
class Hammer:
    """Client threads sending requests with one secret until stopped; ``answers`` holds (sent at, status)."""

    base: str
    secret: str
    answers: list[tuple[float, int]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _send(self, session: requests.Session, turn: int) -> int:
        headers = {"X-API-Key": self.secret}
        if turn % 2:
            body = {"email": "not-an-address", "options": {"quickMode": True}}
            return session.post(f"{self.base}/validate", json=body, headers=headers, timeout=30).status_code
        return session.get(f"{self.base}/api/usage", headers=headers, timeout=30).status_code

    def _loop(self) -> None:
        session = requests.Session()
        for turn in itertools.count():
            if self._stop.is_set():
                break
            if turn % FRESH_EVERY == 0:
                session.close()
                session = requests.Session()
            sent_at = time.monotonic()
            status = self._send(session, turn)
            with self._lock:
                self.answers.append((sent_at, status))
        session.close()

    def around(self, change: Callable[[], requests.Response]) -> tuple[list[int], list[int]]:
        """Hammer, make ``change`` once every thread has been answered a few times, go on for
        ``AFTER_SECONDS``; the statuses of requests sent before the change began and after it returned."""
        threads = [threading.Thread(target=self._loop) for _ in range(CLIENT_THREADS)]
        for thread in threads:
            thread.start()
        while len(self.answers) < CLIENT_THREADS * 6:
            time.sleep(0.01)
        began = time.monotonic()
        response = change()
        returned = time.monotonic()
        assert response.status_code < 300, response.text
        time.sleep(AFTER_SECONDS)
        self._stop.set()
        for thread in threads:
            thread.join(timeout=60)
        before = [status for sent, status in self.answers if sent < began]
        after = [status for sent, status in self.answers if sent > returned]
        return before, after


def call(method: str, url: str, secret: str, **body: object) -> requests.Response:
    return requests.request(method, url, headers={"X-API-Key": secret}, timeout=30, **body)  # type: ignore[arg-type]


def assert_refused_from_the_change_on(before: list[int], after: list[int]) -> None:
    assert 200 in before  # served up to the change (a request in flight then may be refused already)
    assert after
    assert set(after) == {401}


def test_a_refreshed_secret_is_refused_on_the_next_request_and_the_new_one_served(served: str) -> None:
    owner = open_persona(Tier.ENTERPRISE_PLUS)  # 5,000 requests a minute
    refreshed: list[requests.Response] = []

    def refresh() -> requests.Response:
        refreshed.append(call("post", f"{served}/api/keys/{owner.key_id}/refresh", owner.secret))
        return refreshed[-1]

    before, after = Hammer(served, owner.secret).around(refresh)
    assert_refused_from_the_change_on(before, after)
    new_secret = refreshed[0].json()["key"]["secretKey"]
    assert call("get", f"{served}/api/usage", new_secret).status_code == 200


def test_revoke_all_refuses_every_key_on_the_next_request(served: str) -> None:
    owner = open_persona(Tier.ENTERPRISE_PLUS)
    before, after = Hammer(served, owner.secret).around(
        lambda: call("post", f"{served}/api/keys/revoke-all", owner.secret)
    )
    assert_refused_from_the_change_on(before, after)


def test_a_deleted_key_is_refused_on_the_next_request(served: str) -> None:
    owner = open_persona(Tier.ENTERPRISE_PLUS)  # 5,000 requests a minute
    secret = owner.secret
    other = call("post", f"{served}/api/keys", secret, json={"name": "Deleted under load", "scopes": ["*:*"]})
    doomed = other.json()
    before, after = Hammer(served, doomed["secretKey"]).around(
        lambda: call("delete", f"{served}/api/keys/{doomed['id']}", secret)
    )
    assert_refused_from_the_change_on(before, after)


def sub_user(base: str, reseller: Persona) -> tuple[str, str]:
    """A sub-user on Enterprise (2,000 requests a minute): its id and its first key's secret."""
    email = f"customer-{secrets.token_hex(4)}@example.com"
    body = {"email": email, "name": "Customer under load", "tier": "enterprise"}
    created = call("post", f"{base}/api/sub-users", reseller.secret, json=body)
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["secretKey"]


@pytest.mark.parametrize(
    ("method", "body"),
    [("patch", {"status": "suspended"}), ("delete", None)],
    ids=["suspended", "deleted"],
)
def test_a_suspended_or_deleted_sub_users_keys_stop_on_the_next_request(
    served: str, method: str, body: dict[str, str] | None
) -> None:
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    sub_id, secret = sub_user(served, reseller)
    before, after = Hammer(served, secret).around(
        lambda: call(method, f"{served}/api/sub-users/{sub_id}", reseller.secret, json=body)
    )
    assert_refused_from_the_change_on(before, after)


def test_a_reactivated_sub_users_keys_work_on_the_next_request(served: str) -> None:
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    sub_id, secret = sub_user(served, reseller)
    suspended = call(
        "patch", f"{served}/api/sub-users/{sub_id}", reseller.secret, json={"status": "suspended"}
    )
    assert suspended.status_code == 200, suspended.text
    before, after = Hammer(served, secret).around(
        lambda: call("patch", f"{served}/api/sub-users/{sub_id}", reseller.secret, json={"status": "active"})
    )
    assert 401 in before  # refused up to the change (a request in flight then may be served already)
    assert after
    assert set(after) == {200}


def failed_authentications(base: str, reader_secret: str) -> list[dict[str, object]]:
    response = call("get", f"{base}/api/audit-log?type=auth.failed", reader_secret)
    assert response.status_code == 200, response.text
    entries: list[dict[str, object]] = response.json()["data"]
    return entries


def test_a_rotated_away_or_deleted_secret_is_a_failed_authentication_of_its_account(served: str) -> None:
    owner = open_persona(Tier.ENTERPRISE_PLUS)
    spare = call("post", f"{served}/api/keys", owner.secret, json={"name": "Deleted, then tried"}).json()
    refreshed = call("post", f"{served}/api/keys/{owner.key_id}/refresh", owner.secret).json()
    new_secret = refreshed["key"]["secretKey"]
    assert call("delete", f"{served}/api/keys/{spare['id']}", new_secret).status_code == 200

    assert call("get", f"{served}/api/usage", owner.secret).status_code == 401
    assert call("get", f"{served}/api/usage", spare["secretKey"]).status_code == 401

    entries = failed_authentications(served, new_secret)
    assert {(entry["keyId"], entry["details"]["reason"]) for entry in entries} == {  # type: ignore[index]
        (owner.key_id, "secret rotated"),
        (spare["id"], "secret deleted"),
    }


def test_revoked_keys_and_keys_of_a_deleted_sub_user_are_failed_authentications_of_their_account(
    served: str,
) -> None:
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    sub_id, sub_secret = sub_user(served, reseller)
    assert call("delete", f"{served}/api/sub-users/{sub_id}", reseller.secret).status_code in (200, 204)
    assert call("get", f"{served}/api/usage", sub_secret).status_code == 401
    assert call("post", f"{served}/api/keys/revoke-all", reseller.secret).status_code == 200
    assert call("get", f"{served}/api/usage", reseller.secret).status_code == 401

    with transaction() as session:
        reasons: dict[int | None, str] = dict(
            session.execute(
                select(AuditEntry.key_id, AuditEntry.details["reason"].astext).where(
                    AuditEntry.event == AuditEvent.AUTH_FAILED.value,
                    AuditEntry.account_id.in_([reseller.account_id, account_of_sub_user(session, sub_id)]),
                )
            ).all()
        )
    assert sorted(reasons.values()) == ["account suspended", "key inactive"]
    assert reasons[reseller.key_id] == "key inactive"


def account_of_sub_user(session: Session, sub_id: str) -> int:
    return session.scalars(select(SubUser.account_id).where(SubUser.public_id == sub_id)).one()


def test_refusals_carry_the_rate_limit_headers_too(served: str) -> None:
    owner = open_persona(Tier.ENTERPRISE_PLUS)
    reader = call(
        "post", f"{served}/api/keys", owner.secret, json={"name": "Reads only", "scopes": ["validate:read"]}
    )
    refusals = [
        call("get", f"{served}/api/usage", "sk_live_never_issued"),  # 401
        call("get", f"{served}/api/keys", reader.json()["secretKey"]),  # 403
        requests.get(f"{served}/no-such-route", timeout=30),  # 404
        requests.post(f"{served}/validate", data="x", headers={"X-API-Key": owner.secret}, timeout=30),  # 415
    ]
    assert [response.status_code for response in refusals] == [401, 403, 404, 415]
    for response in refusals:
        assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(response.headers)
