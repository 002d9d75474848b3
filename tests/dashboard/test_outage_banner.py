"""An owner signed in to the dashboard while Postgres or Redis is down sees a readable page with a banner
saying part of the service is not answering and when to try again (503, ``Retry-After``), never a bare
error page; a page whose own error is something else (a 404, a refused form) is still that page.

The owner's browser is Flask's test client holding a signed-in session cookie; the stores go down as in
``tests/web/test_outages.py`` (the test's own ``redis-server`` stopped, Postgres pointed at a closed port).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from werkzeug.test import TestResponse

from models.session import transaction
from models.users import DashboardUser
from services.audit import Origin
from services.users import sessions
from tests.fixtures.db import open_owner
from tests.fixtures.outages import postgres_url, store_at
from tests.limits.test_redis_restart import OwnRedis, own_redis
from tests.processes import free_port
from web.dashboard.session import SID
from web.errors import UNAVAILABLE_RETRY_SECONDS

__all__ = ["own_redis"]
PAGES = ["/dashboard/", "/dashboard/keys", "/dashboard/lists", "/dashboard/webhooks", "/dashboard/usage"]
BANNER = "Part of the service is not answering right now"


@pytest.fixture
def signed_in(client: FlaskClient) -> FlaskClient:
    """The client with an owner's session, as the sign-in form leaves it."""
    email = open_owner("a long enough passphrase")
    with transaction() as session:
        user = session.scalars(select(DashboardUser).where(DashboardUser.email == email)).one()
    token = sessions.open_session(user, Origin(ip="127.0.0.1"))
    with client.session_transaction() as cookie:
        cookie[SID] = token
    return client


@pytest.fixture
def postgres_refusing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with store_at(monkeypatch, "DATABASE_URL", postgres_url(free_port())):
        yield


def assert_outage_page(response: TestResponse, part: str) -> None:
    page = response.get_data(as_text=True)
    assert response.status_code == 503, page
    assert response.headers["Retry-After"] == str(UNAVAILABLE_RETRY_SECONDS)
    assert f"{BANNER} ({part})" in page
    assert 'role="alert"' in page
    assert (
        f"briefly unavailable; nothing you saved is lost. Try again in {UNAVAILABLE_RETRY_SECONDS} seconds"
        in page
    )
    assert "Internal Server Error" not in page
    assert "Sign out" not in page  # drawn without asking the stores who is signed in


def test_every_page_shows_the_banner_while_postgres_is_down(
    signed_in: FlaskClient, postgres_refusing: None
) -> None:
    for path in PAGES:
        assert_outage_page(signed_in.get(path), "its database")


def test_pages_that_need_redis_show_the_banner_while_it_is_down_and_the_others_work(
    signed_in: FlaskClient, own_redis: OwnRedis
) -> None:
    own_redis.stop()
    assert_outage_page(signed_in.get("/dashboard/usage"), "its job queue")
    keys = signed_in.get("/dashboard/keys")
    assert keys.status_code == 200
    assert "Sign out" in keys.get_data(as_text=True)


def test_a_refused_form_while_postgres_is_down_is_still_its_own_page(
    signed_in: FlaskClient, postgres_refusing: None
) -> None:
    refused = signed_in.post("/dashboard/keys", data={"name": "No token sent"})  # CSRF refuses it first
    assert refused.status_code == 400
    assert "security token is missing" in refused.get_data(as_text=True)


def test_the_banner_says_a_sent_form_was_not_carried_out(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    form = client.get("/dashboard/sign-in").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert token is not None
    with store_at(monkeypatch, "DATABASE_URL", postgres_url(free_port())):
        sent = client.post(
            "/dashboard/sign-in",
            data={"csrf_token": token[1], "email": "owner@example.com", "password": "whatever it is"},
        )
    assert_outage_page(sent, "its database")
    assert "What you just sent was not carried out" in sent.get_data(as_text=True)
