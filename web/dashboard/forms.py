"""Reading HTML forms into the same typed inputs the API accepts (so a rule lives in one place)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar

from email_validator import EmailNotValidError, validate_email
from flask import render_template, request
from pydantic import BaseModel

from services.errors import InvalidField
from web.parsing import validate

M = TypeVar("M", bound=BaseModel)
LIST_SEPARATORS = re.compile(r"[\s,]+")


def text(name: str) -> str:
    return request.form.get(name, "").strip()


def checked(name: str) -> bool:
    return request.form.get(name) in ("on", "true", "1")


def many(name: str) -> list[str]:
    """Checkbox groups (``scopes``) and one-per-line/comma lists (``allowed_ips``) alike."""
    values = request.form.getlist(name)
    return [item for value in values for item in LIST_SEPARATORS.split(value) if item]


def whole(name: str) -> int:
    """A whole number typed in a number field (the API's model then checks its range)."""
    typed = text(name)
    if not typed.isdigit():
        raise InvalidField(name, f"Enter a whole number from 0 up, not {typed!r}.")
    return int(typed)


def email(name: str = "email") -> str:
    try:
        return validate_email(text(name), check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise InvalidField(name, f"Enter a valid email address: {error}") from None


def as_model(model: type[M], data: Mapping[str, object]) -> M:
    """``data`` (camelCase, as the API's JSON) checked by the API's own model; ``InvalidField`` if not."""
    return validate(model, data)


def render(template: str, status: int = 200, **context: object) -> tuple[str, int, dict[str, str]]:
    """A page; ``no-store`` so a page that showed a secret is not kept in the browser's cache."""
    return render_template(f"dashboard/{template}", **context), status, {"Cache-Control": "no-store"}
