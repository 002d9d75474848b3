"""``python -m demo`` (what ``bin/demo`` runs): start the service against the mail lab, clean a sample list
with a progress bar, print a summary table of the verdicts, stop everything it started."""

from __future__ import annotations

import argparse
import signal
import sys
from contextlib import ExitStack

from rich.console import Console

from demo.clean import clean, summary
from demo.sample import sample
from demo.stack import running


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bin/demo", description=__doc__)
    parser.add_argument("--count", type=int, default=300, help="addresses in the sample list (300)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds before every lab SMTP reply")
    parser.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    args = parser.parse_args(argv)
    # SIGTERM ends the demo like Ctrl-C: through the cleanup below (processes, database, Redis keys).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    console = Console()
    addresses = sample(args.count)
    with ExitStack() as stack:
        stack.callback(console.print, "stopped everything the demo started")
        with console.status("starting the mail lab, the web server, a worker and beat..."):
            service = stack.enter_context(running(args.latency))
        console.print(f"service at {service.base_url}; cleaning {len(addresses)} addresses as a bulk job")
        results = clean(service, addresses, console, args.timeout)
        console.print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
