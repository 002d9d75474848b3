"""The list in and out as CSV: an import adds rows through the same path as a bounce; an export streams
the list in id order, chunk by chunk, so its size never sits in memory."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterator

from core.times import iso
from models.session import transaction
from models.suppression import BounceKind
from services.auth import Actor
from services.suppression import entries
from services.suppression.recording import Origin, record
from services.suppression.rows import Read, read_csv
from services.validation.csv_safe import safe_row

COLUMNS = ("email", "address", "kind", "source", "diagnosticCode", "bouncedAt", "suppressedAt")
CHUNK = 1000


def import_csv(actor: Actor, text: str) -> tuple[Counter[str], Read]:
    """Rows of ``text`` (``services.suppression.rows``; ``kind`` defaults to ``manual``) recorded as
    source ``import``: what was new by kind, and the rows refused."""
    read = read_csv(text, BounceKind.MANUAL)
    with transaction() as session:
        counts = record(session, Origin(actor.account.id, actor.livemode, "import"), read.notices)
    return counts, read


def export_csv(actor: Actor) -> Iterator[str]:
    """The list as CSV (``COLUMNS``), formula-looking cells quoted as text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    after = 0
    while True:
        with transaction() as session:
            rows = entries.all_entries(session, actor, after, CHUNK)
        for row in rows:
            code, bounced, added = row.diagnostic_code or "", iso(row.bounced_at), iso(row.created_at)
            writer.writerow(safe_row((row.email, row.address, row.kind, row.source, code, bounced, added)))
        yield _drain(buffer)
        if len(rows) < CHUNK:
            return
        after = rows[-1].id


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
