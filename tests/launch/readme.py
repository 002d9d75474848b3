"""The README's quick start, read from README.md itself, so a test of it breaks as soon as the README drifts:
its shell blocks (indented four spaces) and the lab addresses of its table, each with the severity its
verdict column begins with."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Quick start"
ROW = re.compile(r"^\| `([^`]+@[^`]+)` \| [^|]+ \| (valid|warning|invalid)\b", re.MULTILINE)


@dataclass(frozen=True)
class QuickStart:
    start: str  # the command that starts the service
    steps: list[str]  # the lines to paste into a second shell, in order
    tries: dict[str, str]  # lab address -> the severity the README promises


def quick_start() -> QuickStart:
    section = _section(README.read_text())
    blocks = _blocks(section)
    start, steps = blocks[0], blocks[1]
    assert len(start) == 1, f"the quick start begins with one command, not {start}"
    return QuickStart(start[0], steps, dict(ROW.findall(section)))


def _section(text: str) -> str:
    begin = text.index(SECTION)
    end = text.find("\n## ", begin + len(SECTION))
    return text[begin : end if end >= 0 else None]


def _blocks(section: str) -> list[list[str]]:
    """Runs of lines indented four spaces, each a list of lines without the indent."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("    "):
            current.append(line[4:])
        elif current:
            blocks.append(current)
            current = []
    return blocks
