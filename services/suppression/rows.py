"""Bounces as a sender lists them: a CSV (a header row naming ``email``, optionally ``kind``,
``diagnosticCode`` and ``bouncedAt``) or a JSON array of such objects, for imports and plain uploads.

``kind`` is ``hard`` (the default for an upload: a list of bounces), ``soft``, ``complaint`` or
``manual``; a row that cannot be read is reported by its line (or index) and the rest still go in.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core import clock
from models.suppression import BounceKind
from services.probing.fleet.fleet_engine import shared_engine
from services.suppression.errors import BadNotification
from services.suppression.recording import Notice
from verifier.syntax import SyntaxFailure

MAX_ROWS = 10_000
REPORTED_MAX = 100  # refused rows named in an answer
COLUMNS = {name.lower(): name for name in ("email", "kind", "diagnosticCode", "bouncedAt")}


@dataclass
class Read:
    notices: list[Notice] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    refused_count: int = 0

    def refuse(self, where: int, value: object, reason: str) -> None:
        self.refused_count += 1
        if len(self.refused) < REPORTED_MAX:
            self.refused.append({"row": where, "value": str(value)[:254], "reason": reason})


def read_csv(text: str, default: BounceKind) -> Read:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is not None:  # header names in any case, as spreadsheets write them
        reader.fieldnames = [COLUMNS.get(name.strip().lower(), name.strip()) for name in reader.fieldnames]
    if reader.fieldnames is None or "email" not in reader.fieldnames:
        raise BadNotification("The CSV needs a header row with an `email` column.", field="body")
    try:
        return _read(((line, row) for line, row in enumerate(reader, start=2)), default)
    except csv.Error as error:  # a NUL byte, an unclosed quote at the end
        raise BadNotification(f"The CSV cannot be read: {error}.", field="body") from None


def read_json(data: object, default: BounceKind) -> Read:
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise BadNotification("The JSON body must be an array of objects with an `email`.", field="body")
    return _read(enumerate(data), default)


def _read(rows: Iterator[tuple[int, Mapping[str, Any]]], default: BounceKind) -> Read:
    read = Read()
    for where, row in rows:
        if where >= MAX_ROWS + 2:
            raise BadNotification(
                f"At most {MAX_ROWS} rows per request; send the rest in another.", field="body"
            )
        cells = {str(name).strip(): value for name, value in row.items() if name is not None}
        try:
            read.notices.append(_notice(cells, default))
        except ValueError as error:
            read.refuse(where, cells.get("email"), str(error))
    return read


def _notice(cells: Mapping[str, Any], default: BounceKind) -> Notice:
    email = cells.get("email")
    if not isinstance(email, str):
        raise ValueError("not an email address")
    if isinstance(failure := shared_engine().parse(email), SyntaxFailure):
        raise ValueError(failure.reason)
    kind = cells.get("kind") or default.value
    if kind not in {member.value for member in BounceKind}:
        raise ValueError("kind must be hard, soft, complaint or manual")
    code = cells.get("diagnosticCode") or None
    return Notice(email, BounceKind(kind), _when(cells.get("bouncedAt")), str(code) if code else None)


def _when(value: object) -> datetime:
    if value in (None, ""):
        return clock.now()
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise ValueError("bouncedAt must be an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
