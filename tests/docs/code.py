"""What the code has, read from the code itself: the environment variables it reads (with the defaults it
falls back to), its Python modules and names, the flask commands, the make targets and the tracked paths.
The docs' drift tests hold the docs against these."""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

from settings import Settings
from verifier.config import EngineConfig
from web import create_app

ROOT = Path(__file__).resolve().parents[2]
# Not the service: its tests, its benchmarks and the examples a customer copies read variables of their own.
NOT_SERVICE = ("tests/", "bench/", "examples/", "clients/")
# ``${NAME:-default}`` (or ``${NAME:?message}``) in the files that start processes.
SHELL_READ = re.compile(r"\$\{([A-Z][A-Z0-9_]*):([-?])([^}]*)\}")
SHELL_FILES = ("Procfile", "docker-compose.yml", "Dockerfile", "bin/run", "bin/test", "bin/setup", "bin/demo")
ENV_NAMES = {"env", "environ", "environment"}


class Recording(Mapping[str, str]):
    """An empty environment that notes every variable asked of it and the default the asker fell back to."""

    def __init__(self) -> None:
        self.read: dict[str, str | None] = {}

    def get(self, key: str, default: object = None) -> str | None:  # type: ignore[override]
        self.read.setdefault(key, None if default is None else str(default))
        return None if default is None else str(default)

    def __getitem__(self, key: str) -> str:
        self.read.setdefault(key, None)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@cache
def tracked_files() -> frozenset[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return frozenset(line for line in listed.stdout.splitlines() if (ROOT / line).exists())


@cache
def top_level() -> frozenset[str]:
    return frozenset(path.split("/", 1)[0] for path in tracked_files())


def python_files(*, service_only: bool) -> list[str]:
    return sorted(
        path
        for path in tracked_files()
        if path.endswith(".py") and not (service_only and path.startswith(NOT_SERVICE))
    )


@cache
def environment_read() -> dict[str, str | None]:
    """Every variable the service reads, with its default (None: no default, unset means absent)."""
    found: dict[str, str | None] = {}
    for build in (Settings.from_env, EngineConfig.from_env):
        recording = Recording()
        build(recording)
        found |= recording.read
    for path in python_files(service_only=True):
        for name, default in _environment_reads(ROOT / path):
            found[name] = found.get(name) or default
    for path in SHELL_FILES:
        for name, kind, default in SHELL_READ.findall((ROOT / path).read_text()):
            found[name] = found.get(name) or (default if kind == "-" else None)
    return found


def _environment_reads(path: Path) -> Iterator[tuple[str, str | None]]:
    """Literal names read as ``os.environ[...]``, ``os.environ.get(...)``, ``os.getenv(...)`` or from a
    mapping named ``env``: the forms the code uses outside settings.py."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Subscript) and _is_environment(node.value):
            yield from ((name, None) for name in _literal(node.slice))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute):
            reader = node.func
            if (reader.attr == "get" and _is_environment(reader.value)) or reader.attr == "getenv":
                default = [*_literal(node.args[1], upper=False)] if len(node.args) > 1 else []
                yield from ((name, default[0] if default else None) for name in _literal(node.args[0]))


def _is_environment(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in ENV_NAMES


def _literal(node: ast.expr, *, upper: bool = True) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and (node.value.isupper() or not upper):
        yield node.value


@cache
def constants() -> frozenset[str]:
    """Every upper-case string literal and name anywhere in the code: error codes, constants, variables."""
    found: set[str] = set(environment_read())
    for path in python_files(service_only=False):
        for node in ast.walk(ast.parse((ROOT / path).read_text(), path)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
            elif isinstance(node, ast.Name):
                found.add(node.id)
    return frozenset(found)


def module_file(dotted: str) -> tuple[Path, list[str]] | None:
    """The file of the longest importable prefix of ``dotted`` and the names left after it."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate, parts[end:]
    return None


def names_in(path: Path) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text()))


@cache
def flask_commands() -> dict[str, frozenset[str]]:
    """``flask --app web`` commands: each group with its sub-commands."""
    commands = create_app().cli.commands
    return {name: frozenset(getattr(group, "commands", {})) for name, group in commands.items()}


@cache
def make_targets() -> frozenset[str]:
    return frozenset(re.findall(r"^([a-z][a-z0-9_-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))
