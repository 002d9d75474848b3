"""A small asyncio SMTP server that plays one ``Script`` and records everything it hears.

A hand-written server rather than aiosmtpd: the lab must *misbehave* on purpose (stay silent after
accepting TCP, hang up with 421, answer late, refuse a second RCPT, require TLS without advertising it),
and aiosmtpd's handler hooks sit after the protocol decisions we need to script.

The conversation itself (pipelining, reply timing) is ``smtp_conversation.py``. The counters are read
from the test thread while the lab's event loop writes them, hence the lock.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from dataclasses import dataclass, field

from maillab.model import SmtpServerSpec
from maillab.smtp_conversation import Arrival, Conversation
from maillab.smtp_script import Greylist, Script


@dataclass
class ServerStats:
    """What one server saw: sessions opened, the commands of each session, peak concurrency."""

    sessions: list[list[Arrival]] = field(default_factory=list)
    active: int = 0
    peak_active: int = 0


class LabSmtpServer:
    """One scripted server bound to ``spec.ip`` on the lab's shared SMTP port."""

    def __init__(self, spec: SmtpServerSpec, tls: ssl.SSLContext, latency: float) -> None:
        self.spec = spec
        self._tls = tls
        self._delay = spec.behaviour.reply_delay if spec.behaviour.reply_delay is not None else latency
        self._lock = threading.Lock()
        self._stats = ServerStats()
        self._greylist = Greylist()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- what tests read ---------------------------------------------------------------------------
    @property
    def sessions_opened(self) -> int:
        with self._lock:
            return len(self._stats.sessions)

    @property
    def peak_concurrent_sessions(self) -> int:
        with self._lock:
            return self._stats.peak_active

    def transcripts(self) -> list[list[str]]:
        """Commands received, one list per session, in arrival order (copies)."""
        return [[arrival.line for arrival in session] for session in self.arrivals()]

    def arrivals(self) -> list[list[Arrival]]:
        """Commands received with when they arrived and how many replies had been sent by then, one
        list per session: a command that arrived before the previous one was answered was pipelined."""
        with self._lock:
            return [list(session) for session in self._stats.sessions]

    def commands(self) -> list[str]:
        """Every command received, all sessions flattened."""
        return [command for session in self.transcripts() for command in session]

    def verbs(self) -> list[str]:
        """The first word of every command, upper-cased (``EHLO``, ``RCPT``, ...)."""
        return [command.split(" ", 1)[0].split(":", 1)[0].upper() for command in self.commands()]

    def reset(self) -> None:
        """Forget sessions, commands and greylisting memory (between tests)."""
        with self._lock:
            self._stats = ServerStats()
            self._greylist.first_seen.clear()

    # -- lifecycle ---------------------------------------------------------------------------------
    async def start(self, port: int) -> None:
        self._server = await asyncio.start_server(self._session, self.spec.ip, port, reuse_address=True)

    async def hang_up(self) -> None:
        """Close every open session (on the lab's loop)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()

    # -- one conversation --------------------------------------------------------------------------
    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        log = self._opened()
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            script = Script(self.spec.name, self.spec.behaviour, self._greylist)
            conversation = Conversation(
                reader,
                writer,
                script,
                tls=self._tls,
                delay=self._delay,
                record=lambda a: self._record(log, a),
            )
            await conversation.run()
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the client went away or stalled: nothing to script
        except asyncio.CancelledError:
            pass  # the lab is stopping; ending quietly keeps asyncio's stream callback from logging it
        finally:
            self._tasks.discard(task)
            self._closed()
            writer.close()

    def _opened(self) -> list[Arrival]:
        with self._lock:
            log: list[Arrival] = []
            self._stats.sessions.append(log)
            self._stats.active += 1
            self._stats.peak_active = max(self._stats.peak_active, self._stats.active)
            return log

    def _closed(self) -> None:
        with self._lock:
            self._stats.active -= 1

    def _record(self, log: list[Arrival], arrival: Arrival) -> None:
        with self._lock:
            log.append(arrival)
