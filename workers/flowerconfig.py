"""Flower's configuration file (the Procfile's ``flower --conf``): Flower runs it as Python at start, and a
top-level name that matches one of its options sets that option, hence the underscores below.

At start Flower asks every worker once for its stats, queues, registered tasks and configuration. Started
beside the workers (``bin/run``), it asks while they are still booting, nobody answers, and it logs one
"Inspect method ... failed" warning per question, which reads like an error and is none: the workers come
up seconds later and Flower sees them through their events. Those warnings are dropped for the first
``_START_SECONDS`` of Flower's life only; a failed inspection after that (a worker gone, a page asking a
dead one) still shows.

Flower reads this file after its command line and its FLOWER_* environment variables, so the address and
password it will use are known here: anywhere but loopback without a password, it stops before it listens
(``workers.flower_access``).
"""

import logging as _logging
import sys as _sys
import time as _time

from tornado.options import options as _options

from workers.flower_access import refusal as _refusal

_START_SECONDS = 15.0


class _StartInspection(_logging.Filter):
    def __init__(self) -> None:
        super().__init__()
        self.until = _time.monotonic() + _START_SECONDS

    def filter(self, record: _logging.LogRecord) -> bool:
        at_start = _time.monotonic() < self.until
        return not (at_start and str(record.msg).startswith("Inspect method"))


_logging.getLogger("flower.inspector").addFilter(_StartInspection())


_refused = _refusal(
    _options.address, unix_socket=_options.unix_socket, basic_auth=_options.basic_auth, oauth=_options.auth
)
if _refused:
    _sys.exit(_refused)
