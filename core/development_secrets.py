"""Development's own SECRET_KEY and KEY_SEALING_KEY: random, made once per installation, kept out of git.

A key written in the code would be the same on every checkout, so anything it signs or seals on one
machine would be good on all of them. Instead the first process that needs one writes both, in the form
their environment variables take, to ``var/development-secrets.json`` (``var/`` is gitignored) with mode
0600. Production never comes here: ``settings`` requires both variables when APP_ENV=production.

Every process of an installation must agree (gunicorn workers, Celery, beat, tests run two at a time),
and they may all start at once. Each writes a complete candidate to its own temporary file and hard-links
it to the shared name; a link never replaces an existing file, so the first one wins, the others discard
theirs and read the winner, and nobody reads a half-written file.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import stat
import tempfile
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "var" / "development-secrets.json"
NAMES = ("SECRET_KEY", "KEY_SEALING_KEY")


class DevelopmentSecretsError(ValueError):
    """The file exists but cannot be used: its message says what to do."""


def load(path: Path | None = None) -> dict[str, str]:
    """``SECRET_KEY`` and ``KEY_SEALING_KEY`` of this installation (``PATH``), made on first use."""
    path = path or PATH
    if not path.exists():
        _create(path)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        raise DevelopmentSecretsError(f"{path} may be read by other users: run chmod 600 {path}")
    try:
        stored = json.loads(path.read_text())
        return {name: str(stored[name]) for name in NAMES}
    except (ValueError, KeyError, TypeError):
        raise DevelopmentSecretsError(f"{path} is not readable: delete it and a new one is made") from None


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    made = {"SECRET_KEY": secrets.token_urlsafe(32), "KEY_SEALING_KEY": _sealing_key()}
    handle, candidate = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(handle, "w") as file:
            json.dump(made, file)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process linked its own first: it stands
            os.link(candidate, path)
    finally:
        os.unlink(candidate)


def _sealing_key() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
