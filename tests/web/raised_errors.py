"""Which errors a route can answer, read from the code: the request hooks and the view, followed through
every call of ours that names its target (a function, a method of a class, a module's function), down to
each error class raised or built there.

What it cannot follow it leaves out: a call on an object whose type the code does not name
(``session.get(...)``), an error class passed around as a value. So a gap it reports is one the code
really has; the contract run (schemathesis) covers what it cannot see.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from collections.abc import Callable, Iterator
from functools import cache
from types import FunctionType, MethodType, ModuleType
from typing import Any

from werkzeug.exceptions import HTTPException

from services.errors import ServiceError

OURS = ("services.", "web.", "models.", "core.")
Raisable = type[ServiceError] | type[HTTPException]


def errors_of(roots: list[Callable[..., Any]]) -> set[Raisable]:
    """Every error class reachable from ``roots``."""
    seen: set[Callable[..., Any]] = set()
    found: set[Raisable] = set()
    stack = [layer for root in roots for layer in _layers(root)]
    while stack:
        function = stack.pop()
        if function in seen:
            continue
        seen.add(function)
        for target in targets(function):
            if isinstance(target, type) and issubclass(target, ServiceError | HTTPException):
                found.add(target)
            elif isinstance(target, type) and _ours(target):
                stack += [member for member in vars(target).values() if isinstance(member, FunctionType)]
            elif callable(target) and _ours(target):
                stack += list(_layers(target))
    return found


def _ours(thing: Any) -> bool:
    return f"{getattr(thing, '__module__', '')}.".startswith(OURS)


def _layers(function: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """A decorated function and every function it wraps (each layer has code of its own)."""
    layer: Any = function
    while layer is not None:
        yield layer.__func__ if isinstance(layer, MethodType | classmethod | staticmethod) else layer
        layer = getattr(layer, "__wrapped__", None)


@cache
def targets(function: Callable[..., Any]) -> list[Any]:
    """What the names called or raised in ``function``'s body resolve to (those that resolve)."""
    tree = _tree(function)
    if tree is None:
        return []
    scope = _scope(function)
    named = [node.func for node in ast.walk(tree) if isinstance(node, ast.Call)]
    named += [node.exc for node in ast.walk(tree) if isinstance(node, ast.Raise) and node.exc is not None]
    resolved = (_resolve(node, scope) for node in named)
    return [target for target in resolved if target is not None]


def _tree(function: Callable[..., Any]) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None


def _scope(function: Callable[..., Any]) -> dict[str, Any]:
    if not isinstance(function, FunctionType):
        return {}
    closure = inspect.getclosurevars(function)
    return {**vars(builtins), **function.__globals__, **closure.nonlocals}


def _resolve(node: ast.expr, scope: dict[str, Any]) -> Any:
    """A ``Name``, a dotted ``Attribute`` chain on one, or a call of either (``Error(...)``)."""
    if isinstance(node, ast.Call):
        return _resolve(node.func, scope)
    if isinstance(node, ast.Name):
        return scope.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _resolve(node.value, scope)
        if isinstance(owner, ModuleType | type):
            return inspect.getattr_static(owner, node.attr, None)
    return None
