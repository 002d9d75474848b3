"""Start-up without noise a newcomer would take for an error, and without hiding a real one.

Celery warns at every worker start that it runs as root ("You're running the worker with superuser
privileges"). ``C_FORCE_ROOT`` does not silence it (it only lets a pickle-accepting worker start as root);
a warning filter does. Development machines and CI containers here run everything as root, so the warning
says nothing there; the Docker image runs as its own user and never meets the filter. Only this one
message is ignored: every other warning, and every error, still shows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# The message starts the warning's text; -W/PYTHONWARNINGS match from its beginning (and split on ':').
ROOT_WORKER_WARNING = "ignore:You're running the worker with superuser privileges"


def quiet_start(env: Mapping[str, str]) -> dict[str, str]:
    """Environment additions for the processes ``bin/run`` starts."""
    if os.geteuid() != 0:
        return {}
    filters = [env.get("PYTHONWARNINGS", ""), ROOT_WORKER_WARNING]
    return {"PYTHONWARNINGS": ",".join(part for part in filters if part)}
