"""What the client tests share: a test-mode key, a list file, and a verdict token from a form's page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import requests

from models.accounts import Tier
from tests.browser.helpers import NOT_AN_ADDRESS, form_key, from_page
from tests.fixtures.db import Persona, open_twins
from tests.workers.harness import Gunicorn


def sandbox_key(tier: Tier = Tier.BUSINESS) -> Persona:
    """A fresh account's test-mode admin key (``sk_test_``): magic addresses, nothing charged."""
    return open_twins(tier)[1]


def list_file(folder: Path, rows: int) -> Path:
    """A CSV list of ``rows`` magic addresses under an ``email`` header."""
    path = folder / "list.csv"
    locals_ = ["deliverable", "undeliverable", "role", "free"]
    lines = ["email"] + [f"{locals_[n % 4]}+{n}@example.com" for n in range(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def page_token(service: Gunicorn) -> tuple[Persona, dict[str, Any]]:
    """A form's key and what its page got from POST /validate/browser (a verdict token) for an address
    syntax alone decides (answered in the web process)."""
    form = form_key()
    page = requests.post(
        f"{service.base_url}/validate/browser",
        headers=from_page(form),
        json={"email": NOT_AN_ADDRESS},
        timeout=30,
    ).json()
    return form, page
