"""Run a command on a pseudo-terminal, as a person at a shell does, and read what it showed: a progress
bar redraws itself only on a terminal (Rich draws nothing live into a pipe)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def run_in_terminal(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> tuple[int, str]:
    """The exit code and everything shown, escape sequences removed; the command is killed past
    ``timeout`` seconds."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    )
    os.close(follower)
    try:
        shown = _read_until_closed(leader, proc, time.monotonic() + timeout)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
    return proc.returncode, ESCAPES.sub("", shown.decode(errors="replace"))


def _read_until_closed(leader: int, proc: subprocess.Popen[bytes], give_up: float) -> bytes:
    chunks: list[bytes] = []
    while time.monotonic() < give_up:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if not ready:
            continue
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: every writer of the terminal has gone
            break
        if not data:
            break
        chunks.append(data)
    else:
        proc.kill()
    return b"".join(chunks)
