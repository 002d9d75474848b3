"""The README is a front door: short, with the two commands, the offline quick start, how to run one test
file, the licence and where the rest is; everything it points to exists (the other tests of this folder)."""

from __future__ import annotations

import re

from tests.docs.code import ROOT
from tests.docs.markdown import blocks, links

README = ROOT / "README.md"


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 120


def test_the_readme_gives_the_two_commands_and_how_to_run_one_test_file() -> None:
    commands = "\n".join(block.text for block in blocks("README.md"))

    assert re.search(r"^bin/run\b", commands, re.MULTILINE)
    assert re.search(r"^bin/test\b", commands, re.MULTILINE)
    assert re.search(r"^bin/run --lab$", commands, re.MULTILINE)
    assert re.search(r"^\.venv/bin/pytest tests/\S+\.py$", commands, re.MULTILINE)


def test_the_readme_points_at_every_doc() -> None:
    linked = {link.text for link in links("README.md")}
    docs = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}

    assert sorted(docs - linked) == []
