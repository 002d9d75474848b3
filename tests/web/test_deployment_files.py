"""What the deployment files promise: gunicorn on loopback unless told otherwise, docker compose with an
explicit APP_ENV, nothing published beyond the host's loopback, and Flower only behind a password."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]


def gunicorn_bind(**env: str) -> str:
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            "gunicorn.conf.py",
            "--print-config",
            "web:create_app()",
        ],
        cwd=ROOT,
        env=os.environ | env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return next(line.split("=", 1)[1].strip() for line in printed.splitlines() if line.startswith("bind "))


def test_gunicorn_listens_on_loopback_by_default_as_the_guide_says_a_proxied_deployment_should() -> None:
    assert gunicorn_bind(PORT="8123") == "['127.0.0.1:8123']"
    assert "127.0.0.1:$PORT" in (ROOT / "docs" / "guide.md").read_text()


def test_gunicorn_listens_where_bind_address_says() -> None:
    assert gunicorn_bind(PORT="8123", BIND_ADDRESS="0.0.0.0") == "['0.0.0.0:8123']"
    assert gunicorn_bind(PORT="8123", BIND_ADDRESS="::1") == "['[::1]:8123']"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_compose_makes_app_env_explicit() -> None:
    app_env = compose()["x-app"]["environment"]["APP_ENV"]
    assert app_env.startswith("${APP_ENV:?"), "APP_ENV must be required, never defaulted"


def test_compose_publishes_ports_on_the_hosts_loopback_only() -> None:
    for name, service in compose()["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), (name, port)


def test_compose_starts_flower_only_with_basic_authentication() -> None:
    command = compose()["services"]["flower"]["command"].split()
    assert command[:3] == ["celery", "--app", "workers"]
    started = subprocess.run(
        [sys.executable, "-m", *command[:-1], f"--port={free_port()}"],
        cwd=ROOT,
        env=os.environ | {"FLOWER_BASIC_AUTH": ""},  # what compose passes when it is not set
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert command[-1] == "--port=5555"
    assert started.returncode == 1
    assert "flower: refusing to listen on 0.0.0.0 without a password" in started.stderr


def check_settings(**env: str) -> subprocess.CompletedProcess[str]:
    """``python -m settings`` as compose's release step runs it, with only ``env`` set."""
    command = [sys.executable, "-m", "settings"]
    base = {"PATH": os.environ["PATH"]}
    return subprocess.run(
        command, cwd=ROOT, env=base | env, capture_output=True, text=True, timeout=60, check=False
    )


def test_compose_requires_secret_key_and_sealing_key_in_production_before_anything_starts() -> None:
    services = compose()["services"]
    environment = compose()["x-app"]["environment"]
    assert {"SECRET_KEY", "KEY_SEALING_KEY"} <= set(environment)
    assert services["release"]["command"].startswith("sh -c 'python -m settings && exec alembic")
    assert all(
        services[name]["depends_on"]["release"] == {"condition": "service_completed_successfully"}
        for name in ("web", "worker", "webhooks", "probes")
    )

    sealing = base64.urlsafe_b64encode(bytes(32)).decode()
    missing_secret = check_settings(APP_ENV="production", KEY_SEALING_KEY=sealing)
    missing_sealing = check_settings(APP_ENV="production", SECRET_KEY="s" * 40)
    complete = check_settings(APP_ENV="production", KEY_SEALING_KEY=sealing, SECRET_KEY="s" * 40)

    assert missing_secret.returncode == 1
    assert "SECRET_KEY" in missing_secret.stderr
    assert missing_sealing.returncode == 1
    assert "KEY_SEALING_KEY" in missing_sealing.stderr
    assert complete.returncode == 0, complete.stderr
    assert check_settings(APP_ENV="development").returncode == 0


def test_every_pinned_package_carries_its_hashes_and_every_install_requires_them() -> None:
    for name in ("requirements.txt", "requirements-dev.txt"):
        # pip-compile's layout: "name==version \" then its "--hash=sha256:..." lines, then "# via".
        entries = (ROOT / name).read_text().split("\n    # via")
        pinned = [entry for entry in entries if "==" in entry]
        assert len(pinned) > 50, name
        assert all("--hash=sha256:" in entry for entry in pinned), name
    assert (
        "pip install -q --disable-pip-version-check --require-hashes -r requirements-dev.txt"
        in (ROOT / "bin" / "setup").read_text()
    )
    assert (
        "pip install --no-cache-dir --require-hashes -r requirements.txt" in (ROOT / "Dockerfile").read_text()
    )
