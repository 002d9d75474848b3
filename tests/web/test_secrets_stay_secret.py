"""A secret key exists in exactly one place after it is issued: the response that showed it."""

from __future__ import annotations

import hashlib
import logging
import subprocess

from sqlalchemy import make_url

from tests.fixtures.db import Persona
from workers.celery_app import create_celery


def dump_database(database_url: str) -> str:
    """Every row of every table, as pg_dump sees it."""
    url = make_url(database_url)
    command = [
        "pg_dump",
        "--data-only",
        "-h",
        url.host or "127.0.0.1",
        "-p",
        str(url.port or 5432),
        "-U",
        url.username or "postgres",
        url.database or "",
    ]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def test_database_and_logs_never_hold_a_plaintext_secret(
    client, owner: Persona, database_url, caplog, capfd
) -> None:
    created = client.post("/api/keys", headers=owner.headers, json={"name": "Secret keeper"}).json
    refreshed = client.post(f"/api/keys/{created['id']}/refresh", headers=owner.headers).json["key"][
        "secretKey"
    ]
    client.get("/api/keys", headers={"X-API-Key": created["secretKey"]})  # the old secret, now invalid
    client.get(f"/api/keys?api_key={refreshed}")  # a key in a URL must not reach the logs either
    secrets = [owner.secret, created["secretKey"], refreshed]

    dump = dump_database(database_url)
    logs = caplog.text + "".join(capfd.readouterr())
    for secret in secrets:
        assert secret not in dump
        assert secret[len("sk_live_") :] not in dump
        assert secret not in logs
    assert hashlib.sha256(refreshed.encode()).hexdigest() in dump  # the dump really holds this key's row


def test_secret_keys_carry_at_least_192_bits_of_randomness(client, owner: Persona) -> None:
    secret = client.post("/api/keys", headers=owner.headers, json={"name": "Entropy check"}).json["secretKey"]
    body = secret.removeprefix("sk_live_")
    assert len(body) * 6 >= 192  # URL-safe base64: 6 bits per character
    assert set(body) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_celery_logs_scrub_a_secret_even_in_a_traceback(tmp_path) -> None:
    """Workers and beat log through Celery's own handlers; the scrub must be on those too."""
    secret, test_secret = "sk_live_" + "A1b2" * 11, "sk_test_" + "C3d4" * 11
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    celery = create_celery()
    celery.log.already_setup = False
    try:
        celery.log.setup_logging_subsystem(loglevel="INFO", logfile=str(tmp_path / "worker.log"))
        try:
            raise RuntimeError(f"refused key {secret}")
        except RuntimeError:
            logging.getLogger("tasks.example").exception("task failed with %s", secret)
        logging.getLogger("tasks.example").warning("sandbox key %s", test_secret)
        for handler in root.handlers:
            handler.flush()
    finally:
        for handler in root.handlers[:]:
            if handler not in saved_handlers:
                root.removeHandler(handler)
                handler.close()
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
    text = (tmp_path / "worker.log").read_text()
    assert "task failed with sk_live_[REDACTED]" in text
    assert "RuntimeError: refused key sk_live_[REDACTED]" in text
    assert secret not in text
    assert "sandbox key sk_test_[REDACTED]" in text
    assert test_secret not in text
