"""Bounds on an uploaded list, enforced on the bytes before any parser holds a line or an item whole.

A parser given a 10 MB line, a 10 MB JSON string or an item nested a million deep builds it in memory
before anyone can say no; so the limits are checked on the raw stream first, and the parsers only ever
see what passed:

- CSV: each physical line is read with ``readline(limit)``, so at most ``MAX_LINE_BYTES`` (plus one) bytes
  of a line are ever held; a longer line is refused naming it. Lines end with ``\\n`` or ``\\r\\n`` (a file
  with bare ``\\r`` line ends reads as one long line, and is refused saying so). A CSV whose first line
  starts as JSON does is refused too: it is a JSON list sent with the wrong Content-Type.
- JSON: ``JsonShapeGuard`` sits between the request and ``ijson`` and scans every chunk for structure
  (strings, escapes, brackets, top-level commas) before handing it on: an item larger than
  ``MAX_ITEM_BYTES`` or deeper than ``MAX_DEPTH`` is refused within one read of its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

from services.validation.errors import BadUpload

MAX_LINE_BYTES = 8 * 1024
MAX_COLUMNS = 64
# Also below 4,300 digits, the longest integer Python converts: ijson's C backend crashes the process on a
# longer one instead of raising.
MAX_ITEM_BYTES = 4 * 1024
MAX_DEPTH = 4  # the list, an item object, one nested value and its elements
_STRUCTURE = re.compile(rb'["\\\[\]{},]')
_WHITESPACE = b" \t\r\n"
# An array, or an object (its first key or its end; ``{a}@example.com`` is an address, not JSON). No
# address starts with "[" (it is not an atom character).
_JSON_START = re.compile(r'[ \t]*(?:\[|\{[ \t]*(?:["}]|\r?$))')


def bounded_lines(stream: IO[bytes]) -> Iterator[str]:
    """The stream's lines as text (UTF-8, a leading BOM dropped, bad bytes replaced), each at most
    ``MAX_LINE_BYTES``; ``BadUpload`` naming the first longer one."""
    number = 0
    while line := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            raise BadUpload(
                f"line {number}",
                f"Line {number} is longer than {MAX_LINE_BYTES // 1024} KiB; a list has one address per line "
                "(lines end with \\n or \\r\\n).",
            )
        text = line.decode("utf-8", errors="replace")
        yield text.removeprefix("\ufeff") if number == 1 else text


def not_json(lines: Iterator[str]) -> Iterator[str]:
    """``lines`` unchanged, unless the first one with text starts as JSON does: a JSON list sent as
    ``text/csv`` would otherwise be read as one odd address per line, validated and charged."""
    for line in lines:
        if line.strip():
            refuse_json(line)
            yield line
            break
        yield line
    yield from lines


def refuse_json(line: str) -> None:
    if _JSON_START.match(line):
        raise BadUpload(
            "body", "The body is JSON, not CSV: send a JSON list with Content-Type: application/json."
        )


def check_columns(row: list[str], line: int) -> None:
    if len(row) > MAX_COLUMNS:
        raise BadUpload(f"line {line}", f"Line {line} has {len(row)} columns, more than {MAX_COLUMNS}.")


class JsonShapeGuard:
    """A file-like view of ``stream`` that refuses oversized or too deeply nested list items on sight."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.offset = 0  # bytes handed on so far
        self.depth = 0
        self.in_string = False
        self.escaped = False  # the previous chunk ended on a backslash inside a string
        self.started = False  # the opening bracket of the list was seen
        self.closed = False  # ...and its closing one
        self.index = 0  # the current item of the list
        self.item_start = 0

    def read(self, size: int = -1) -> bytes:
        # ijson probes with read(0), which Werkzeug's request stream takes for a client that hung up.
        if size == 0:
            return b""
        chunk = self.stream.read(size)
        self._scan(chunk)
        self.offset += len(chunk)
        self._check_size(self.offset)
        return chunk

    def _scan(self, chunk: bytes) -> None:
        if self.closed:
            self._nothing_after(chunk)
            return
        position = 0
        if self.escaped and chunk:
            position, self.escaped = 1, False
        if not self.started:
            self._check_opening(chunk)
        while match := _STRUCTURE.search(chunk, position):
            at = match.start()
            position = at + 1
            self._check_size(self.offset + at)  # before a closing bracket ends the item
            if self.in_string:
                position = self._in_string(chunk, chunk[at], position)
            else:
                self._structure(chunk[at], self.offset + at)
            if self.closed:
                self._nothing_after(chunk[position:])
                return

    def _in_string(self, chunk: bytes, char: int, position: int) -> int:
        if char == ord("\\"):
            if position >= len(chunk):
                self.escaped = True
            return position + 1
        if char == ord('"'):
            self.in_string = False
        return position

    def _structure(self, char: int, at: int) -> None:
        if char == ord('"'):
            self._outside_list()
            self.in_string = True
        elif char in b"[{":
            if self.depth == 0 and self.closed:
                self._outside_list()
            self.depth += 1
            if self.depth == 1:
                self.item_start = at + 1
            if self.depth > MAX_DEPTH:
                raise BadUpload(f"[{self.index}]", f"Item {self.index} is nested more than {MAX_DEPTH} deep.")
        elif char in b"]}":
            self.depth -= 1
            self.closed = self.depth <= 0
        elif char == ord(",") and self.depth == 1:
            self.index += 1
            self.item_start = at + 1
        else:
            self._outside_list()

    def _check_opening(self, chunk: bytes) -> None:
        stripped = chunk.lstrip(_WHITESPACE)
        if stripped:
            if stripped[:1] != b"[":
                raise BadUpload(
                    "body", "The JSON body must be an array of addresses (or objects with email)."
                )
            self.started = True

    def _nothing_after(self, rest: bytes) -> None:
        """Only whitespace may follow the list (a bare number after it would still reach the parser)."""
        if rest.strip(_WHITESPACE):
            self._outside_list()

    def _outside_list(self) -> None:
        if self.depth <= 0:
            raise BadUpload("body", "The JSON body must be one array of addresses; nothing may follow it.")

    def _check_size(self, position: int) -> None:
        if self.depth >= 1 and position - self.item_start > MAX_ITEM_BYTES:
            raise BadUpload(
                f"[{self.index}]", f"Item {self.index} is larger than {MAX_ITEM_BYTES // 1024} KiB."
            )
