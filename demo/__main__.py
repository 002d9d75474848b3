"""``python -m demo`` (what ``bin/demo`` runs): start the service against the mail lab, clean a sample list
with a progress bar, print a summary table of the verdicts, stop everything it started."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from contextlib import ExitStack

from rich.console import Console

from demo.clean import clean, summary
from demo.sample import sample
from demo.stack import running
from demo.timings import described

DESCRIPTION = """\
The service against the mail lab (our own small internet on loopback, no network needed): starts the lab,
gunicorn, a Celery worker and beat on a database and Redis key prefix of its own, cleans a sample list of
lab addresses as a bulk job with a progress bar, prints a table of the verdicts, then stops and removes
everything it started."""
EPILOG = f"""\
The demo runs the service with shorter retry and politeness times than its defaults, so the lab's
greylisting and busy servers settle within the demo (a value already set in your environment wins):
{described()}"""


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="bin/demo", description=DESCRIPTION, epilog=EPILOG, formatter_class=HelpFormatter
    )
    made.add_argument("--count", type=int, default=300, help="addresses in the sample list")
    made.add_argument("--latency", type=float, default=0.05, help="seconds before every lab SMTP reply")
    made.add_argument("--timeout", type=float, default=600, help="give up after this many seconds")
    return made


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults after every option, and the description and epilog as written (their line breaks)."""


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # SIGTERM ends the demo like Ctrl-C: through the cleanup below (processes, database, Redis keys).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    console = Console()
    addresses = sample(args.count)
    began = time.monotonic()
    with ExitStack() as stack:
        stack.callback(console.print, "stopped everything the demo started")
        with console.status("starting the mail lab, the web server, a worker and beat..."):
            service = stack.enter_context(running(args.latency))
        console.print(
            f"service at {service.base_url} (database {service.database}, Redis key prefix "
            f"{service.redis_prefix}); cleaning {len(addresses)} addresses as a bulk job"
        )
        cleaning = time.monotonic()
        results = clean(service, addresses, console, args.timeout)
        cleaned = time.monotonic() - cleaning
        console.print(summary(results))
    console.print(f"the list took {cleaned:.1f} s, the whole demo {time.monotonic() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
