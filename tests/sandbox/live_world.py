"""A reseller's live world, one of each live object a test key or the test-mode dashboard could reach: keys,
a webhook endpoint with a delivery, a batch, a bulk list, a verdict token, a sub-user with its own key,
white-label settings, a custom domain, a suppressed address and an inbound source. All are made by the live
admin key through the API, as a customer makes them.

``snapshot`` reads every live row of the reseller and its sub-user, column by column (keys, jobs, endpoints,
deliveries, events, audit entries, usage, sub-users, tiers, white-label, domains, the accounts themselves):
a test-mode request that changes any live object, or adds a live audit entry, event or charge, changes it.
``markers`` are strings only live objects carry: a test-mode answer that shows one has read live data.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import or_, select

from models.accounts import Account, Tier
from models.audit import AuditEntry
from models.base import Base
from models.jobs import ValidationJob
from models.keys import ApiKey
from models.listeners import EventListener
from models.monitoring import MonitoredList
from models.resellers import CustomDomain, SubUser, SubUserTier, WhiteLabel
from models.session import transaction
from models.suppression import InboundSource, SuppressedAddress
from models.usage import UsageCharge, UsagePeriod
from models.webhooks import Event, WebhookDelivery, WebhookEndpoint
from settings import get_settings
from tests.fixtures.db import Persona, add_key, create_test_app, open_twins

ASYNC = {"Prefer": "respond-async"}
PAGE_ORIGIN = "http://127.0.0.2:8040"


@dataclass(frozen=True)
class LiveWorld:
    live: Persona  # the reseller's live admin key
    test: Persona  # its test-mode admin key (``*:*``), as the operator's CLI makes it
    ids: dict[str, str]  # path parameter -> a live object's id
    token: str  # a live verdict token for ``not-an-address``
    markers: tuple[str, ...]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return snapshot(self.live.account_id)

    def shown_in(self, text: str, asked: str = "") -> list[str]:
        """The live markers ``text`` shows beyond those the request ``asked`` about itself (a 404 naming
        the id it was given reveals nothing); none for an answer that kept to test mode."""
        return [marker for marker in self.markers if marker in text and marker not in asked]

    def fill_body(self, body: Any) -> Any:
        """``body`` with each ``"<int:name>"`` value a live object's id, and ``"<token>"`` the live token."""
        if not isinstance(body, dict):
            return body
        values: dict[str, int | str] = {
            f"<int:{name}>": int(value) for name, value in self.ids.items() if value.isdigit()
        }
        values |= {f"<{name}>": value for name, value in self.ids.items()}
        values["<token>"] = self.token
        return {
            name: values.get(value, value) if isinstance(value, str) else value
            for name, value in body.items()
        }

    def fill(self, rule: str) -> str:
        """``rule`` (``/api/keys/<int:key_id>``) with each parameter a live object's id."""
        path = rule
        for name, value in self.ids.items():
            path = path.replace(f"<int:{name}>", value).replace(f"<{name}>", value)
        return path


@pytest.fixture(scope="module")
def live_app(database_url: str) -> Iterator[Flask]:
    """The app, with webhook endpoints allowed at 127.0.0.1 (no DNS), as in local development."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
        get_settings.cache_clear()
        yield create_test_app()
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def world(live_app: Flask) -> LiveWorld:
    return build(live_app.test_client())


def build(client: FlaskClient) -> LiveWorld:
    live, test = open_twins(Tier.ENTERPRISE_PLUS)
    tag = secrets.token_hex(4)

    def made(method: str, path: str, body: Any, status: int, **headers: str) -> dict[str, Any]:
        response = client.open(path, method=method, json=body, headers={**live.headers, **headers})
        assert response.status_code == status, (path, response.get_json())
        found: dict[str, Any] = response.get_json()
        return found

    hook = f"https://127.0.0.1:9/live-hook-{tag}"
    endpoint = made("POST", "/webhooks", {"url": hook, "events": ["key.created"]}, 201)
    key = made("POST", "/api/keys", {"name": f"Live marker key {tag}"}, 201)  # its key.created: a delivery
    batch = made("POST", "/validate/batch", {"emails": [f"batch-{tag}@example.com"]}, 202, **ASYNC)
    bulk = made("POST", "/bulk/jobs?quickMode=true", [f"bulk-{tag}@example.com"], 202, **ASYNC)
    sub_email = f"customer-{tag}@example.com"
    sub = made("POST", "/api/sub-users", {"email": sub_email, "name": f"Customer {tag}", "tier": "pro"}, 201)
    domain = made("POST", "/api/custom-domains", {"hostname": f"api.live-{tag}.test"}, 201)
    docs = f"https://docs.brand-{tag}.test/api"
    brand = {"provider": f"Brand {tag}", "support": f"help@brand-{tag}.test", "documentation": docs}
    made("PUT", "/api/white-label", {"enabled": True, **brand}, 200)
    suppressed = made("POST", "/suppression", {"email": f"suppressed-{tag}@example.com"}, 201)
    source = made("POST", "/suppression/sources", {"kind": "postmark", "name": f"Live source {tag}"}, 201)
    deliveries = made("GET", f"/webhooks/{endpoint['id']}/deliveries", None, 200)["data"]
    form = add_key(live.account_id, "Live form", ("validate:write",), allowed_origins=(PAGE_ORIGIN,))
    verdict = client.post(
        "/validate/browser",
        json={"email": "not-an-address"},
        headers={"X-API-Key": form.publishable, "Origin": PAGE_ORIGIN},
    )
    assert verdict.status_code == 200, verdict.get_json()
    listener = made("POST", "/webhooks/listeners", {"events": ["key.created"]}, 201)
    ids = {
        "key_id": str(key["id"]),
        "endpoint_id": str(endpoint["id"]),
        "delivery_id": str(deliveries[0]["id"]),
        "batch_id": batch["batchId"] if "batchId" in batch else batch["id"],
        "job_id": bulk["jobId"] if "jobId" in bulk else bulk["id"],
        "sub_id": sub["id"],
        "domain_id": domain["id"],
        "listener_id": listener["id"],
        "list_id": _monitored(live.account_id, bulk["jobId"] if "jobId" in bulk else bulk["id"]),
        "number": "1",
        "email": suppressed["email"],
        "source_id": source["id"],
    }
    markers = (
        f"Live marker key {tag}",
        key["publishableKey"],
        live.publishable,
        form.publishable,
        hook,
        ids["batch_id"],
        ids["job_id"],
        sub["id"],
        sub_email,
        domain["id"],
        f"live-{tag}.test",
        listener["secret"],
        ids["list_id"],
        suppressed["email"],
        source["id"],
    )  # not the brand: test-mode answers carry the account's brand as live ones do
    return LiveWorld(live, test, ids, verdict.get_json()["token"], markers)


def _monitored(account_id: int, job_public_id: str) -> str:
    """A live monitored list of the live bulk list, kept directly (like an operator: the list is still
    running, and the matrix is about reaching it, not keeping it)."""
    public_id = f"mon_{secrets.token_hex(12)}"
    with transaction() as session:
        job = session.scalars(select(ValidationJob).where(ValidationJob.public_id == job_public_id)).one()
        session.add(
            MonitoredList(
                public_id=public_id,
                account_id=account_id,
                livemode=True,
                source_job_id=job.id,
                name=f"Live monitored {public_id}",
                addresses=1,
                schedule="weekly",
                next_run_at=job.created_at,
            )
        )
    return public_id


def snapshot(account_id: int) -> dict[str, list[dict[str, Any]]]:
    """Every live row of the account and of its sub-users, as plain values, in a stable order."""
    with transaction() as session:
        subs = list(session.scalars(select(SubUser.account_id).where(SubUser.reseller_id == account_id)))
        accounts = [account_id, *subs]
        endpoints = select(WebhookEndpoint.id).where(
            WebhookEndpoint.account_id.in_(accounts), WebhookEndpoint.livemode.is_(True)
        )
        queries = {
            "accounts": select(Account).where(Account.id.in_(accounts)),
            "keys": select(ApiKey).where(ApiKey.account_id.in_(accounts), ApiKey.livemode.is_(True)),
            "endpoints": select(WebhookEndpoint).where(WebhookEndpoint.id.in_(endpoints)),
            "deliveries": select(WebhookDelivery).where(WebhookDelivery.endpoint_id.in_(endpoints)),
            "events": select(Event).where(Event.account_id.in_(accounts), Event.livemode.is_(True)),
            "jobs": select(ValidationJob).where(
                ValidationJob.account_id.in_(accounts), ValidationJob.livemode.is_(True)
            ),
            "monitored_lists": select(MonitoredList).where(
                MonitoredList.account_id.in_(accounts), MonitoredList.livemode.is_(True)
            ),
            "audit": select(AuditEntry).where(
                AuditEntry.account_id.in_(accounts), AuditEntry.livemode.is_(True)
            ),
            "suppressed": select(SuppressedAddress).where(
                SuppressedAddress.account_id.in_(accounts), SuppressedAddress.livemode.is_(True)
            ),
            "sources": select(InboundSource).where(
                InboundSource.account_id.in_(accounts), InboundSource.livemode.is_(True)
            ),
            "usage": select(UsagePeriod).where(UsagePeriod.account_id.in_(accounts)),
            "charges": select(UsageCharge).where(UsageCharge.account_id.in_(accounts)),
            "listeners": select(EventListener).where(
                EventListener.account_id.in_(accounts), EventListener.livemode.is_(True)
            ),
            "sub_users": select(SubUser).where(SubUser.reseller_id == account_id),
            "tiers": select(SubUserTier).where(SubUserTier.account_id.in_(accounts)),
            "white_label": select(WhiteLabel).where(WhiteLabel.reseller_id == account_id),
            "domains": select(CustomDomain).where(
                or_(CustomDomain.reseller_id == account_id, CustomDomain.reseller_id.in_(subs))
            ),
        }
        return {
            name: sorted((_row(row) for row in session.scalars(query)), key=repr)
            for name, query in queries.items()
        }


def _row(row: Base) -> dict[str, Any]:
    return {column.key: getattr(row, column.key) for column in row.__table__.columns}
