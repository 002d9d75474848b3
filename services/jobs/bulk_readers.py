"""Reading an uploaded list as a stream of address strings, never holding the file in memory.

- CSV (``text/csv``): the column headed ``email`` (any case) when the first row has one, else the first
  column with the first row as data. Blank rows and blank cells are skipped; bytes that are not UTF-8
  are replaced (the address then fails syntax, which is the honest verdict).
- JSON (``application/json``): an array of strings, or of objects with an ``email`` string, parsed
  incrementally with ``ijson``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import IO, Any

import ijson

from services.jobs.errors import BadUpload


def addresses(stream: IO[bytes], fmt: str) -> Iterator[str]:
    """The addresses of ``stream`` in file order; ``BadUpload`` names what could not be read."""
    return _csv(stream) if fmt == "csv" else _json(stream)


def _csv(stream: IO[bytes]) -> Iterator[str]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    rows = csv.reader(text)
    column = 0
    for number, row in enumerate(rows):
        if number == 0:
            headers = [cell.strip().lower() for cell in row]
            if "email" in headers:
                column = headers.index("email")
                continue
        if len(row) > column and row[column].strip():
            yield row[column]


class _ZeroReadSafe:
    """ijson probes its file with ``read(0)``, which Werkzeug's request stream takes for a client that hung
    up; this answers that probe itself and passes every real read through."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        return b"" if size == 0 else self.stream.read(size)


def _json(stream: IO[bytes]) -> Iterator[str]:
    try:
        for index, item in enumerate(ijson.items(_ZeroReadSafe(stream), "item")):
            yield _json_address(index, item)
    except ijson.JSONError as error:
        raise BadUpload("body", f"The JSON list could not be read: {error}.") from None


def _json_address(index: int, item: Any) -> str:
    if isinstance(item, dict):
        item = item.get("email")
    if not isinstance(item, str):
        raise BadUpload(
            f"[{index}]", "Each entry must be an address string or an object with an email string."
        )
    return item
