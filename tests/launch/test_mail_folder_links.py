"""Development mail as ``bin/run`` writes it (``launch.mail_folder``), through the real service: gunicorn and
a Celery worker that sends the sign-up email to the folder's SMTP server. Each ``.eml`` gets a decoded
``.txt`` whose link lines work as they are; a link grepped from the quoted-printable ``.eml`` (cut at a soft
line break) gets a page saying it is incomplete, while a used link still says it was used or expired."""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from launch.mail_folder import mail_folder
from tests.processes import Gunicorn, Process, start_gunicorn, start_worker
from tests.workers.harness import job_env

__all__ = ["job_env"]
PASSWORD = "correct horse battery staple"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
URL = re.compile(r"https?://[^\s\"<>]+")
INCOMPLETE = "This link is incomplete"
USED = "not valid any more: it was used, it expired"


@pytest.fixture(scope="module")
def folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="vm-mail-folder-"))


@pytest.fixture(scope="module")
def web(job_env: dict[str, str], folder: Path) -> Iterator[Gunicorn]:
    with mail_folder(folder) as smtp_url:
        env = {**job_env, "MAIL_SMTP_URL": smtp_url}
        started = start_gunicorn(env, folder, wait=False)
        worker: Process = start_worker(env, f"mf{os.getpid()}", concurrency=4)
        try:
            started.wait_ready()
            yield started
        finally:
            worker.stop()
            started.stop()


def sign_up(web: Gunicorn, email: str) -> None:
    with requests.Session() as browser:
        form = CSRF.search(browser.get(f"{web.base_url}/dashboard/sign-up", timeout=30).text)
        assert form is not None
        data = {"email": email, "tier": "pro", "csrf_token": form[1]}
        answer = browser.post(f"{web.base_url}/dashboard/sign-up", data=data, timeout=30)
    assert "Check your inbox" in answer.text


def letter_to(folder: Path, email: str, suffix: str) -> str:
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        for path in sorted(folder.glob(f"*{suffix}")):
            if email in (text := path.read_text(errors="replace")):
                return text
        time.sleep(0.2)
    raise AssertionError(f"no {suffix} to {email} in {folder}")


def test_the_txt_beside_the_eml_has_the_link_whole_and_it_opens_the_password_form(
    web: Gunicorn, folder: Path
) -> None:
    email = f"newcomer-{secrets.token_hex(4)}@example.com"
    sign_up(web, email)

    text = letter_to(folder, email, ".txt")
    link_lines = [
        line for line in text.splitlines() if line.startswith(f"{web.base_url}/dashboard/verify-email/")
    ]
    assert link_lines, text
    assert "Subject: Confirm your email" in text
    page = requests.get(link_lines[-1], timeout=30)
    assert page.status_code == 200
    assert "Choose the password you will sign in with" in page.text


def test_a_link_grepped_from_the_eml_is_called_incomplete_and_a_used_one_used(
    web: Gunicorn, folder: Path
) -> None:
    email = f"grepper-{secrets.token_hex(4)}@example.com"
    sign_up(web, email)
    raw = letter_to(folder, email, ".eml")
    grepped = next(URL.search(line)[0] for line in raw.splitlines() if "/dashboard/verify-email/" in line)  # type: ignore[index]
    whole = [line for line in letter_to(folder, email, ".txt").splitlines() if "/verify-email/" in line][-1]
    assert grepped != whole  # quoted-printable cut it (a soft line break, "=" at its end)

    cut = requests.get(grepped, timeout=30)
    assert cut.status_code == 400
    assert INCOMPLETE in cut.text
    assert USED not in cut.text
    assert ".txt file beside the email" in cut.text

    with requests.Session() as browser:
        form = CSRF.search(browser.get(whole, timeout=30).text)
        assert form is not None
        browser.post(whole, data={"password": PASSWORD, "csrf_token": form[1]}, timeout=30)
    used = requests.get(whole, timeout=30)
    assert used.status_code == 400
    assert USED in used.text
    assert INCOMPLETE not in used.text
