"""What the browser tests share: a form's key, and a page's request as a browser sends it."""

from __future__ import annotations

import secrets

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from models.accounts import Tier
from tests.fixtures.db import Persona, add_key, open_persona

PAGE = "http://127.0.0.2:8040"  # the site whose sign-up form uses the key
OTHER_PAGE = "https://copycat.example"
NOT_AN_ADDRESS = "not-an-address"  # syntax alone decides: answered in the web process, no worker needed


def form_key(
    owner: Persona | None = None, *origins: str, tier: Tier = Tier.BUSINESS, livemode: bool = True
) -> Persona:
    """A key for a sign-up form (validate scopes) allowing ``origins`` (``PAGE`` by default)."""
    account_id = (owner or open_persona(tier)).account_id
    scopes = ("validate:read", "validate:write")
    return add_key(account_id, "Sign-up form", scopes, allowed_origins=origins or (PAGE,), livemode=livemode)


def from_page(form: Persona, origin: str | None = PAGE) -> dict[str, str]:
    """The headers a page's script sends: its origin (the browser adds it) and the publishable key."""
    return {"X-API-Key": form.publishable} | ({"Origin": origin} if origin else {})


def visitor() -> dict[str, str]:
    """A visitor of its own (``REMOTE_ADDR``), so the per-visitor window is this test's alone."""
    return {"REMOTE_ADDR": f"198.51.100.{secrets.randbelow(250) + 1}"}


def page_asks(client: FlaskClient, form: Persona) -> TestResponse:
    """One check from the form's page by a visitor of its own, of an address syntax alone decides."""
    return client.post(
        "/validate/browser", headers=from_page(form), environ_base=visitor(), json={"email": NOT_AN_ADDRESS}
    )


def set_budget(client: FlaskClient, owner: Persona, form: Persona, **budget: float) -> TestResponse:
    """The owner sets the form key's budget (``daily``, ``monthly``) through the API."""
    names = {"daily": "publishableDailyBudget", "monthly": "publishableMonthlyBudget"}
    changes = {names[span]: value for span, value in budget.items()}
    return client.patch(f"/api/keys/{form.key_id}", json=changes, headers=owner.headers)
