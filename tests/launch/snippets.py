"""Shell snippets a doc marks runnable: a line ``<!-- runnable: NAME -->`` right before a block indented four
spaces. The marker is invisible on a rendered page; the tests run each block as a reader pastes it (lines
ending in a backslash continue, as in a shell)."""

from __future__ import annotations

import re
from pathlib import Path

MARKER = re.compile(r"^<!-- runnable: ([\w-]+) -->$")


def runnable(doc: Path) -> dict[str, str]:
    """Each marked block of ``doc`` by its name, as one shell text."""
    lines = doc.read_text().splitlines()
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        if marker := MARKER.match(line.strip()):
            found[marker[1]] = _block_after(lines, index + 1)
    return found


def _block_after(lines: list[str], start: int) -> str:
    while start < len(lines) and not lines[start].strip():
        start += 1
    block: list[str] = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        block.append(line[4:])
    assert block, f"a runnable marker at line {start} is not followed by an indented block"
    return "\n".join(block)
