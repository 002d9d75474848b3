"""The real thing: gunicorn serving ``web:create_app()`` with the project's gunicorn.conf.py, over TCP.

The server runs with TRUSTED_PROXIES=1 and the test plays the proxy, which is where a spoofed
X-Forwarded-For would bite: only the address the proxy appended may count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.fixtures.db import Persona, add_key
from tests.processes import start_gunicorn

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def served(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    server = start_gunicorn(os.environ, tmp_path_factory.mktemp("gunicorn"), TRUSTED_PROXIES="1")
    try:
        yield server.base_url, server.log
    finally:
        server.stop()


def test_gunicorn_serves_the_app_with_request_ids(served) -> None:
    base, _ = served
    response = requests.get(f"{base}/health", headers={"X-Request-Id": "over-the-wire-1"}, timeout=10)
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": True, "redis": True, "down": []}
    assert response.headers["X-Request-Id"] == "over-the-wire-1"


def test_behind_a_trusted_proxy_a_spoofed_forwarded_for_does_not_pass_the_allowlist(
    served, owner: Persona
) -> None:
    base, _ = served
    fenced = add_key(owner.account_id, "Office only", ("*:*",), allowed_ips=("198.51.100.0/24",))
    spoofed = requests.get(
        f"{base}/api/keys",
        headers=fenced.headers | {"X-Forwarded-For": "198.51.100.7, 203.0.113.9"},
        timeout=10,
    )
    assert spoofed.status_code == 403
    assert spoofed.json()["error"]["clientIp"] == "203.0.113.9"
    honest = requests.get(
        f"{base}/api/keys", headers=fenced.headers | {"X-Forwarded-For": "198.51.100.7"}, timeout=10
    )
    assert honest.status_code == 200


def test_oversized_body_is_refused_over_the_wire(served, owner: Persona) -> None:
    base, _ = served
    response = requests.post(
        f"{base}/api/keys",
        headers=owner.headers | {"Content-Type": "application/json"},
        data=b'{"name": "' + b"x" * 2_000_000 + b'"}',
        timeout=30,
    )
    assert response.status_code == 413
    assert response.json()["error"] == "Request Entity Too Large"


def test_server_logs_never_show_a_secret_even_from_a_query_string(served, owner: Persona) -> None:
    base, log = served
    requests.get(f"{base}/api/keys", params={"api_key": owner.secret}, timeout=10)
    requests.get(f"{base}/api/keys", headers={"X-API-Key": owner.secret + "x"}, timeout=10)
    requests.get(f"{base}/api/keys", headers=owner.headers, timeout=10)
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert "/api/keys" in {line.get("path") for line in lines if line.get("message") == "request"}
    assert owner.secret not in text  # the request lines are there, without the key


def test_each_worker_loads_the_engine_lists_before_serving() -> None:
    """gunicorn's ``post_worker_init`` hook loads every list, so no request of a new worker pays for it,
    and freezes what is loaded, so no full collection walks it again."""
    code = (
        "import gc, runpy\n"
        "from verifier.lists.domains import domain_lists\n"
        "from verifier.lists.providers import provider_table\n"
        "from verifier.lists.roles import role_names\n"
        "from verifier.typo import icann_suffixes\n"
        "loaders = (domain_lists, role_names, provider_table, icann_suffixes)\n"
        "hooks = runpy.run_path('gunicorn.conf.py')\n"
        "before = [loader.cache_info().currsize for loader in loaders]\n"
        "hooks['post_worker_init'](None)\n"
        "print(before, [loader.cache_info().currsize for loader in loaders], gc.get_freeze_count() > 9999)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[0, 0, 0, 0] [1, 1, 1, 1] True"
