"""What the sync and async clients share: settings, the request of each attempt, reading answers."""

from __future__ import annotations

import os
from typing import Any

import httpx

from verimail._operations import Call
from verimail.errors import VerimailError, error_from

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
VERSION = "0.1.0"


def settings(api_key: str | None, base_url: str | None) -> tuple[str, str]:
    """The key and base URL, from the arguments or ``VERIMAIL_API_KEY`` / ``VERIMAIL_BASE_URL``."""
    key = api_key or os.environ.get("VERIMAIL_API_KEY")
    if not key:
        raise VerimailError("Give an API key (api_key=..., or the VERIMAIL_API_KEY environment variable).")
    url = base_url or os.environ.get("VERIMAIL_BASE_URL") or DEFAULT_BASE_URL
    return key, url.rstrip("/")


def default_headers(api_key: str) -> dict[str, str]:
    return {"X-API-Key": api_key, "User-Agent": f"verimail-python/{VERSION}", "Accept": "application/json"}


def request_arguments(call: Call, defaults: dict[str, str]) -> dict[str, Any]:
    """Keyword arguments of ``build_request`` for one attempt of ``call``."""
    arguments: dict[str, Any] = {"params": call.params, "headers": {**defaults, **call.headers}}
    if call.json is not None:
        arguments["json"] = call.json
    return arguments


def parsed(response: httpx.Response) -> Any:
    """The JSON body of a 2xx answer; any other answer raised as its typed error."""
    if response.is_success:
        return response.json()
    raise failure(response)


def failure(response: httpx.Response) -> VerimailError:
    try:
        body: object = response.json()
    except ValueError:
        body = response.text
    return error_from(response.status_code, body, response.headers)
