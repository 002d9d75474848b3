"""When everything ``bin/run`` started answers: the web port's ``/health``, Flower and a pong from each
Celery worker; then one block saying where the API, the dashboard and Flower are, and what to run next."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import requests
from celery import Celery

from services.broker import message_config
from settings import Settings

WORKERS = ("worker", "webhooks", "probes")  # the Procfile's --hostname of each Celery worker, before the @
READY_SECONDS = 120.0
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Addresses:
    """Where a newcomer finds things (``api`` as links name it) and where this host polls them."""

    api: str
    web: str  # the listening socket, for /health (PUBLIC_BASE_URL may name a proxy in front)
    flower: str

    @classmethod
    def of(cls, settings: Settings, env: Mapping[str, str]) -> Addresses:
        web_host = _reachable(settings.bind_address)
        flower_host = _reachable(env.get("FLOWER_ADDRESS", "127.0.0.1"))
        return cls(
            api=settings.base_url,
            web=f"http://{web_host}:{settings.port}",
            flower=f"http://{flower_host}:{env.get('FLOWER_PORT', '5555')}",
        )


def _reachable(host: str) -> str:
    """A listening address as a client on this host reaches it (the wildcard is not an address to call)."""
    return {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}.get(host, host)  # noqa: S104 - read, never bound


def wait_until_ready(honcho: subprocess.Popen[bytes], addresses: Addresses, settings: Settings) -> list[str]:
    """Poll until everything answers; what still does not answer when honcho stops or time runs out."""
    checks = _checks(addresses, settings)
    give_up = time.monotonic() + READY_SECONDS
    while True:
        missing = [name for name, answers in checks.items() if not answers()]
        if not missing or honcho.poll() is not None or time.monotonic() > give_up:
            return missing
        time.sleep(POLL_SECONDS)


def _checks(addresses: Addresses, settings: Settings) -> dict[str, Callable[[], bool]]:
    control = _control_app(settings)

    def workers() -> bool:
        return set(WORKERS) <= _pongs(control)

    return {
        "web": lambda: _status(f"{addresses.web}/health") == 200,
        # Any HTTP answer will do: with FLOWER_BASIC_AUTH Flower answers 401 to a caller without it.
        "Flower": lambda: _status(addresses.flower) is not None,
        "workers": workers,
    }


def _status(url: str) -> int | None:
    try:
        return requests.get(url, timeout=2).status_code
    except requests.RequestException:
        return None


def _control_app(settings: Settings) -> Celery:
    """A bare app on the workers' broker and key prefix, only to ping them (no tasks imported)."""
    app = Celery("verimail-launch")
    app.conf.update(message_config(settings))
    return app


def _pongs(app: Celery) -> set[str]:
    """The worker names (before the @) that answered a ping."""
    replies = app.control.ping(timeout=0.5) or []
    return {hostname.partition("@")[0] for reply in replies for hostname in reply}


def banner(addresses: Addresses, next_steps: list[str], *, mail: Path | None = None) -> str:
    """Where everything is (the emails too, when they go to a folder), and the commands to run next."""
    rule = "-" * 100
    mail_lines = [
        f"  mail       {mail}/  (each email as .eml, and a .txt whose links are usable as they are)"
    ]
    lines = [
        rule,
        "verimail is ready; Ctrl-C here stops everything.",
        f"  API        {addresses.api}/  (described at {addresses.api}/openapi.json)",
        f"  dashboard  {addresses.api}/dashboard/",
        f"  Flower     {addresses.flower}/",
        *(mail_lines if mail is not None else []),
        "Next, in another shell in this folder: open an account, then call the API with its key",
        '(README, "Quick start"):',
        *(f"  {step}" for step in next_steps),
        rule,
    ]
    return "\n".join(lines)
