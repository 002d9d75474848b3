"""Emails from Jinja templates beside the capability that sends them: ``<name>.txt`` and ``<name>.html``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape

from services.mail.outbox import Draft

# ``letter.html``, the frame every HTML email extends, lives with the outbox.
SHARED = Path(__file__).parent / "templates"


@lru_cache(maxsize=8)
def environment(folder: Path) -> Environment:
    return Environment(
        loader=ChoiceLoader([FileSystemLoader(folder), FileSystemLoader(SHARED)]),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,  # a missing variable is a bug, not an empty string in someone's inbox
        keep_trailing_newline=True,
    )


def draft(
    folder: Path, name: str, context: Mapping[str, Any], *, recipient: str, subject: str, **extra: Any
) -> Draft:
    """The text and HTML parts of ``name`` rendered with ``context`` (and ``subject``), as one email."""
    env = environment(folder)
    values = {**context, "subject": subject}
    text = env.get_template(f"{name}.txt").render(values)
    html = env.get_template(f"{name}.html").render(values)
    return Draft(recipient=recipient, subject=subject, text=text, html=html, **extra)
