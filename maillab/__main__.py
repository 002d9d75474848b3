"""``python -m maillab``: run the lab standalone until interrupted (offline demo, end-to-end tests).

It prints the environment to hand the engine, e.g. ``DNS_NAMESERVERS=127.0.0.1:40211 SMTP_PROBE_PORT=38117``,
and with ``--env-file`` also writes it as ``KEY=VALUE`` lines once every server is listening, so a test
that starts the lab as a subprocess (for Celery workers) can wait for the file instead of parsing output.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path

from maillab.lab import MailLab
from maillab.world import bench_world, standard_world


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m maillab", description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every SMTP reply")
    parser.add_argument("--bench-domains", type=int, default=200, help="bench-NNN.test domains to add")
    parser.add_argument("--dns-port", type=int, default=0, help="fixed DNS port (default: random free)")
    parser.add_argument("--smtp-port", type=int, default=0, help="fixed SMTP port (default: random free)")
    parser.add_argument("--env-file", type=Path, help="write the engine environment here once ready")
    args = parser.parse_args(argv)
    world = standard_world().merged(bench_world(args.bench_domains))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with MailLab(world, latency=args.latency, dns_port=args.dns_port, smtp_port=args.smtp_port) as lab:
        line = " ".join(f"{key}={value}" for key, value in lab.env().items())
        if args.env_file:
            args.env_file.write_text("\n".join(f"{k}={v}" for k, v in lab.env().items()) + "\n")
        print(line, flush=True)
        print(f"mail lab ready: {len(world.domains)} DNS names, {len(lab.servers)} servers", file=sys.stderr)
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
