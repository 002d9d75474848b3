"""Steps the suppression tests share: make a source through the API, post to it as a provider would."""

from __future__ import annotations

import base64
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from models.audit import AuditEntry
from models.session import transaction
from tests.fixtures.db import Persona


def make_source(client: FlaskClient, persona: Persona, kind: str, **keys: str) -> dict[str, Any]:
    created = client.post(
        "/suppression/sources",
        json={"kind": kind, "name": f"{kind} bounces", **keys},
        headers=persona.headers,
    )
    assert created.status_code == 201, created.get_json()
    body: dict[str, Any] = created.get_json()
    return body


def basic(secret: str) -> dict[str, str]:
    """The Authorization header a provider sends for ``https://inbound:<secret>@host/...``."""
    return {"Authorization": "Basic " + base64.b64encode(f"inbound:{secret}".encode()).decode()}


def refusals(account_id: int | None, source_id: str) -> list[str]:
    """The reasons of the audit log's ``inbound.refused`` entries about ``source_id``."""
    with transaction() as session:
        entries = session.scalars(
            select(AuditEntry).where(AuditEntry.event == "inbound.refused").order_by(AuditEntry.id)
        ).all()
    return [
        entry.details["reason"]
        for entry in entries
        if entry.details.get("sourceId") == source_id and entry.account_id == account_id
    ]


def entry(client: FlaskClient, persona: Persona, email: str) -> dict[str, Any]:
    response = client.get(f"/suppression/addresses/{email}", headers=persona.headers)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body
