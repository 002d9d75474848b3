"""The clients follow /openapi.json: a change to the API that a client does not follow fails here.

- TypeScript: the committed ``src/schema.ts`` is what openapi-typescript makes of the served document now
  (with the flags of ``npm run generate``); the client's operations exist, with their idempotency.
- Python: every operation the client calls exists, with the body fields, options and query parameters it
  sends; the keys its answer types name exist; it sends an Idempotency-Key exactly where one is accepted.
- Both: every error code the service can send has its class.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from flask.testing import FlaskClient
from verimail import errors, types
from verimail._operations import OPERATIONS

import services
from services.errors import CodedError

ROOT = Path(__file__).resolve().parents[2]
TYPESCRIPT = ROOT / "clients/typescript"
ANSWERS = {
    types.ValidationResult: "SingleResultOut",
    types.Accepted: "AcceptedOut",
    types.BatchResult: "BatchResultOut",
    types.ListResult: "ListResultOut",
    types.ResultsPage: "ResultsOut",
    types.BulkJob: "BulkJobOut",
    types.Confirmation: "ConfirmedOut",
}
TS_OPERATION = re.compile(r'(\w+): \{ method: "(GET|POST)", path: "([^"]+)"(, idempotent: true)? \}')


@pytest.fixture
def document(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    served: dict[str, Any] = response.get_json()
    return served


def resolved(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        found: dict[str, Any] = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        return found
    return schema


def operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    found: dict[str, Any] | None = document["paths"].get(path, {}).get(method.lower())
    assert found is not None, f"{method} {path} is no longer in /openapi.json"
    return found


def accepts_idempotency_key(described: dict[str, Any]) -> bool:
    return "Idempotency-Key" in described.get("description", "")


def test_the_committed_typescript_types_are_what_the_served_document_generates(
    document: dict[str, Any], tmp_path: Path
) -> None:
    generator = TYPESCRIPT / "node_modules/.bin/openapi-typescript"
    if shutil.which("node") is None or not generator.exists():
        pytest.skip("node or clients/typescript/node_modules missing (bin/setup installs them)")
    script = json.loads((TYPESCRIPT / "package.json").read_text())["scripts"]["generate"]
    flags = [
        word for word in script.split("openapi-typescript", 1)[1].split() if word.startswith("--default")
    ]
    (tmp_path / "openapi.json").write_text(json.dumps(document, indent=2))
    command = [
        str(generator),
        str(tmp_path / "openapi.json"),
        *flags,
        "--output",
        str(tmp_path / "schema.ts"),
    ]

    subprocess.run(command, check=True, capture_output=True, timeout=100)

    committed = (TYPESCRIPT / "src/schema.ts").read_text()
    assert (tmp_path / "schema.ts").read_text() == committed, (
        "/openapi.json changed: in clients/typescript run `npm run generate && npm run build`, follow the "
        "change in the client, and commit src/schema.ts"
    )


def test_every_operation_the_typescript_client_calls_exists_with_its_idempotency(
    document: dict[str, Any],
) -> None:
    table = TS_OPERATION.findall((TYPESCRIPT / "src/operations.ts").read_text())

    assert len(table) >= len(OPERATIONS)
    for name, method, path, idempotent in table:
        described = operation(document, method, path)
        assert bool(idempotent) == accepts_idempotency_key(described), name


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_the_python_client_calls_exists_with_what_it_sends(
    document: dict[str, Any], name: str
) -> None:
    op = OPERATIONS[name]
    described = operation(document, op.method, op.path)
    query = {parameter["name"] for parameter in described.get("parameters", []) if parameter["in"] == "query"}
    assert op.query <= query, f"{name}: query parameters gone: {sorted(op.query - query)}"
    assert op.idempotent == accepts_idempotency_key(described), name
    if not op.body:
        return
    body = resolved(document, described["requestBody"]["content"]["application/json"]["schema"])
    assert op.body <= set(body["properties"]), (
        f"{name}: body fields gone: {sorted(op.body - set(body['properties']))}"
    )
    if op.options:
        given = resolved(document, body["properties"]["options"])
        assert op.options <= set(given["properties"]), (
            f"{name}: options gone: {sorted(op.options - set(given['properties']))}"
        )


@pytest.mark.parametrize("answer", list(ANSWERS), ids=lambda answer: answer.__name__)
def test_every_key_the_python_answer_types_name_exists(document: dict[str, Any], answer: type) -> None:
    schema = document["components"]["schemas"][ANSWERS[answer]]

    assert set(get_type_hints(answer)) <= set(schema["properties"])


def service_codes() -> set[str]:
    """The code of every coded error any service module defines."""
    for module in pkgutil.walk_packages(services.__path__, "services."):
        importlib.import_module(module.name)
    found: set[str] = set()
    pending: list[type[CodedError]] = [CodedError]
    while pending:
        kind = pending.pop()
        pending.extend(kind.__subclasses__())
        found |= {kind.__dict__["code"]} if "code" in kind.__dict__ else set()
    return found


def test_every_error_code_the_service_sends_has_a_class_in_both_clients() -> None:
    codes = service_codes()
    typescript = (TYPESCRIPT / "src/errors.ts").read_text()

    assert len(codes) > 20
    assert codes <= set(errors.CODES), f"Python client lacks {sorted(codes - set(errors.CODES))}"
    assert [code for code in sorted(codes) if f"  {code}: " not in typescript] == []
