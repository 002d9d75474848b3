"""The customer's side of the demo: upload the list as a bulk job, follow it with a progress bar, download
the results and sum them up in a table."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from demo.stack import Service
from demo.waiting import waiting_for

FINISHED = ("completed", "failed", "cancelled")
POLL_SECONDS = 0.3
STALL_SECONDS = 1.0


def clean(service: Service, addresses: list[str], console: Console, timeout: float) -> list[dict[str, Any]]:
    """Upload, follow and download: one result per submitted line, in order."""
    headers = {"X-API-Key": service.key}
    body = "\n".join(["email", *addresses]).encode()
    upload = requests.post(
        f"{service.base_url}/bulk/jobs",
        data=body,
        headers={**headers, "Content-Type": "text/csv"},
        timeout=60,
    )
    upload.raise_for_status()
    job = upload.json()
    _follow(service, job, console, timeout)
    download = requests.get(job["downloadUrl"], params={"format": "json"}, headers=headers, timeout=60)
    download.raise_for_status()
    results: list[dict[str, Any]] = download.json()
    return results


def _follow(service: Service, job: dict[str, Any], console: Console, timeout: float) -> None:
    columns = (
        TextColumn("[bold]cleaning"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
    )
    give_up, stall = time.monotonic() + timeout, Stall()
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("list", total=None, note="")
        while True:
            status = requests.get(
                f"{service.base_url}/bulk/jobs/{job['id']}", headers={"X-API-Key": service.key}, timeout=30
            ).json()
            progress.update(task, total=status["total"], completed=status["processed"])
            if status["status"] in FINISHED:
                progress.update(task, note="")
                break
            if stall.asks(status["processed"]):
                progress.update(task, note=waiting_for(service, job["resultsUrl"]))
            elif stall.moving:
                progress.update(task, note="")
            if time.monotonic() > give_up:
                raise TimeoutError(f"the list was not cleaned within {timeout:.0f} s")
            time.sleep(POLL_SECONDS)
    if status["status"] != "completed":
        raise RuntimeError(f"the job ended {status['status']}")


class Stall:
    """When to ask what the list waits for: once its progress stood still for ``STALL_SECONDS``, then
    every ``STALL_SECONDS`` (the question reads every answer so far, too much for every poll)."""

    def __init__(self) -> None:
        self.processed, self.since, self.asked = -1, time.monotonic(), 0.0

    @property
    def moving(self) -> bool:
        return time.monotonic() - self.since < STALL_SECONDS

    def asks(self, processed: int) -> bool:
        now = time.monotonic()
        if processed != self.processed:
            self.processed, self.since = processed, now
        if self.moving or now - self.asked < STALL_SECONDS:
            return False
        self.asked = now
        return True


BY_SMTP = {
    "undeliverable": "mailbox does not exist",
    "full": "mailbox full",
    "disabled": "mailbox disabled",
}


def verdict(result: dict[str, Any]) -> str:
    """One plain-language verdict per result, the most decisive finding first."""
    checks = result.get("checks") or {}
    smtp = checks.get("smtp", {}).get("metadata", {})
    accepted = smtp.get("verdict") == "deliverable"
    findings = [
        (not checks.get("syntax", {}).get("passed", False), "invalid syntax"),
        (not checks.get("domain", {}).get("passed", False), "domain takes no mail"),
        (checks.get("disposable", {}).get("passed") is False, "disposable"),
        (smtp.get("verdict") in BY_SMTP, BY_SMTP.get(str(smtp.get("verdict")), "")),
        (bool(checks.get("catchAll", {}).get("metadata", {}).get("isCatchAll")), "catch-all domain"),
        (accepted and checks.get("roleBased", {}).get("passed") is False, "role account"),
        (accepted, "deliverable"),
        (smtp.get("retryAfter") is not None, "server busy or greylisting (unknown)"),
    ]
    return next((name for hit, name in findings if hit), "not verifiable (unknown)")


def summary(results: list[dict[str, Any]]) -> Table:
    """Verdicts with their counts, severities and one example address each."""
    table = Table(title=f"{len(results)} addresses cleaned")
    for name, justify in (
        ("verdict", "left"),
        ("addresses", "right"),
        ("severity", "left"),
        ("example", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    groups: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault(verdict(result), []).append(result)
    for name, members in sorted(groups.items(), key=lambda item: -len(item[1])):
        severities = Counter(str(member.get("severity", "-")) for member in members)
        shown = ", ".join(f"{severity} {count}" for severity, count in severities.most_common())
        table.add_row(name, str(len(members)), shown, str(members[0].get("input", "")))
    totals = Counter(str(result.get("severity", "-")) for result in results)
    table.add_section()
    table.add_row("all", str(len(results)), ", ".join(f"{s} {n}" for s, n in totals.most_common()), "")
    return table
