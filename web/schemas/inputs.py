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

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Field, ValidationInfo, WithJsonSchema
from pydantic.alias_generators import to_camel

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


def integral(value: object) -> object:
    """JSON has one number type: 1001.0 is the integer 1001 to JSON Schema, so it is to us too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


DatabaseId = Annotated[int, Field(ge=1, le=BIGINT_MAX), BeforeValidator(integral)]


# Text fields: the pattern /openapi.json publishes is checked on the text as sent (a full match, as JSON
# Schema validators read an anchored pattern), so what the document calls valid and what the service takes
# are one set. Classes are spelled out (no \s, \d, \w, "."): regex engines disagree on those.
WHITESPACE = " \t\n\r"
# Every string input: NUL is refused everywhere (web/parsing.py), and so are unpaired surrogates, which
# no pattern can name portably (JSON Schema validators in Rust refuse a "\ud800" escape as not a regex):
# the document says so in words instead (``web.openapi.TEXT_RULE``).
NUL_FREE = r"^[^\x00]*$"
_EDGE = r"[^ \t\n\r\x00]"
_INNER = r"[^\x00]"


def trimmed_pattern(min_length: int, max_length: int) -> str:
    """Text of ``min_length``-``max_length`` characters once the whitespace around it is trimmed."""
    if max_length == 1:
        core = _EDGE
    elif min_length <= 1:
        core = f"{_EDGE}(?:{_INNER}{{0,{max_length - 2}}}{_EDGE})?"
    else:
        core = f"{_EDGE}{_INNER}{{{min_length - 2},{max_length - 2}}}{_EDGE}"
    return rf"^[ \t\n\r]*{core}[ \t\n\r]*$"


def patterned(
    pattern: str, problem: str, *, trim: bool = False, max_length: int | None = None
) -> tuple[BeforeValidator, WithJsonSchema]:
    """Annotations for a string that must fully match ``pattern`` (``problem`` is the 400's message, with
    ``{field}`` for the field's name); ``trim`` strips the whitespace around it once it is checked."""
    compiled = re.compile(pattern)
    schema: dict[str, object] = {"type": "string", "pattern": pattern}
    if max_length is not None:
        schema["maxLength"] = max_length

    def check(value: object, info: ValidationInfo) -> object:
        if isinstance(value, str):
            too_long = max_length is not None and len(value) > max_length
            if too_long or not compiled.fullmatch(value):
                raise ValueError(problem.format(field=to_camel(info.field_name or "value")))
            return value.strip(WHITESPACE) if trim else value
        return value

    return BeforeValidator(check), WithJsonSchema(schema)


def trimmed(min_length: int, max_length: int) -> tuple[BeforeValidator, WithJsonSchema]:
    between = f"{min_length} to {max_length}" if min_length > 1 else f"at most {max_length}"
    return patterned(
        trimmed_pattern(min_length, max_length),
        "{field} must be " + between + " characters (whitespace around it is trimmed).",
        trim=True,
    )


# Host names and URLs: DNS labels (an IPv4 address is four all-digit labels), an optional port 1-65535,
# then printable ASCII. IPv6 literals and non-ASCII (unencoded IRI) characters are not taken.
LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_TOP_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
DOMAIN_PATTERN = rf"^(?:{LABEL}\.)+{_TOP_LABEL}\.?$"  # two labels or more, the last not numeric
_PORT = r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
_AFTER_SCHEME = rf"://(?:{LABEL}\.)*{LABEL}\.?(?::{_PORT})?(?:[/?#][!-~]*)?$"
HTTPS_URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]{_AFTER_SCHEME}"
WEB_URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?{_AFTER_SCHEME}"
# A web origin as a browser's Origin header writes it, any case, with an optional trailing slash (as copied
# from the address bar); ``services.keys.origins`` stores it lowercased without the slash or default port.
ORIGIN_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?://(?:{LABEL}\.)*{LABEL}(?::{_PORT})?/?$"
