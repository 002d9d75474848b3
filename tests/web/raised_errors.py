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
from types import FunctionType, MethodType, ModuleType
from typing import Any

from werkzeug.exceptions import HTTPException

from services.errors import ServiceError

OURS = ("services.", "web.", "models.", "core.")
Raisable = type[ServiceError] | type[HTTPException]


def errors_of(roots: list[Callable[..., Any]]) -> set[Raisable]:
    """Every error class that can leave one of ``roots``."""
    return {error for root in roots for layer in _layers(root) for error in _escaping(layer, frozenset())}


_ESCAPING: dict[Callable[..., Any], set[Raisable]] = {}


def _escaping(function: Callable[..., Any], visiting: frozenset[Callable[..., Any]]) -> set[Raisable]:
    """The errors ``function`` raises or lets through from its calls, less those an ``except`` around the
    call swallows. A call back into a function being read adds nothing (recursion is not followed)."""
    if function in _ESCAPING:
        return _ESCAPING[function]
    if function in visiting:
        return set()
    tree, scope = _tree(function), _scope(function)
    found: set[Raisable] = set()
    for node, caught in _named(tree) if tree is not None else ():
        swallowed = [kind for kind in (_resolve(name, scope) for name in caught) if isinstance(kind, type)]
        for error in _errors_from(_resolve(node, scope), visiting | {function}):
            if not any(issubclass(error, kind) for kind in swallowed):
                found.add(error)
    _ESCAPING[function] = found
    return found


def _errors_from(target: Any, visiting: frozenset[Callable[..., Any]]) -> set[Raisable]:
    if isinstance(target, type) and issubclass(target, ServiceError | HTTPException):
        return {target}
    if isinstance(target, type) and _ours(target):
        methods = [member for member in vars(target).values() if isinstance(member, FunctionType)]
        return {error for method in methods for error in _escaping(method, visiting)}
    if callable(target) and _ours(target):
        return {error for layer in _layers(target) for error in _escaping(layer, visiting)}
    return set()


def _ours(thing: Any) -> bool:
    return f"{getattr(thing, '__module__', '')}.".startswith(OURS)


def _layers(function: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """A decorated function and every function it wraps (each layer has code of its own)."""
    layer: Any = function
    while layer is not None:
        yield layer.__func__ if isinstance(layer, MethodType | classmethod | staticmethod) else layer
        layer = getattr(layer, "__wrapped__", None)


Caught = tuple[ast.expr, ...]


def _named(node: ast.AST, caught: Caught = ()) -> Iterator[tuple[ast.expr, Caught]]:
    """Each called or raised expression with the exception types caught around it; a handler that
    re-raises (a bare ``raise``) catches nothing."""
    if isinstance(node, ast.Call):
        yield node.func, caught
    elif isinstance(node, ast.Raise) and node.exc is not None:
        yield node.exc, caught
    if isinstance(node, ast.Try):
        handlers = [handler for handler in node.handlers if not _reraises(handler)]
        inner = caught + tuple(name for handler in handlers for name in _types(handler))
        for statement in node.body:
            yield from _named(statement, inner)
        for other in [*node.handlers, *node.orelse, *node.finalbody]:
            yield from _named(other, caught)
        return
    for child in ast.iter_child_nodes(node):
        yield from _named(child, caught)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(node, ast.Raise) and node.exc is None for node in ast.walk(handler))


def _types(handler: ast.ExceptHandler) -> Caught:
    if handler.type is None:
        return (ast.Name("BaseException"),)
    return tuple(handler.type.elts) if isinstance(handler.type, ast.Tuple) else (handler.type,)


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
