"""Reading an uploaded list as a stream of address strings, never holding the file in memory.

Lines, columns and items are bounded before they are parsed (``services.jobs.upload_guards``).

- CSV (``text/csv``): the column headed ``email`` (any case) when the first row has one, else the first
  column with the first row as data. Blank rows and blank cells are skipped; bytes that are not UTF-8
  are replaced (the address then fails syntax, which is the honest verdict).
- JSON (``application/json``): an array of strings, or of objects with an ``email`` string and nothing else
  (at most ``MAX_JSON_ADDRESS`` characters either way), parsed
  incrementally with ``ijson``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import IO, Any

import ijson

from services.jobs import upload_guards
from services.jobs.errors import BadUpload

# 64 + "@" + 255, the longest an address can be written; /openapi.json states it as maxLength. Within the
# 4 KiB item bound however the text is escaped (320 characters as \uXXXX pairs are 3,840 bytes).
MAX_JSON_ADDRESS = 320


def addresses(stream: IO[bytes], fmt: str) -> Iterator[str]:
    """The addresses of ``stream`` in file order; ``BadUpload`` names what could not be read."""
    return _csv(stream) if fmt == "csv" else _json(stream)


def _csv(stream: IO[bytes]) -> Iterator[str]:
    column = 0
    for number, row in enumerate(_rows(upload_guards.bounded_lines(stream))):
        if number == 0:
            headers = [cell.strip().lower() for cell in row]
            if "email" in headers:
                column = headers.index("email")
                continue
        if len(row) > column and row[column].strip():
            yield row[column]


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


def _json(stream: IO[bytes]) -> Iterator[str]:
    try:
        for index, item in enumerate(ijson.items(upload_guards.JsonShapeGuard(stream), "item")):
            yield _json_address(index, item)
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
