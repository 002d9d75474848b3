"""Reading the vendored data files of ``verifier/lists/data`` (tab-separated, ``#`` comments)."""

from __future__ import annotations

from importlib import resources


def rows(name: str) -> list[tuple[str, ...]]:
    """The non-comment lines of ``data/<name>``, split on tabs, fields stripped."""
    text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    return [tuple(field.strip() for field in line.split("\t")) for line in lines if line and line[0] != "#"]
