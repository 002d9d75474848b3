"""The docs as markdown-it reads them: each file's inline code spans, link targets and code blocks (fenced or
indented), with the line each starts on, so a drift test can name the place to fix."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from tests.docs.code import ROOT

RUNNABLE = "<!-- runnable -->"


@dataclass(frozen=True)
class Piece:
    doc: str  # path from the root, e.g. docs/guide.md
    line: int  # 1-based
    text: str

    def where(self) -> str:
        return f"{self.doc}:{self.line}: {self.text[:80]!r}"


@dataclass(frozen=True)
class Block(Piece):
    info: str  # the fence's info string ("" for an indented block)
    runnable: bool  # the line before the block (blank lines aside) is the RUNNABLE marker


def documents() -> list[str]:
    return ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]


@cache
def _tokens(doc: str) -> tuple[list[Token], list[str]]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return MarkdownIt("commonmark").enable("table").parse(text), text.splitlines()


def code_spans(doc: str) -> Iterator[Piece]:
    tokens, _ = _tokens(doc)
    for token in tokens:
        for child in token.children or []:
            if child.type == "code_inline":
                yield Piece(doc, _line(token), child.content)


def links(doc: str) -> Iterator[Piece]:
    tokens, _ = _tokens(doc)
    for token in tokens:
        for child in token.children or []:
            target = child.attrs.get("href") if child.type == "link_open" else child.attrs.get("src")
            if child.type in ("link_open", "image") and isinstance(target, str):
                yield Piece(doc, _line(token), target)


def prose(doc: str) -> Iterator[Piece]:
    """Text outside code spans and blocks, a paragraph or table cell at a time."""
    tokens, _ = _tokens(doc)
    for token in tokens:
        if token.type == "inline":
            text = "".join(child.content for child in token.children or [] if child.type == "text")
            yield Piece(doc, _line(token), text)


def blocks(doc: str) -> Iterator[Block]:
    tokens, lines = _tokens(doc)
    for token in tokens:
        if token.type in ("fence", "code_block"):
            start = _line(token)
            before = [line.strip() for line in lines[: start - 1] if line.strip()]
            marked = bool(before) and before[-1] == RUNNABLE
            yield Block(doc, start, token.content, token.info.strip(), marked)


def _line(token: Token) -> int:
    return token.map[0] + 1 if token.map else 0


def table_rows(doc: str) -> Iterator[list[str]]:
    """Each body row of each table, its cells as written (code spans keep their backticks)."""
    for line in (ROOT / doc).read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and not set(line) <= set("|-: "):
            yield [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def runnable(doc: str) -> list[Block]:
    """The blocks of ``doc`` marked runnable, in order: they run one after the other in one shell."""
    return [block for block in blocks(doc) if block.runnable]


def documents_with_runnable_blocks() -> list[str]:
    return [doc for doc in documents() if runnable(doc)]
