"""One lab SMTP conversation: commands are read as they arrive, replies are written in order.

A listener task reads lines off the socket the moment they arrive (several may come in one packet: RFC
2920 pipelining) and queues them with their arrival time; the answering loop replies to each in order.
Two things follow from reading ahead:

- latency is modelled as the network would: a reply leaves ``delay`` seconds after its command
  *arrived*, so commands pipelined in one write get their replies after one delay, not one each;
- the server can tell a pipelining client from a lock-step one: each command is recorded with the
  number of replies the server had sent when it arrived (a RCPT that arrived before MAIL's reply was
  written came in the same pipelined group).

The listener stops after STARTTLS (the stream is upgraded before anything else is read) and after QUIT.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from dataclasses import dataclass

from maillab.model import Greeting, Tls
from maillab.smtp_script import HANG_UP, Script, SessionState

IDLE_TIMEOUT = 60.0  # a lab session nobody talks to is closed after this long
_LAST_IN_GROUP = ("STARTTLS", "QUIT")  # RFC 2920 3.1: nothing may be read past these by the server


@dataclass(frozen=True)
class Arrival:
    """A command line, when it arrived (loop time) and how many replies had been sent by then."""

    line: str
    at: float
    replies_before: int


Recorder = Callable[[Arrival], None]


class Conversation:
    """Plays ``script`` on one accepted connection; ``run()`` returns when the session is over."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        script: Script,
        *,
        tls: ssl.SSLContext,
        delay: float,
        record: Recorder,
    ) -> None:
        self._reader, self._writer = reader, writer
        self._script, self._tls, self._delay, self._record = script, tls, delay, record
        self._inbox: asyncio.Queue[Arrival | None] = asyncio.Queue()
        self._replies = 0
        self._listener: asyncio.Task[None] | None = None

    async def run(self) -> None:
        opened = asyncio.get_running_loop().time()
        greeting = self._script.behaviour.greeting
        if greeting is Greeting.SILENT:
            await asyncio.wait_for(self._reader.read(), IDLE_TIMEOUT)  # say nothing until the client leaves
            return
        if greeting is Greeting.REFUSE:
            await self._reply("421 4.3.2 Service not available, closing transmission channel", opened)
            return
        peer = self._writer.get_extra_info("peername")[0]
        refusal = self._script.refusal(peer)
        if refusal is not None:
            await self._reply(refusal, opened)
            return
        await self._reply(f"220 {self._script.name} ESMTP maillab", opened)
        state = SessionState(peer=peer)
        self._listen()
        try:
            while await self._turn(state):
                pass
        finally:
            await self._stop_listening()

    # -- reading -----------------------------------------------------------------------------------
    def _listen(self) -> None:
        self._listener = asyncio.create_task(self._read_lines())

    async def _stop_listening(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)

    async def _read_lines(self) -> None:
        """Queue every line as it arrives; None marks the end of the stream (or of what we may read)."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                raw = await self._reader.readline()
            except (ConnectionError, ssl.SSLError, ValueError):
                raw = b""
            if not raw:
                self._inbox.put_nowait(None)
                return
            line = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
            arrival = Arrival(line, loop.time(), self._replies)
            self._record(arrival)
            self._inbox.put_nowait(arrival)
            if _verb(line) in _LAST_IN_GROUP:
                return

    # -- answering ---------------------------------------------------------------------------------
    async def _turn(self, state: SessionState) -> bool:
        """Answer the next command; False once the session is over."""
        arrival = await asyncio.wait_for(self._inbox.get(), IDLE_TIMEOUT)
        if arrival is None:
            return False
        verb = _verb(arrival.line)
        if verb == "STARTTLS":
            return await self._starttls(state, arrival.at)
        reply = self._answer(state, verb, arrival)
        if reply == HANG_UP:
            return False  # the server drops the connection without a word (a crash, a kill)
        await self._reply(reply, arrival.at)
        return verb != "QUIT" and not reply.startswith("421")  # RFC 5321 3.8: 421 closes the channel

    def _answer(self, state: SessionState, verb: str, arrival: Arrival) -> str:
        script, line = self._script, arrival.line
        argument = line if verb in ("MAIL", "RCPT") else line.partition(" ")[2]
        handlers: dict[str, Callable[[], str]] = {
            "EHLO": lambda: script.ehlo(state),
            "HELO": lambda: script.helo(state),
            "MAIL": lambda: script.mail(state, argument),
            "RCPT": lambda: script.rcpt(state, argument, arrival.at),
            "RSET": lambda: "250 2.0.0 Ok",
            "NOOP": lambda: "250 2.0.0 Ok",
            "QUIT": lambda: "221 2.0.0 Bye",
            "DATA": lambda: "554 5.5.1 Error: the mail lab never accepts DATA",
        }
        handler = handlers.get(verb)
        return handler() if handler else "502 5.5.2 Error: command not recognized"

    async def _starttls(self, state: SessionState, arrived: float) -> bool:
        if self._script.behaviour.tls is Tls.NONE or state.tls:
            await self._reply("502 5.5.1 Error: STARTTLS not available", arrived)
            self._listen()
            return True
        await self._reply("220 2.0.0 Ready to start TLS", arrived)
        if self._script.behaviour.broken_tls:  # e.g. a TLS library or certificate the client cannot use
            await self._reply("421 4.7.0 TLS not available after all", arrived)
            return False
        await self._writer.start_tls(self._tls)
        state.tls, state.greeted, state.mail_from = True, False, None
        self._listen()
        return True

    async def _reply(self, text: str, arrived: float) -> None:
        """Write ``text`` once ``delay`` has passed since its command arrived (a network round trip)."""
        wait = arrived + self._delay - asyncio.get_running_loop().time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._writer.write(text.replace("\n", "\r\n").encode("utf-8") + b"\r\n")
        await self._writer.drain()
        self._replies += 1


def _verb(line: str) -> str:
    return line.partition(" ")[0].upper()
