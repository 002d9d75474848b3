"""docs/configuration.md lists every environment variable the code reads, and no other, each with the
default the code falls back to."""

from __future__ import annotations

import re

from tests.docs import code
from tests.docs.markdown import table_rows

PAGE = "docs/configuration.md"
NAME = re.compile(r"^`([A-Z][A-Z0-9_]+)`$")


def _listed() -> dict[str, str]:
    """Variable -> the default cell, from the first two columns of the page's tables."""
    listed = {}
    for cells in table_rows(PAGE):
        if len(cells) >= 2 and (match := NAME.match(cells[0])):
            assert match[1] not in listed, f"{match[1]} is listed twice"
            listed[match[1]] = cells[1]
    return listed


def test_every_variable_the_code_reads_is_listed() -> None:
    assert sorted(set(code.environment_read()) - set(_listed())) == []


def test_every_listed_variable_is_read_by_the_code() -> None:
    assert sorted(set(_listed()) - set(code.environment_read())) == []


def test_a_default_written_as_a_value_is_the_codes() -> None:
    read = code.environment_read()
    wrong = []
    for name, cell in _listed().items():
        written = re.fullmatch(r"`([^`]*)`", cell)
        default = read.get(name)
        if written and default and not _same(written[1], default):
            wrong.append((name, written[1], default))
    assert wrong == []


def _same(written: str, default: str) -> bool:
    try:
        return float(written) == float(default)
    except ValueError:
        return written == default
