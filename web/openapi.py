"""The OpenAPI 3.1 description, built from the routes themselves so it cannot drift far from them.

Each view carries an ``@document(...)`` record (summary, request/query/response models); paths, methods,
path parameters, security and required scopes come from the url map and ``@require_scope``/``@public``.
Schemas are the pydantic models the views really use. A test checks that every route is described.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from flask import Flask
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema
from werkzeug.routing import Rule

from services.branding import Brand
from services.errors import ServiceError
from verifier import sandbox
from web import auth, openapi_headers
from web.config import app_settings
from web.openapi_responses import Mode, Refs, json_content, responses
from web.openapi_webhooks import models as event_models
from web.openapi_webhooks import webhooks as event_webhooks
from web.parsing import MAX_BODY_DEPTH
from web.schemas.errors import CodedError, FlatError
from web.schemas.inputs import BIGINT_MAX, NUL_FREE

F = TypeVar("F", bound=Callable[..., Any])
OPERATION = "verimail_operation"
OPENAPI_EXTENSION = "verimail.openapi"
REF = "#/components/schemas/{model}"
# On a blueprint's ``before_request`` gate: the service errors it raises on every route of the blueprint.
GATE_ERRORS = "verimail_gate_errors"
PATH_ARG = re.compile(r"<(?:(\w+):)?(\w+)>")


@dataclass(frozen=True)
class Operation:
    summary: str
    responses: Mapping[int, type[BaseModel]]
    request: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    description: str = ""
    raw_body: Mapping[str, Any] | None = None  # media type -> schema, for bodies no model reads
    coded_400: bool = False  # some 400s carry a spec 7.1 code (BATCH_EMPTY, BATCH_TOO_LARGE)
    raw_responses: Mapping[int, Mapping[str, Any]] | None = None  # status -> media type -> schema (streams)
    raw_description: str = "The results, streamed"  # what the raw responses hold
    errors: tuple[type[ServiceError], ...] = ()  # each declared with its status and shape (web.errors)
    # A public view's own authentication (an inbound source's secret), instead of none.
    security: tuple[str, ...] = ()

    def models(self) -> list[tuple[type[BaseModel], Mode]]:
        pairs: list[tuple[type[BaseModel], Mode]] = [
            (model, "serialization") for model in self.responses.values()
        ]
        inputs = [model for model in (self.request, self.query) if model is not None]
        return pairs + [(model, "validation") for model in inputs]


def document(
    summary: str,
    *,
    responses: Mapping[int, type[BaseModel]],
    request: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    description: str = "",
    raw_body: Mapping[str, Any] | None = None,
    coded_400: bool = False,
    raw_responses: Mapping[int, Mapping[str, Any]] | None = None,
    raw_description: str = Operation.raw_description,
    errors: tuple[type[ServiceError], ...] = (),
    security: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Describe a view for /openapi.json (put it under the route decorator, above ``@require_scope``).

    ``errors``: the service errors the view's own work can raise; each becomes a response of its status
    (``web.errors.STATUS``) and shape, named by its code, unless ``responses`` describes that status.
    The authentication, body and rate-limit answers every operation shares are added without asking.
    tests/web/test_contract.py follows the code from each view and fails on a status left out.
    """

    def decorate(view: F) -> F:
        operation = Operation(
            summary,
            responses,
            request,
            query,
            description,
            raw_body,
            coded_400,
            raw_responses,
            raw_description,
            errors,
            security,
        )
        setattr(view, OPERATION, operation)
        return view

    return decorate


def build(app: Flask) -> dict[str, Any]:
    """The whole document; undocumented routes are left out (and named by the OpenAPI test)."""
    documented = [
        (rule, view, op)
        for rule in app.url_map.iter_rules()
        if (op := getattr(view := app.view_functions[rule.endpoint], OPERATION, None)) is not None
    ]
    models = [(CodedError, "serialization"), (FlatError, "serialization")]
    models += [pair for _, _, op in documented for pair in op.models()]
    models += [(model, "serialization") for model in event_models()]
    refs, schemas = models_json_schema(
        list(dict.fromkeys(models)),  # type: ignore[arg-type]
        ref_template=REF,
        schema_generator=InputsWithoutNull,
    )
    defs = schemas.get("$defs", {})
    paths: dict[str, dict[str, Any]] = {}
    for rule, view, op in documented:
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            gated = with_gates(app, rule, op)
            paths.setdefault(path_of(rule), {})[method.lower()] = operation(rule, view, gated, refs, defs)
    root = document_root(app, paths, defs)
    root["webhooks"] = event_webhooks(lambda model: refs[(model, "serialization")])
    return root


def cached(app: Flask) -> dict[str, Any]:
    """The document, built on first request: routes are fixed once the app serves."""
    if OPENAPI_EXTENSION not in app.extensions:
        app.extensions[OPENAPI_EXTENSION] = build(app)
    document: dict[str, Any] = app.extensions[OPENAPI_EXTENSION]
    return document


def branded(document: dict[str, Any], brand: Brand, base_url: str) -> dict[str, Any]:
    """``document`` as a reseller's customers see it on the reseller's domain: its name, host and support,
    nothing that names this service."""
    info = {
        "title": brand.provider,
        "version": document["info"]["version"],
        "description": f"Email validation API of {brand.provider}. Documentation: {brand.documentation}",
        "contact": {"name": f"{brand.provider} support", "url": brand.documentation, "email": brand.support},
    }
    return {**document, "info": info, "servers": [{"url": base_url}]}


def document_root(app: Flask, paths: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    with app.app_context():
        base_url = app_settings().base_url
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "verimail",
            "version": "0.1.0",
            "description": f"Email validation API.\n\n{TEXT_RULE}\n\n{TEST_MODE}",
        },
        "servers": [{"url": base_url}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": SECURITY_SCHEMES,
            "headers": openapi_headers.HEADERS,
        },
        "security": [{"ApiKeyHeader": []}, {"BearerAuth": []}, {"ApiKeyQuery": []}],
    }


# What the string patterns cannot say (web.schemas.inputs.NUL_FREE): every text input is refused alike.
TEST_MODE = (
    "**Test mode.** Test keys (`sk_test_`, `pk_test_`) work on every route, never open a DNS or SMTP "
    "connection, are never charged, see only test-mode data, and every answer and webhook envelope says "
    "`livemode: false`. The local part of an address picks its outcome at any domain (`+tags` ignored): "
    + ", ".join(f"`{name}@`" for name in sandbox.MAGIC)
    + "; syntax errors are the real parser's, any other address is unknown (`not_a_magic_address`). "
    "`greylisted@` answers `retryAfter: 10` and, with `retryTemporary`, settles deliverable later."
)
TEXT_RULE = (
    "Text in a request body or query string may contain neither NUL characters nor unpaired UTF-16 "
    "surrogates (a `\\ud800` escape without its pair): either is a 400 naming the field. A body that is "
    "not a JSON object (malformed, empty, another JSON type, nested more than "
    f"{MAX_BODY_DEPTH} levels) is a 400 with `field` `body` saying where it breaks."
)
SECURITY_SCHEMES = {
    "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key", "description": "Recommended."},
    "BearerAuth": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer <API_KEY>."},
    "InboundSecret": {
        "type": "http",
        "scheme": "basic",
        "description": "An inbound source's secret as the password (any user name), as providers send it.",
    },
    "InboundBearer": {"type": "http", "scheme": "bearer", "description": "An inbound source's secret."},
    "ApiKeyQuery": {
        "type": "apiKey",
        "in": "query",
        "name": "api_key",
        "description": "Development only; refused with QUERY_API_KEY_NOT_ALLOWED when APP_ENV=production.",
    },
}


class InputsWithoutNull(GenerateJsonSchema):
    """Request bodies and queries never take ``null`` (a field is left out to keep its value, and
    ``web.schemas.base.Body`` refuses an explicit null), so their schemas do not offer it."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        if self.mode == "validation":
            return self.generate_inner(schema["schema"])
        return super().nullable_schema(schema)

    def str_schema(self, schema: core_schema.StringSchema) -> JsonSchemaValue:
        """Every string input refuses NUL (``web.parsing.refuse_unstorable_text``); a field with a
        pattern of its own excludes it there."""
        generated = super().str_schema(schema)
        if self.mode == "validation":
            generated.setdefault("pattern", NUL_FREE)
        return generated

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        generated = super().default_schema(schema)
        if self.mode == "validation" and generated.get("default", 0) is None:
            generated.pop("default")
        return generated


def with_gates(app: Flask, rule: Rule, op: Operation) -> Operation:
    """``op`` with the errors its blueprint's gates (``GATE_ERRORS``) raise before any of its views."""
    gates = app.before_request_funcs.get(rule.endpoint.rpartition(".")[0], [])
    raised = tuple(error for gate in gates for error in getattr(gate, GATE_ERRORS, ()))
    return replace(op, errors=tuple(dict.fromkeys(op.errors + raised)))


def path_of(rule: Rule) -> str:
    return PATH_ARG.sub(r"{\2}", rule.rule)


def operation(
    rule: Rule, view: Callable[..., Any], op: Operation, refs: Refs, defs: dict[str, Any]
) -> dict[str, Any]:
    scope = getattr(view, auth.SCOPE, None)
    alternatives = getattr(view, auth.ALTERNATIVE_SCOPES, ())
    is_public = getattr(view, auth.PUBLIC, False)
    body: dict[str, Any] = {
        "operationId": rule.endpoint,
        "summary": op.summary,
        "description": op.description + required_scopes(scope, alternatives),
        "parameters": path_parameters(rule) + query_parameters(op.query, refs, defs),
        "responses": responses(rule, view, op, refs, authenticated=not is_public),
    }
    if is_public:
        body["security"] = [{name: []} for name in op.security]
    if scope:
        body["x-required-scope"] = scope
        body["x-publishable-key-allowed"] = bool(getattr(view, auth.PUBLISHABLE_OK, False))
        body["x-secret-key-allowed"] = bool(getattr(view, auth.SECRET_OK, True))
    if op.request:
        body["requestBody"] = {"required": True, "content": json_content(refs[(op.request, "validation")])}
    if op.raw_body:
        body["requestBody"] = {
            "required": True,
            "content": {name: {"schema": schema} for name, schema in op.raw_body.items()},
        }
    return body


def required_scopes(scope: str | None, alternatives: tuple[str, ...]) -> str:
    if not scope:
        return ""
    either = "".join(f" or `{other}`" for other in alternatives)
    return f"\n\nRequires scope `{scope}`{either}."


def path_parameters(rule: Rule) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX}
            if conv == "int"
            else {"type": "string"},
        }
        for conv, name in PATH_ARG.findall(rule.rule)
    ]


def query_parameters(model: type[BaseModel] | None, refs: Refs, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """One parameter per field of the query model, from its schema among the components (whose nested
    references, such as an enum of event types, resolve there too)."""
    if model is None:
        return []
    schema = defs[refs[(model, "validation")]["$ref"].rsplit("/", 1)[1]]
    required = set(schema.get("required", []))
    return [
        {"name": name, "in": "query", "required": name in required, "schema": prop}
        for name, prop in schema.get("properties", {}).items()
    ]
