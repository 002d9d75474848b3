"""``MailLab``: one lab instance = the DNS server plus every SMTP server of a world, on an asyncio loop
running in a background thread, so synchronous tests and benchmarks can drive real sockets at it.

Ports are random and free per instance (DNS on 127.0.0.1, all SMTP servers sharing one port because the
prober connects to one configured port), so several test runs on one machine never collide.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any

from maillab.blackhole import Blackhole
from maillab.dns_server import DnsServer, Zone
from maillab.model import DomainSpec, World
from maillab.smtp_server import LabSmtpServer
from maillab.tls import server_context
from maillab.world import standard_world
from verifier.config import EngineConfig, Nameserver

START_TIMEOUT = 15.0
PORT_ATTEMPTS = 20


class MailLab:
    """Start with ``start()`` or ``with MailLab() as lab:``; read ``nameserver``, ``smtp_port``, ``servers``.

    ``latency`` delays every SMTP reply (benchmarks use 0.1 s); a behaviour's own ``reply_delay`` wins.
    """

    def __init__(
        self, world: World | None = None, *, latency: float = 0.0, dns_port: int = 0, smtp_port: int = 0
    ):
        self.world = world or standard_world()
        self.latency = latency
        self._dns_port, self.smtp_port = dns_port, smtp_port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="maillab", daemon=True)
        self.dns: DnsServer | None = None
        self.servers: dict[str, LabSmtpServer] = {}
        self.blackholes = [Blackhole(ip) for ip in self.world.blackhole_ips]

    # -- what clients use --------------------------------------------------------------------------
    @property
    def nameserver(self) -> str:
        """``127.0.0.1:<port>``, the value for ``DNS_NAMESERVERS``."""
        assert self.dns is not None, "the lab is not started"
        return f"{self.dns.host}:{self.dns.port}"

    def env(self) -> dict[str, str]:
        """Environment variables pointing the engine at this lab."""
        return {"DNS_NAMESERVERS": self.nameserver, "SMTP_PROBE_PORT": str(self.smtp_port)}

    def engine_config(self, **overrides: Any) -> EngineConfig:
        """An ``EngineConfig`` aimed at this lab with short, test-friendly timeouts; ``overrides`` win."""
        assert self.dns is not None, "the lab is not started"
        values: dict[str, Any] = {
            "dns_nameservers": (Nameserver(self.dns.host, self.dns.port),),
            "dns_timeout": 1.0,
            "smtp_probe_port": self.smtp_port,
            "smtp_helo_host": "prober.verimail.test",
            "smtp_mail_from": "probe@verimail.test",
            "smtp_timeout": 3.0,
            "smtp_connect_timeout": 1.0,
            "smtp_banner_timeout": 1.0,
            "smtp_deadline": 10.0,
            "smtp_allow_loopback_mx": True,  # every lab server is on 127.0.0.x
        }
        values.update(overrides)
        return EngineConfig(**values)

    def publish(self, *specs: DomainSpec) -> None:
        """Add records while the lab runs (a TXT challenge a test publishes); a name's old records go."""

        def change(zone: Zone) -> None:
            for spec in specs:
                zone.publish(spec)

        self._on_loop(change)

    def withdraw(self, *names: str) -> None:
        def change(zone: Zone) -> None:
            for name in names:
                zone.withdraw(name)

        self._on_loop(change)

    def _on_loop(self, change: Callable[[Zone], None]) -> None:
        """Change the zone on the lab's own thread, between two answers, never in the middle of one."""
        assert self.dns is not None, "the lab is not started"
        zone = self.dns.zone

        async def apply() -> None:
            change(zone)

        asyncio.run_coroutine_threadsafe(apply(), self._loop).result(START_TIMEOUT)

    def reset(self) -> None:
        """Forget every server's sessions, commands and greylisting memory, and hang up on the clients still
        connected (a prober's kept sessions), as a fresh lab would have none."""

        async def hang_up() -> None:
            await asyncio.gather(*(server.hang_up() for server in self.servers.values()))

        asyncio.run_coroutine_threadsafe(hang_up(), self._loop).result(START_TIMEOUT)
        for server in self.servers.values():
            server.reset()
        if self.dns is not None:
            self.dns.zone.questions.clear()

    @property
    def dns_questions(self) -> list[str]:
        """The names the lab's DNS server was asked about since the last ``reset``."""
        return list(self.dns.zone.questions) if self.dns is not None else []

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> MailLab:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(START_TIMEOUT)
        return self

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(START_TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(START_TIMEOUT)
        self._loop.close()

    def __enter__(self) -> MailLab:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def _start(self) -> None:
        self.dns = DnsServer(Zone(self.world.domains))
        await self.dns.start(self._dns_port)
        tls = server_context("localhost", *(spec.name for spec in self.world.servers))
        self.servers = {spec.name: LabSmtpServer(spec, tls, self.latency) for spec in self.world.servers}
        await self._bind_smtp()

    async def _bind_smtp(self) -> None:
        """Find one port free on every server IP (and on the dead IPs, so they stay dead), then bind the
        servers and the blackholes."""
        for _ in range(PORT_ATTEMPTS if not self.smtp_port else 1):
            port = self.smtp_port or _free_port()
            try:
                _check_free(port, self.world.dead_ips)
                for server in self.servers.values():
                    await server.start(port)
                for blackhole in self.blackholes:
                    blackhole.start(port)
            except OSError:
                await self._stop_smtp()
                continue
            self.smtp_port = port
            return
        raise OSError("no port free on every lab SMTP address")

    async def _stop(self) -> None:
        await self._stop_smtp()
        if self.dns is not None:
            await self.dns.stop()

    async def _stop_smtp(self) -> None:
        for blackhole in self.blackholes:
            blackhole.stop()
        for server in self.servers.values():
            await server.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _check_free(port: int, ips: tuple[str, ...]) -> None:
    """Raise OSError if anything could answer on ``ip:port`` (bind would fail)."""
    for ip in ips:
        with socket.socket() as probe:
            probe.bind((ip, port))
