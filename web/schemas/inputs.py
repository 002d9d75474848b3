"""Input types with their limits written into the schema, so /openapi.json says exactly what is accepted.

- ``Instant``: an RFC 3339 timestamp between the years 1970 and 2099 with a real-world UTC offset (at most
  14 hours); anything else is a 400 naming the field, never a database error on a far-future date or an
  offset Postgres cannot hold.
- ``DatabaseId``: a positive id that fits Postgres ``bigint`` (a larger number is a 400, not an overflow).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Field, WithJsonSchema

BIGINT_MAX = 2**63 - 1
INTEGER_MAX = 2**31 - 1  # Postgres ``integer`` (positions in a list)
MAX_OFFSET = timedelta(hours=14)
# The written form itself is checked first: parsers accept more (spaces, lowercase "t", Unix seconds) than
# RFC 3339 says, and the document must describe what is accepted, not a parser's leniency.
INSTANT_PATTERN = (
    r"^(19[7-9][0-9]|20[0-9][0-9])-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?"
    r"(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)$"
)
_INSTANT = re.compile(INSTANT_PATTERN)


def _rfc3339_text(value: object) -> object:
    if isinstance(value, str) and not _INSTANT.fullmatch(value):
        raise ValueError(
            "Give an RFC 3339 timestamp with a zone, between 1970 and 2099, e.g. 2026-01-31T12:00:00Z."
        )
    return value


def _in_utc(value: datetime) -> datetime:
    offset = value.utcoffset()
    if offset is None or abs(offset) > MAX_OFFSET:  # the pattern allows none of these; belt and braces
        raise ValueError("The UTC offset must be between -14:00 and +14:00.")
    return value.astimezone(UTC)


Instant = Annotated[
    AwareDatetime,
    BeforeValidator(_rfc3339_text),
    AfterValidator(_in_utc),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": INSTANT_PATTERN}),
]
DatabaseId = Annotated[int, Field(ge=1, le=BIGINT_MAX)]
