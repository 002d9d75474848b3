"""The owner's emails about a key's rotation milestones, rendered from ``services/mail/templates``.

An email names the key (name, id, last four characters of the secret) and says what to do and by when;
it never carries a secret, not even an auto-rotated one: mailboxes are forwarded, archived and read on
shared screens, so the new secret waits sealed in Postgres for one authenticated reveal instead
(``services.keys.sealed``). HTML is autoescaped (key names are user input); the text part is plain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import formataddr
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from models.keys import ApiKey, Milestone
from services.branding import Brand
from services.keys import rotation_policy
from services.keys.sealed import REVEAL_WINDOW
from services.mail.outbox import Draft
from settings import get_settings

TEMPLATES = Path(__file__).parent.parent / "mail" / "templates"
SUBJECTS = {
    "warning": "Your API key “{name}” must be refreshed within {days} day(s)",
    "warning-auto": "Your API key “{name}” will be rotated in {days} day(s)",
    "rotated": "Your API key “{name}” was rotated: reveal its new secret",
    "grace": "Your API key “{name}” stops working on {stops_at}",
    "deactivated": "Your API key “{name}” was deactivated",
}
TEMPLATE_OF = {
    Milestone.WARNING_DAY_83: "warning",
    Milestone.WARNING_DAY_86: "warning",
    Milestone.WARNING_DAY_89: "warning",
    Milestone.ROTATED: "rotated",
    Milestone.GRACE: "grace",
    Milestone.DEACTIVATED: "deactivated",
}


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,  # a missing variable is a bug, not an empty string in someone's inbox
        keep_trailing_newline=True,
    )


@dataclass(frozen=True)
class Sender:
    """Who the email speaks for and where its links point (``services.branding``, ``services.links``)."""

    brand: Brand
    base_url: str

    @property
    def from_header(self) -> str | None:
        """The reseller's name on a neutral address under white-label; None: MAIL_FROM."""
        if not self.brand.white_label:
            return None
        return formataddr((self.brand.provider, get_settings().brand.white_label_mail_from))


def draft(milestone: Milestone, key: ApiKey, recipient: str, now: datetime, sender: Sender) -> Draft:
    """The email for ``milestone`` of ``key``, as of ``now`` (the sweep's instant).

    For a rotation ``key`` already carries its new secret's issue time; the other milestones read the
    generation that reached them.
    """
    name = TEMPLATE_OF[milestone]
    context = _context(key, now, sender)
    subject_name = f"{name}-auto" if name == "warning" and key.auto_rotate else name
    subject = SUBJECTS[subject_name].format(
        name=key.name, days=context["days_left"], stops_at=context["stops_at"]
    )
    env = _environment()
    context["subject"] = subject
    text = env.get_template(f"{name}.txt").render(context)
    html = env.get_template(f"{name}.html").render(context)
    return Draft(recipient=recipient, subject=subject, text=text, html=html, sender=sender.from_header)


def _context(key: ApiKey, now: datetime, sender: Sender) -> dict[str, Any]:
    due_at = rotation_policy.rotation_due_at(key)
    return {
        "key": {"id": key.id, "name": key.name, "last4": key.secret_last4},
        "auto_rotate": key.auto_rotate,
        "days_left": max(0, math.ceil((due_at - now) / timedelta(days=1))),
        "due_at": _readable(due_at),
        "stops_at": _readable(rotation_policy.stops_working_at(key)),
        "rotated_at": _readable(now),
        "deactivated_at": _readable(now),
        "reveal_until": _readable(now + REVEAL_WINDOW),
        "reveal_days": REVEAL_WINDOW.days,
        "base_url": sender.base_url,
        "provider": sender.brand.provider,
    }


def _readable(moment: datetime) -> str:
    """``2026-11-21 08:00 UTC``: unambiguous for readers in every time zone."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
