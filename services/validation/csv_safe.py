"""Cells that are safe to open in a spreadsheet (OWASP "CSV Injection").

Excel, LibreOffice and Google Sheets run a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula
(and tab or carriage return can hide one). A list comes from anyone, and its owner opens our download in a
spreadsheet: every such cell is written with a leading single quote, which spreadsheets show as text. The
JSON download keeps the original value; the quote is only ever added, never removed, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    """``value`` prefixed with ``'`` when it is text a spreadsheet would read as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(values: Iterable[object]) -> list[object]:
    return [safe_cell(value) for value in values]
