"""In development the service's own emails (sign-up links, key warnings) go to a folder instead of a relay:
an SMTP server on loopback writes each message it receives as one ``.eml`` file, readable in any mail
client, and beside it a ``.txt`` of the same name: the headers a reader needs and the text part decoded.

The ``.eml`` is what was sent, so its text is quoted-printable: long lines are cut at soft line breaks
(``=`` at a line's end) and ``=`` itself is written ``=3D``; a link grepped from it is cut or altered. The
``.txt`` holds the decoded text, and ends with every link of the email on a line of its own, usable as it
is (``grep -h http var/mail/*.txt``). Without it, a newcomer signing up on the dashboard would wait for a
link that no relay delivers, or follow one that is cut.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

FOLDER = Path(__file__).resolve().parents[1] / "var" / "mail"
LINK = re.compile(r"https?://[^\s<>\"')]+")
SHOWN_HEADERS = ("Date", "From", "To", "Subject")


class _Writer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns()}"
        raw = envelope.original_content or b""
        (self.folder / f"{stem}.eml").write_bytes(raw)
        (self.folder / f"{stem}.txt").write_text(readable(raw))
        return "250 OK"


def readable(raw: bytes) -> str:
    """The message as a person reads it: a few headers, the decoded text part, then its links, one a line."""
    message = message_from_bytes(raw, policy=policy.default)
    head = [f"{name}: {message[name]}" for name in SHOWN_HEADERS if message[name] is not None]
    part = message.get_body(preferencelist=("plain",))
    text = part.get_content() if part is not None else ""
    links = list(dict.fromkeys(LINK.findall(text)))
    tail = ["", "Links in this email, each whole on its own line:", *links] if links else []
    return "\n".join([*head, "", text.rstrip(), *tail, ""])


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
