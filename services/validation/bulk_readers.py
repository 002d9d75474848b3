"""Reading an uploaded list as a stream of entries, never holding the file in memory.

Lines, columns and items are bounded before they are parsed (``services.validation.upload_guards``).

- CSV (``text/csv``): the column headed ``email`` (any case) when the first row has one, else the first
  column with the first row as data. Every other row is an entry, blank ones included: a row whose
  address cell is blank (an empty line, or a row with other cells but no address) is an entry without an
  address, kept in place for the download and never validated or charged. A row's cells are kept when it
  has more than the address, so the download can give them back. Bytes that are not UTF-8 are replaced
  (the address then fails syntax, which is the honest verdict).
- JSON (``application/json``): an array of strings, or of objects with an ``email`` string and nothing
  else (at most ``MAX_JSON_ADDRESS`` characters either way), parsed incrementally with ``ijson``; every
  item is an address (an empty string fails syntax).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson

from services.validation import upload_guards
from services.validation.errors import BadUpload
from verifier.syntax import trim

# 64 + "@" + 255, the longest an address can be written; /openapi.json states it as maxLength. Within the
# 4 KiB item bound however the text is escaped (320 characters as \uXXXX pairs are 3,840 bytes).
MAX_JSON_ADDRESS = 320


@dataclass(frozen=True)
class Entry:
    text: str  # the address cell or item exactly as uploaded
    cells: list[str] | None = None  # the CSV row's cells, when it holds more than the address
    blank: bool = False  # a CSV row without an address: not validated, not charged


class UploadedList:
    """The entries of an uploaded list, in file order; once they are read, ``header`` is the CSV header
    row (None without one) and ``width`` the number of cells of the widest row."""

    def __init__(self, stream: IO[bytes], fmt: str) -> None:
        self.header: list[str] | None = None
        self.width = 1
        self._entries = self._csv(stream) if fmt == "csv" else _json(stream)

    def __iter__(self) -> Iterator[Entry]:
        return self._entries

    @property
    def columns(self) -> list[str] | None:
        """The header widened to the widest row (``column_N`` for cells past it); None without a header
        and with one column only (a plain list of addresses)."""
        if self.header is None and self.width == 1:
            return None
        named = self.header or []
        return named + [f"column_{n}" for n in range(len(named) + 1, max(self.width, len(named)) + 1)]

    def _csv(self, stream: IO[bytes]) -> Iterator[Entry]:
        column = 0
        for number, row in enumerate(_rows(upload_guards.not_json(upload_guards.bounded_lines(stream)))):
            if number == 0 and "email" in (headers := [cell.strip().lower() for cell in row]):
                column, self.header, self.width = headers.index("email"), row, max(len(row), 1)
                continue
            self.width = max(self.width, len(row))
            yield _entry(row, column)


def buffered(stream: IO[bytes]) -> IO[bytes]:
    """``stream`` behind a buffer: a request body answers ``readline`` a byte per read call otherwise
    (measured: 540,000 calls for a 10,000-row list)."""
    return io.BufferedReader(_Raw(stream))


class _Raw(io.RawIOBase):
    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _entry(row: list[str], column: int) -> Entry:
    address = row[column] if len(row) > column else ""
    return Entry(address, None if row == [address] else row, blank=not trim(address))


def _rows(lines: Iterator[str]) -> Iterator[list[str]]:
    """CSV rows of at most ``MAX_COLUMNS`` cells; a quoted cell spanning lines past the csv module's field
    limit is refused naming its line, like a long line."""
    rows = csv.reader(lines)
    try:
        for row in rows:
            upload_guards.check_columns(row, rows.line_num)
            yield row
    except csv.Error as error:
        raise BadUpload(f"line {rows.line_num}", f"Line {rows.line_num} is not valid CSV: {error}.") from None


def _json(stream: IO[bytes]) -> Iterator[Entry]:
    try:
        for index, item in enumerate(ijson.items(upload_guards.JsonShapeGuard(stream), "item")):
            yield Entry(_json_address(index, item))
    except (ijson.JSONError, ArithmeticError) as error:  # Decimal refuses some numbers (1e999999999)
        raise BadUpload("body", f"The JSON list could not be read: {error}.") from None


def _json_address(index: int, item: Any) -> str:
    if isinstance(item, dict):
        others = sorted(str(name) for name in item if name != "email")
        if others:  # unknown fields are refused, as in every JSON body of the API (typos fail loudly)
            raise BadUpload(f"[{index}]", f"Entry {index} has fields other than email: {', '.join(others)}.")
        item = item.get("email")
    if not isinstance(item, str):
        raise BadUpload(
            f"[{index}]", "Each entry must be an address string or an object with an email string."
        )
    if len(item) > MAX_JSON_ADDRESS:
        raise BadUpload(
            f"[{index}]", f"Entry {index} is longer than {MAX_JSON_ADDRESS} characters; no address is."
        )
    return item
