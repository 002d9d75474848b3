"""Reseller fixtures: Enterprise Plus personas, sub-users created through the API, the operator's CLI.

Everything goes over real HTTP (``tests.workers.harness.live_api``: the app on a socket, pointed at the mail
lab), so a sub-user's key is used exactly as its owner would use it.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from core import clock
from models.accounts import Tier
from models.resellers import SubUser
from models.session import transaction
from tests.fixtures.db import Persona, open_persona
from tests.mail.mailbox import mailbox
from tests.webhooks.conftest import ca_bundle, receiver, test_ca, webhook_env
from tests.workers.harness import Api, beat, job_env, live_api, worker

__all__ = [
    "beat",
    "ca_bundle",
    "job_env",
    "live_api",
    "mailbox",
    "receiver",
    "test_ca",
    "webhook_env",
    "worker",
]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def reseller(database_url: str) -> Persona:
    """An Enterprise Plus account's admin (``*:*``) key."""
    return open_persona(Tier.ENTERPRISE_PLUS)


@pytest.fixture
def other_reseller(database_url: str) -> Persona:
    return open_persona(Tier.ENTERPRISE_PLUS)


@pytest.fixture
def frozen() -> Iterator[None]:
    """The service clock, frozen by the test (``clock.freeze``) and released afterwards."""
    yield
    clock.unfreeze()


@dataclass(frozen=True)
class Customer:
    """A sub-user as its reseller created it: the API body and its first key, usable as a persona."""

    id: str
    body: dict[str, Any]
    persona: Persona

    @property
    def headers(self) -> dict[str, str]:
        return self.persona.headers


def create_sub_user(
    live_api: Api, reseller: Persona, tier: str = "pro", email: str | None = None
) -> Customer:
    email = email or f"customer-{secrets.token_hex(4)}@example.com"
    response = live_api.call(
        "post", "/api/sub-users", reseller, json={"email": email, "name": f"Customer {email}", "tier": tier}
    )
    assert response.status_code == 201, response.text
    body = response.json()
    with transaction() as session:
        account_id = session.scalars(select(SubUser.account_id).where(SubUser.public_id == body["id"])).one()
    persona = Persona(account_id, body["keyId"], body["secretKey"], body["publishableKey"])
    return Customer(body["id"], body, persona)


def resellers_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``flask --app web resellers ...`` as the operator runs it, on this run's database."""
    return subprocess.run(
        [str(Path(sys.executable).with_name("flask")), "--app", "web", "resellers", *args],
        check=False,
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )


def set_terms(reseller: Persona, *options: str) -> dict[str, Any]:
    result = resellers_cli("set", "--account", str(reseller.account_id), *options)
    assert result.returncode == 0, result.stderr
    printed: dict[str, Any] = json.loads(result.stdout)
    return printed
