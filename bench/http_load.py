"""A light HTTP/1.1 load generator: ``--clients`` keep-alive connections, each sending the same POST
back to back (a client waits for its answer before sending again), every latency kept.

Why not ``requests`` in threads: on this 2-core machine the load generator shares the cores with the
server, Postgres and Redis; ``requests`` costs about as much CPU per request as a bare Flask endpoint, so
it measured the client as much as the server. One asyncio process writing prebuilt bytes costs a few
microseconds per request, and runs in a process of its own so it never shares a GIL with anything.

Run: ``python -m bench.http_load URL --key KEY --json BODY --requests 3000 --clients 16``; prints one JSON
line: requests, seconds, rps, p50_ms, p90_ms, p99_ms, max_ms and the status counts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)


def build_request(url: str, key: str, body: bytes) -> tuple[str, int, bytes]:
    parts = urlsplit(url)
    head = (
        f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nX-API-Key: {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return parts.hostname or "127.0.0.1", parts.port or 80, head.encode() + body


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """The status and whether the server keeps the connection; the body is read and dropped."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {
        name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])
    }
    await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers.get("connection", "").lower() != "close"


async def client(host: str, port: int, request: bytes, count: int, tally: Tally) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    for _ in range(count):
        started = time.perf_counter()
        writer.write(request)
        status, keep = await read_response(reader)
        tally.latencies.append(time.perf_counter() - started)
        tally.statuses[status] += 1
        if not keep:
            writer.close()
            reader, writer = await asyncio.open_connection(host, port)
    writer.close()


async def run(url: str, key: str, body: bytes, total: int, clients: int, warmup: int) -> dict[str, object]:
    host, port, request = build_request(url, key, body)
    await asyncio.gather(*(client(host, port, request, warmup, Tally()) for _ in range(clients)))
    tally = Tally()
    started = time.perf_counter()
    await asyncio.gather(*(client(host, port, request, total // clients, tally) for _ in range(clients)))
    seconds = time.perf_counter() - started
    ordered = sorted(tally.latencies)

    def pct(p: float) -> float:
        return round(ordered[min(int(len(ordered) * p), len(ordered) - 1)] * 1000, 1)

    return {
        "requests": len(ordered),
        "seconds": round(seconds, 3),
        "rps": round(len(ordered) / seconds, 1),
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": round(ordered[-1] * 1000, 1),
        "statuses": dict(tally.statuses),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--key", required=True)
    parser.add_argument("--json", required=True, help="the request body")
    parser.add_argument("--requests", type=int, default=3_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=5, help="requests per client before timing")
    args = parser.parse_args()
    body = json.dumps(json.loads(args.json)).encode()
    print(json.dumps(asyncio.run(run(args.url, args.key, body, args.requests, args.clients, args.warmup))))


if __name__ == "__main__":
    main()
