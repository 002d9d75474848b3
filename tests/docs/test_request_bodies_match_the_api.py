"""Every request body a doc shows is one the API accepts: the JSON of each ``curl ... -d '{...}'`` in a code
block, and of a code span ``{...}`` right after a code span ``METHOD /path``, validated against that
operation's request schema in the service's own OpenAPI document (unknown fields are refused there too)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import pytest

from tests.docs.markdown import Piece, blocks, code_spans, documents
from web import create_app
from web.openapi import build

CURL = re.compile(r"\bcurl\b[^\n]*")
METHOD = re.compile(r"-X\s+([A-Z]+)")
URL = re.compile(r"(?:\$BASE|https?://[\w.:\[\]-]+|\blocalhost:\d+|\b127\.0\.0\.1:\d+)(/[\w/$.{}<>-]*)")
BODY = re.compile(r"-d\s+'([^']*)'")
ROUTE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE) (/[\w/{}<>-]*)$")


@cache
def _document() -> dict[str, Any]:
    return build(create_app())


def _operation(method: str, path: str) -> dict[str, Any] | None:
    for template, operations in _document()["paths"].items():
        pattern = re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template))
        if re.fullmatch(pattern, path) and method.lower() in operations:
            return operations[method.lower()]  # type: ignore[no-any-return]
    return None


def _curl_bodies() -> Iterator[tuple[Piece, str, str, str]]:
    for doc in documents():
        for block in blocks(doc):
            for command in CURL.findall(block.text.replace("\\\n", " ")):
                url, body = URL.search(command), BODY.search(command)
                if url and body:
                    method = METHOD.search(command)
                    yield block, method[1] if method else "POST", _concrete(url[1]), body[1]


def _span_bodies() -> Iterator[tuple[Piece, str, str, str]]:
    for doc in documents():
        spans = list(code_spans(doc))
        for route, body in itertools.pairwise(spans):
            if (match := ROUTE.match(route.text)) and body.line == route.line and body.text.startswith("{"):
                yield body, match[1], _concrete(match[2]), body.text


def _concrete(path: str) -> str:
    """A path as written (``/api/keys/$KEY_ID``, ``/batches/<id>/results``) with one id in each blank."""
    return re.sub(r"\$\w+|<[^>]+>|\{[^}]+\}", "1", path)


def _examples() -> list[tuple[Piece, str, str, str]]:
    return [*_curl_bodies(), *_span_bodies()]


def test_the_docs_show_request_bodies() -> None:
    assert len(_examples()) >= 10


@pytest.mark.parametrize(("where", "method", "path", "body"), [(e[0].where(), *e[1:]) for e in _examples()])
def test_a_request_body_in_the_docs_is_one_the_api_accepts(
    where: str, method: str, path: str, body: str
) -> None:
    operation = _operation(method, path)
    assert operation is not None, f"{where}: no {method} {path} in /openapi.json"
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    document = _document()

    jsonschema.validate(json.loads(body), {"components": document["components"], **schema})
