"""No mode has a public secret: development makes its own SECRET_KEY and KEY_SEALING_KEY once per
installation, in a 0600 file git ignores, that every process agrees on; production requires both and never
reads that file."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import development_secrets
from settings import ConfigError, Settings

ROOT = Path(__file__).resolve().parents[2]
SEALING = base64.urlsafe_b64encode(bytes(32)).decode()
# Each process sleeps until the moment it is handed, then loads: all of them race to create the file.
RACER = """
import json, sys, time
from pathlib import Path
from core import development_secrets
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
print(json.dumps(development_secrets.load(Path(sys.argv[1]))))
"""


@pytest.fixture
def installation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh installation's secrets file, not yet made."""
    path = tmp_path / "var" / "development-secrets.json"
    monkeypatch.setattr(development_secrets, "PATH", path)
    return path


def test_processes_started_at_once_agree_on_one_secret_kept_in_a_0600_file(tmp_path: Path) -> None:
    path = tmp_path / "var" / "development-secrets.json"
    start = str(time.time() + 2.0)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(path), start], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    answers = [json.loads(racer.communicate(timeout=60)[0]) for racer in racers]

    assert all(answer == answers[0] for answer in answers)
    assert answers[0] == json.loads(path.read_text())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(path.parent) == [path.name]  # every losing candidate was removed


def test_each_installation_has_its_own_keys_and_settings_use_them(installation: Path, tmp_path: Path) -> None:
    settings = Settings.from_env({})
    stored = json.loads(installation.read_text())

    assert settings.secret_key == stored["SECRET_KEY"]
    assert settings.key_sealing_key == base64.urlsafe_b64decode(stored["KEY_SEALING_KEY"])
    assert Settings.from_env({}).secret_key == settings.secret_key  # the next process reads the same
    assert development_secrets.load(tmp_path / "other" / "secrets.json") != stored
    assert len(settings.secret_key) >= 32


def test_the_file_is_ignored_by_git() -> None:
    ignored = subprocess.run(
        ["git", "check-ignore", "--quiet", str(development_secrets.PATH)], cwd=ROOT, check=False
    )

    assert ignored.returncode == 0


def test_a_file_other_users_may_read_is_refused_with_the_fix(installation: Path) -> None:
    Settings.from_env({})
    installation.chmod(0o644)

    with pytest.raises(ConfigError, match="chmod 600"):
        Settings.from_env({})


def test_production_requires_both_keys_and_never_reads_or_makes_the_file(installation: Path) -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY is required when APP_ENV=production"):
        Settings.from_env({"APP_ENV": "production", "KEY_SEALING_KEY": SEALING})
    with pytest.raises(ConfigError, match="KEY_SEALING_KEY is required when APP_ENV=production"):
        Settings.from_env({"APP_ENV": "production", "SECRET_KEY": "s" * 40})
    Settings.from_env({"APP_ENV": "production", "KEY_SEALING_KEY": SEALING, "SECRET_KEY": "s" * 40})

    assert not installation.parent.exists()


def test_a_production_web_server_without_secret_key_refuses_to_start() -> None:
    env = os.environ | {"APP_ENV": "production", "KEY_SEALING_KEY": SEALING}
    env.pop("SECRET_KEY", None)
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "web:create_app()"]
    command += ["--bind", "127.0.0.1:0"]
    started = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )

    assert started.returncode != 0
    assert "SECRET_KEY is required when APP_ENV=production" in started.stderr
