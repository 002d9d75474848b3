"""What a list that stopped moving is waiting for, in words, from its results URL: the addresses answered
for now while their servers are asked again (``retrying``), and what each server said.

The results URL lists settled and interim answers alike; an interim one is an unknown verdict with a
``retryAfter``. A settled answer can look the same (a server still busy after the last try), so only
while the list says it is ``retrying`` are such answers read as waiting.
"""

from __future__ import annotations

from typing import Any

import requests

from demo.stack import Service

REASONS = {
    "greylisted": "greylisted us",
    "temporary_failure": "answered {code}",
    "too_many_recipients": "took no more recipients",
    "timeout": "did not answer in time",
    "connect_timeout": "did not answer the connection",
    "disconnected": "hung up",
    "session_limit": "had no free session slot",
    "backing_off": "asked us to slow down (backing off)",
}
SHOWN_DOMAINS = 2


def waiting_for(service: Service, results_url: str) -> str:
    """``waiting for busy.test: server answered 421, asking again after 1 s``, or "" if nothing waits."""
    rows, retrying = _answers(service, results_url)
    if not retrying:
        return ""
    waiting = {row["email"].rpartition("@")[2].lower(): row for row in rows if _interim(row)}
    notes = [f"{domain}: {_why(row)}" for domain, row in list(waiting.items())[:SHOWN_DOMAINS]]
    more = len(waiting) - len(notes)
    return "waiting for " + "; ".join(notes) + (f"; and {more} more domains" if more > 0 else "")


def _answers(service: Service, results_url: str) -> tuple[list[dict[str, Any]], int]:
    """Every answered row of the list (page by page) and how many of them are interim."""
    rows: list[dict[str, Any]] = []
    params: dict[str, int] = {"limit": 1000}
    while True:
        page = requests.get(results_url, params=params, headers={"X-API-Key": service.key}, timeout=30).json()
        rows += page["results"]
        if not page["hasMore"]:
            return rows, int(page.get("retrying", 0))
        params["startingAfter"] = page["nextStartingAfter"]


def _interim(row: dict[str, Any]) -> bool:
    smtp = row.get("checks", {}).get("smtp", {})
    return smtp.get("status") == "unknown" and smtp.get("metadata", {}).get("retryAfter") is not None


def _why(row: dict[str, Any]) -> str:
    smtp = row["checks"]["smtp"]["metadata"]
    code = str(smtp.get("smtpResponse") or "")[:3]
    reason = REASONS.get(str(smtp.get("reason")), "failed for now")
    said = reason.format(code=code if code.isdigit() else "reply")
    return f"server {said}, asking again after {smtp['retryAfter']} s"
