"""The lab's authoritative DNS server: dnspython messages over UDP and TCP on one loopback port.

It answers only from the lab world. A name that is not in the world is NXDOMAIN; a known name without
the asked type is NOERROR with an empty answer; both carry an SOA so resolvers can cache the negative
answer (RFC 2308). SERVFAIL and "no answer at all" are scripted per name. UDP answers larger than the
client allows (512 bytes without EDNS) are truncated with TC set, so real resolvers retry over TCP.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterable
from typing import cast

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from maillab.model import Answer, DomainSpec

NEGATIVE_TTL = 60
UDP_DEFAULT_LIMIT = 512


class Zone:
    """All lab records, indexed by owner name, plus the scripted answer mode per name."""

    def __init__(self, domains: Iterable[DomainSpec]) -> None:
        self._records: dict[dns.name.Name, list[dns.rrset.RRset]] = {}
        self._modes: dict[dns.name.Name, Answer] = {}
        # Questions asked since the lab's last reset, by name: what tests read ("no query was made").
        self.questions: list[str] = []
        for spec in domains:
            owner = dns.name.from_text(spec.name)
            self._modes[owner] = spec.answer
            self._records.setdefault(owner, []).extend(_rrsets(owner, spec))

    def publish(self, spec: DomainSpec) -> None:
        """Serve ``spec`` from now on, replacing whatever its name had (a record a test publishes)."""
        owner = dns.name.from_text(spec.name)
        self._modes[owner] = spec.answer
        self._records[owner] = _rrsets(owner, spec)

    def withdraw(self, name: str) -> None:
        """Forget ``name``: it answers NXDOMAIN again."""
        owner = dns.name.from_text(name)
        self._modes.pop(owner, None)
        self._records.pop(owner, None)

    def answer(self, query: dns.message.Message) -> dns.message.Message | None:
        """The response to ``query``, or None to stay silent (a timeout for the client)."""
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        if not query.question:
            response.set_rcode(dns.rcode.FORMERR)
            return response
        question = query.question[0]
        self.questions.append(question.name.to_text(omit_final_dot=True))
        mode = self._modes.get(question.name)
        if mode is Answer.TIMEOUT:
            return None
        if mode is Answer.SERVFAIL:
            response.set_rcode(dns.rcode.SERVFAIL)
            return response
        self._fill(response, question.name, question.rdtype)
        return response

    def _fill(self, response: dns.message.Message, name: dns.name.Name, rdtype: int) -> None:
        if name not in self._records:
            response.set_rcode(dns.rcode.NXDOMAIN)
        found = [rrset for rrset in self._records.get(name, []) if rrset.rdtype == rdtype]
        response.answer.extend(found)
        if not found:
            response.authority.append(_soa(name))


def _rrsets(owner: dns.name.Name, spec: DomainSpec) -> list[dns.rrset.RRset]:
    texts = {
        dns.rdatatype.MX: [f"{pref} {exchange.rstrip('.')}." for pref, exchange in spec.mx],
        dns.rdatatype.A: list(spec.a),
        dns.rdatatype.AAAA: list(spec.aaaa),
        dns.rdatatype.TXT: [f'"{text}"' for text in spec.txt],
    }
    return [
        dns.rrset.from_text_list(owner, spec.ttl, dns.rdataclass.IN, rdtype, values)
        for rdtype, values in texts.items()
        if values
    ]


def _soa(name: dns.name.Name) -> dns.rrset.RRset:
    """An SOA for the negative answer, owned by the name's parent zone (its last two labels)."""
    apex = dns.name.Name(name.labels[-3:]) if len(name.labels) > 3 else name
    rdata = f"ns.lab.test. hostmaster.lab.test. 1 3600 600 86400 {NEGATIVE_TTL}"
    return dns.rrset.from_text(apex, NEGATIVE_TTL, dns.rdataclass.IN, dns.rdatatype.SOA, rdata)


def _wire(zone: Zone, data: bytes, limit: int | None) -> bytes | None:
    try:
        query = dns.message.from_wire(data)
    except dns.exception.DNSException:
        return None
    response = zone.answer(query)
    if response is None:
        return None
    if limit is None:
        return response.to_wire()
    size = query.payload if query.edns >= 0 else UDP_DEFAULT_LIMIT
    return response.to_wire(max_size=max(size, UDP_DEFAULT_LIMIT), prefer_truncation=True)


class _UdpProtocol(asyncio.DatagramProtocol):
    def __init__(self, zone: Zone) -> None:
        self._zone = zone
        self._transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        reply = _wire(self._zone, data, UDP_DEFAULT_LIMIT)
        if reply is not None and self._transport is not None:
            self._transport.sendto(reply, addr)


class DnsServer:
    """UDP and TCP listeners on ``host:port`` (port 0 picks a free port shared by both)."""

    def __init__(self, zone: Zone, host: str = "127.0.0.1") -> None:
        self.zone = zone
        self.host = host
        self.port = 0
        self._udp: asyncio.DatagramTransport | None = None
        self._tcp: asyncio.Server | None = None

    async def start(self, port: int = 0, attempts: int = 20) -> None:
        """Bind UDP first (it picks the port), then TCP on the same number; retry if TCP's is taken."""
        loop = asyncio.get_running_loop()
        for _ in range(attempts):
            udp, _protocol = await loop.create_datagram_endpoint(
                lambda: _UdpProtocol(self.zone), local_addr=(self.host, port)
            )
            bound = udp.get_extra_info("sockname")[1]
            try:
                self._tcp = await asyncio.start_server(self._serve_tcp, self.host, bound)
            except OSError:
                udp.close()
                if port:
                    raise
                continue
            self._udp, self.port = udp, bound
            return
        raise OSError("no free port for the lab DNS server")

    async def stop(self) -> None:
        if self._udp is not None:
            self._udp.close()
        if self._tcp is not None:
            self._tcp.close()
            await self._tcp.wait_closed()

    async def _serve_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                (length,) = struct.unpack("!H", await reader.readexactly(2))
                reply = _wire(self.zone, await reader.readexactly(length), None)
                if reply is not None:  # a silent name keeps the connection open and unanswered
                    writer.write(struct.pack("!H", len(reply)) + reply)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
