"""The verdict-token key rotates on its own (``VERDICT_TOKEN_KEYS``), over real HTTP: the service restarted
with a new key first and the old one kept still confirms the old key's tokens; restarted without the old
key it refuses them with ``TOKEN_KEY_RETIRED``; ``SECRET_KEY`` never changes, so a signed-in dashboard
owner stays signed in throughout."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.browser.helpers import NOT_AN_ADDRESS, form_key, from_page
from tests.fixtures.db import Persona, open_owner
from tests.processes import running
from tests.workers.harness import Gunicorn, start_gunicorn

pytestmark = pytest.mark.timeout(300)  # three gunicorn starts
SECRET_KEY = "a fixed secret key for this module's three services"
NEW_KEY = "t2:" + secrets.token_urlsafe(32)
PASSWORD = "correct horse battery staple"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@contextmanager
def service_with(job_env: dict[str, str], folder: Path, token_keys: str) -> Iterator[Gunicorn]:
    settings = {
        "SECRET_KEY": SECRET_KEY,
        "VERDICT_TOKEN_KEYS": token_keys,
        "BROWSER_VISITOR_PER_MINUTE": "1000",
    }
    folder.mkdir(exist_ok=True)
    with running(start_gunicorn(job_env | settings, folder)) as served:
        yield served


def token_from(service: Gunicorn, form: Persona) -> str:
    response = requests.post(
        f"{service.base_url}/validate/browser",
        headers=from_page(form),
        json={"email": NOT_AN_ADDRESS},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


def confirm(service: Gunicorn, form: Persona, token: str) -> requests.Response:
    body = {"token": token, "email": NOT_AN_ADDRESS}
    return requests.post(f"{service.base_url}/validate/confirm", headers=form.headers, json=body, timeout=30)


def signed_in_owner(service: Gunicorn) -> requests.Session:
    """A dashboard owner signed in through the sign-in form, as a browser would (cookie and CSRF token)."""
    browser, email = requests.Session(), open_owner(PASSWORD)
    form = browser.get(f"{service.base_url}/dashboard/sign-in", timeout=30).text
    token = CSRF.search(form)
    assert token is not None
    fields = {"email": email, "password": PASSWORD, "csrf_token": token[1]}
    assert browser.post(f"{service.base_url}/dashboard/sign-in", data=fields, timeout=30).ok
    return browser


def sees_the_dashboard(service: Gunicorn, browser: requests.Session) -> bool:
    page = browser.get(f"{service.base_url}/dashboard/keys", timeout=30)
    return page.status_code == 200 and "<h1>API keys</h1>" in page.text


def test_rotating_the_token_key_keeps_old_tokens_until_the_old_key_goes_and_sessions_throughout(
    job_env: dict[str, str], tmp_path: Path
) -> None:
    form = form_key()
    with service_with(job_env, tmp_path / "before", "") as before:
        old_tokens = [token_from(before, form) for _ in range(2)]
        owner = signed_in_owner(before)
        assert sees_the_dashboard(before, owner)

    with service_with(job_env, tmp_path / "rotating", f"{NEW_KEY},default") as rotating:
        kept = confirm(rotating, form, old_tokens[0])
        new_token = token_from(rotating, form)
        assert sees_the_dashboard(rotating, owner)

    with service_with(job_env, tmp_path / "after", NEW_KEY) as after:
        retired = confirm(after, form, old_tokens[1])
        renewed = confirm(after, form, new_token)
        assert sees_the_dashboard(after, owner)

    assert old_tokens[0].startswith("default.")
    assert new_token.startswith("t2.")
    assert (kept.status_code, kept.json()["confirmed"]) == (200, True), kept.text
    assert (retired.status_code, retired.json()["error"]["code"]) == (422, "TOKEN_KEY_RETIRED")
    assert "token key 'default', which this service no longer holds" in retired.json()["error"]["message"]
    assert (renewed.status_code, renewed.json()["confirmed"]) == (200, True), renewed.text


def test_a_token_without_a_key_id_is_read_with_the_key_derived_from_secret_key(
    job_env: dict[str, str], tmp_path: Path
) -> None:
    form = form_key()
    with service_with(job_env, tmp_path, "") as service:
        current = token_from(service, form)
        legacy = current.removeprefix("default.")  # the same Fernet token, as sealed before key ids
        kept = confirm(service, form, legacy)

    assert (kept.status_code, kept.json()["confirmed"]) == (200, True), kept.text
