"""Every path, Python module, flask command, make target and environment variable or setting that the
README or a doc names exists in the code. Only what is written as code (a code span, a code block, a link)
or is anchored at one of the repository's own folders is read as a name, so prose stays prose."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

import pytest

from tests.docs import code
from tests.docs.markdown import Piece, blocks, code_spans, documents, links, prose

PATH = re.compile(r"(?<![\w./:@$-])((?:{tops})/[\w./*-]*)")
MODULE = re.compile(r"^(?:python -m )?((?:{packages})(?:\.[A-Za-z_]\w*)*)$")
FILE_NAME = re.compile(r"\.(py|md|txt|json|ini|toml|yml|yaml|cfg|html|js|css|csv|eml)$")
RUN_MODULE = re.compile(r"python -m ([A-Za-z_][\w.]*)")
FLASK = re.compile(r"flask --app web ([a-z][\w-]*)(?: ([a-z][\w-]*))?")
MAKE = re.compile(r"(?<![\w-])make ([a-z][\w-]*)")
SETTING = re.compile(r"^\$?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=.*)?$")


def _everything_written_as_code() -> Iterator[Piece]:
    for doc in documents():
        yield from code_spans(doc)
        yield from blocks(doc)


def _paths() -> Iterator[tuple[Piece, str]]:
    tops = "|".join(re.escape(top) for top in sorted(code.top_level()) if "." not in top)
    pattern = re.compile(PATH.pattern.format(tops=tops))
    for doc in documents():
        for piece in [*code_spans(doc), *blocks(doc), *prose(doc)]:
            for path in pattern.findall(piece.text):
                yield piece, path
        for link in links(doc):
            if "://" not in link.text and not link.text.startswith(("#", "mailto:")):
                target = PurePosixPath(doc).parent / link.text.split("#", 1)[0]
                yield link, str(PurePosixPath(*_normalised(target.parts)))


def _normalised(parts: tuple[str, ...]) -> list[str]:
    kept: list[str] = []
    for part in parts:
        if part == "..":
            kept.pop()
        elif part != ".":
            kept.append(part)
    return kept


def _exists(path: str) -> bool:
    path = path.split("::", 1)[0].rstrip(".,:;").removesuffix("/")
    files = code.tracked_files()
    if "*" in path:
        return any(fnmatch.fnmatch(file, path) for file in files)
    if path in files or any(file.startswith(f"{path}/") for file in files):
        return True
    # ``services/auth.authenticate``, ``services/broker``: a module written as its path, and names in it.
    folder, _, dotted = path.rpartition("/")
    return _module_exists(".".join([*folder.split("/"), dotted]))


def test_every_path_a_doc_names_is_in_the_repository() -> None:
    assert len(list(_paths())) > 100
    missing = [piece.where() + f" names {path}" for piece, path in _paths() if not _exists(path)]
    assert missing == []


def _packages() -> list[str]:
    tops = code.top_level()
    packages = [top for top in tops if f"{top}/__init__.py" in code.tracked_files()]
    modules = [top.removesuffix(".py") for top in tops if top.endswith(".py")]
    return sorted([*packages, *(module for module in modules if module.isidentifier())])


def test_every_python_module_a_doc_names_exists_with_the_names_it_gives() -> None:
    pattern = re.compile(MODULE.pattern.format(packages="|".join(_packages())))
    missing = [
        piece.where()
        for piece in code_spans_of_all()
        if not FILE_NAME.search(piece.text)
        and (match := pattern.match(piece.text))
        and not _module_exists(match[1])
    ]
    missing += [
        piece.where() + f" runs {module}"
        for piece in _everything_written_as_code()
        for module in RUN_MODULE.findall(piece.text)
        if not _runnable(module)
    ]
    assert missing == []


def code_spans_of_all() -> Iterator[Piece]:
    for doc in documents():
        yield from code_spans(doc)


def _module_exists(dotted: str) -> bool:
    found = code.module_file(dotted)
    return found is not None and set(found[1]) <= code.names_in(found[0])


def _runnable(module: str) -> bool:
    if module in {"pip", "venv", "json.tool", "http.server"}:  # the standard library's and pip's own
        return True
    return any(
        found is not None and not found[1]
        for found in (code.module_file(f"{module}.__main__"), code.module_file(module))
    )


def test_every_flask_command_a_doc_names_is_one_of_the_apps() -> None:
    commands = code.flask_commands()
    assert any(FLASK.search(piece.text) for piece in _everything_written_as_code())
    missing = []
    for piece in _everything_written_as_code():
        for group, sub in FLASK.findall(piece.text):
            if group not in commands or (sub and commands[group] and sub not in commands[group]):
                missing.append(piece.where() + f" runs flask {group} {sub}")
    assert missing == []


def test_every_make_target_a_doc_names_is_in_the_makefile() -> None:
    assert any(MAKE.search(piece.text) for piece in _everything_written_as_code())
    missing = [
        piece.where() + f" runs make {target}"
        for piece in _everything_written_as_code()
        for target in MAKE.findall(piece.text)
        if target not in code.make_targets()
    ]
    assert missing == []


def test_every_setting_a_doc_names_is_read_or_defined_by_the_code() -> None:
    known = code.constants()
    missing = [
        piece.where()
        for piece in code_spans_of_all()
        if (match := SETTING.match(piece.text)) and match[1] not in known
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("`services/jobs/bulk`", True),
        ("see https://example.com/docs/x and text/csv", False),
        ("the folder `var/mail/`", False),
    ],
)
def test_a_path_is_read_only_where_it_starts_at_a_folder_of_the_repository(text: str, named: bool) -> None:
    tops = "|".join(re.escape(top) for top in sorted(code.top_level()) if "." not in top)
    assert bool(re.search(PATH.pattern.format(tops=tops), text.replace("`", " "))) is named
