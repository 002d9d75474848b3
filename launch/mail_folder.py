"""With ``--lab`` the service's own emails (sign-up links, key warnings) go to a folder instead of a relay:
an SMTP server on loopback writes each message it receives as one ``.eml`` file, readable in any mail
client or text editor. Without it, a newcomer signing up on the dashboard would wait for a link that no
relay delivers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

FOLDER = Path(__file__).resolve().parents[1] / "var" / "mail"


class _Writer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        name = f"{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns()}.eml"
        (self.folder / name).write_bytes(envelope.original_content or b"")
        return "250 OK"


def _free_port() -> int:
    """aiosmtpd checks its server by connecting to the port it was given, so it needs a real one."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def mail_folder(folder: Path = FOLDER) -> Iterator[str]:
    """An SMTP server on a free loopback port writing into ``folder``; yields its ``MAIL_SMTP_URL``."""
    folder.mkdir(parents=True, exist_ok=True)
    controller = Controller(_Writer(folder), hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{controller.port}"
    finally:
        controller.stop()
