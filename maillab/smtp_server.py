"""A small asyncio SMTP server that plays one ``Script`` and records everything it hears.

A hand-written server rather than aiosmtpd: the lab must *misbehave* on purpose (stay silent after
accepting TCP, hang up with 421, answer late, refuse a second RCPT, require TLS without advertising it),
and aiosmtpd's handler hooks sit after the protocol decisions we need to script.

The counters are read from the test thread while the lab's event loop writes them, hence the lock.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from maillab.model import Greeting, SmtpServerSpec, Tls
from maillab.smtp_script import Greylist, Script, SessionState

IDLE_TIMEOUT = 60.0  # a lab session nobody talks to is closed after this long


@dataclass
class ServerStats:
    """What one server saw: sessions opened, the commands of each session, peak concurrency."""

    sessions: list[list[str]] = field(default_factory=list)
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
            await self._converse(reader, writer, log)
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the client went away or stalled: nothing to script
        except asyncio.CancelledError:
            pass  # the lab is stopping; ending quietly keeps asyncio's stream callback from logging it
        finally:
            self._tasks.discard(task)
            self._closed()
            writer.close()

    def _opened(self) -> list[str]:
        with self._lock:
            log: list[str] = []
            self._stats.sessions.append(log)
            self._stats.active += 1
            self._stats.peak_active = max(self._stats.peak_active, self._stats.active)
            return log

    def _closed(self) -> None:
        with self._lock:
            self._stats.active -= 1

    def _record(self, log: list[str], command: str) -> None:
        with self._lock:
            log.append(command)

    async def _converse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, log: list[str]
    ) -> None:
        greeting = self.spec.behaviour.greeting
        if greeting is Greeting.SILENT:
            await asyncio.wait_for(reader.read(), IDLE_TIMEOUT)  # say nothing until the client gives up
            return
        if greeting is Greeting.REFUSE:
            await self._reply(writer, "421 4.3.2 Service not available, closing transmission channel")
            return
        await self._reply(writer, f"220 {self.spec.name} ESMTP maillab")
        peer = writer.get_extra_info("peername")[0]
        state = SessionState(peer=peer)
        script = Script(self.spec.name, self.spec.behaviour, self._greylist)
        while await self._turn(reader, writer, log, script, state):
            pass

    async def _turn(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        log: list[str],
        script: Script,
        state: SessionState,
    ) -> bool:
        """Read one command and answer it; False once the session is over."""
        raw = await asyncio.wait_for(reader.readline(), IDLE_TIMEOUT)
        if not raw:
            return False
        line = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
        self._record(log, line)
        verb, _, argument = line.partition(" ")
        verb = verb.upper()
        if verb == "STARTTLS":
            return await self._starttls(writer, script, state)
        reply = self._answer(script, state, verb, line if verb in ("MAIL", "RCPT") else argument)
        await self._reply(writer, reply)
        return verb != "QUIT"

    def _answer(self, script: Script, state: SessionState, verb: str, argument: str) -> str:
        handlers: dict[str, Callable[[], str]] = {
            "EHLO": lambda: script.ehlo(state),
            "HELO": lambda: script.helo(state),
            "MAIL": lambda: script.mail(state, argument),
            "RCPT": lambda: script.rcpt(state, argument, asyncio.get_running_loop().time()),
            "RSET": lambda: "250 2.0.0 Ok",
            "NOOP": lambda: "250 2.0.0 Ok",
            "QUIT": lambda: "221 2.0.0 Bye",
            "DATA": lambda: "554 5.5.1 Error: the mail lab never accepts DATA",
        }
        handler = handlers.get(verb)
        return handler() if handler else "502 5.5.2 Error: command not recognized"

    async def _starttls(self, writer: asyncio.StreamWriter, script: Script, state: SessionState) -> bool:
        if script.behaviour.tls is Tls.NONE or state.tls:
            await self._reply(writer, "502 5.5.1 Error: STARTTLS not available")
            return True
        await self._reply(writer, "220 2.0.0 Ready to start TLS")
        if script.behaviour.broken_tls:  # e.g. a TLS library or certificate the client cannot use
            await self._reply(writer, "421 4.7.0 TLS not available after all")
            return False
        await writer.start_tls(self._tls)
        state.tls, state.greeted, state.mail_from = True, False, None
        return True

    async def _reply(self, writer: asyncio.StreamWriter, text: str) -> None:
        if self._delay:
            await asyncio.sleep(self._delay)
        writer.write(text.replace("\n", "\r\n").encode("utf-8") + b"\r\n")
        await writer.drain()
