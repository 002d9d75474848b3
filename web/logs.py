"""Structured JSON logs on stderr, with any secret key scrubbed from the final line.

Code never logs a secret on purpose; the scrubber is the second lock, for the ones nobody meant to log
(an exception message quoting a header, a library's debug line). It works on the formatted output, so
it also covers tracebacks and ``extra`` fields.
"""

from __future__ import annotations

import logging
import re
import sys
import time

from pythonjsonlogger.orjson import OrjsonFormatter

# Live and test secrets alike (a test key still opens its account's test data).
SECRET_PATTERN = re.compile(r"(sk_(?:live|test)_)[A-Za-z0-9_\-]+")
REDACTED = r"\1[REDACTED]"


class ScrubbingJsonFormatter(OrjsonFormatter):
    """orjson rather than the json module: one line per request, so its cost is every request's."""

    _second: tuple[int, str] = (-1, "")  # the last whole second formatted, and its text

    def format(self, record: logging.LogRecord) -> str:
        return SECRET_PATTERN.sub(REDACTED, super().format(record))

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        """``logging``'s default text, with the seconds part formatted once per second rather than per
        line (``strftime`` was a tenth of the access line's cost). One tuple, so threads never pair one
        second's text with another's."""
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        second, text = self._second
        if second != int(record.created):
            second = int(record.created)
            text = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = (second, text)
        return f"{text},{int(record.msecs):03d}"  # logging.Formatter.default_msec_format


def write(logger: logging.Logger, message: str, fields: dict[str, object]) -> None:
    """``logger.info(message, extra=fields)`` without the caller lookup (``findCaller`` walks Flask's
    whole stack for a file name and line the JSON line never prints): for the line every request writes."""
    if logger.isEnabledFor(logging.INFO):
        logger.handle(logger.makeRecord(logger.name, logging.INFO, "", 0, message, (), None, extra=fields))


class Scrubbing(logging.Formatter):
    """Wraps another process's formatter (Celery's) with the same scrub, keeping its format."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return SECRET_PATTERN.sub(REDACTED, self.inner.format(record))


def scrub_handlers(logger: logging.Logger) -> None:
    """Put the scrub on every handler of ``logger`` (Celery sets up its own logging in workers and beat)."""
    for handler in logger.handlers:
        if not isinstance(handler.formatter, ScrubbingJsonFormatter | Scrubbing):
            handler.setFormatter(Scrubbing(handler.formatter))


def configure(level: int = logging.INFO) -> None:
    """Install the JSON handler on the root logger once per process (apps are created many times in tests)."""
    root = logging.getLogger()
    if any(isinstance(handler.formatter, ScrubbingJsonFormatter) for handler in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        ScrubbingJsonFormatter(
            "{asctime}{levelname}{name}{message}", style="{", rename_fields={"levelname": "level"}
        )
    )
    root.addHandler(handler)
    root.setLevel(level)
