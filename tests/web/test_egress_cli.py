"""``flask --app web egress status`` as an operator runs it: the configured pool, never a password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POOL = (
    "direct://, direct://127.0.0.62?helo=out2.verimail.test,"
    "socks5://prober:hunter2-secret@127.0.0.1:1080?helo=out3.verimail.test&mailFrom=check@verimail.test"
)


def egress_status(smtp_egress: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SMTP_EGRESS": smtp_egress, "SMTP_HELO_HOST": "prober.verimail.test"}
    env["SMTP_MAIL_FROM"] = "probe@verimail.test"
    return subprocess.run(
        [str(Path(sys.executable).with_name("flask")), "--app", "web", "egress", "status", *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def counters_not_yet_counted() -> dict[str, object]:
    return {
        "sessionsOpen": 0,
        "sessionsTotal": 0,
        "rcpts": 0,
        "blocks": {},
        "backoffUntil": None,
        "lastError": None,
    }


def test_status_lists_every_egress_in_order_with_its_identity() -> None:
    shown = egress_status(POOL, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {
        "egresses": [
            {
                "id": "direct://",
                "kind": "direct",
                "address": None,
                "proxy": None,
                "proxyUser": None,
                "helo": "prober.verimail.test",
                "mailFrom": "probe@verimail.test",
                "inUse": True,
                **counters_not_yet_counted(),
            },
            {
                "id": "direct://127.0.0.62",
                "kind": "direct",
                "address": "127.0.0.62",
                "proxy": None,
                "proxyUser": None,
                "helo": "out2.verimail.test",
                "mailFrom": "probe@verimail.test",
                "inUse": False,
                **counters_not_yet_counted(),
            },
            {
                "id": "socks5://prober@127.0.0.1:1080",
                "kind": "socks5",
                "address": None,
                "proxy": "127.0.0.1:1080",
                "proxyUser": "prober",
                "helo": "out3.verimail.test",
                "mailFrom": "check@verimail.test",
                "inUse": False,
                **counters_not_yet_counted(),
            },
        ]
    }
    assert "hunter2" not in shown.stdout


def test_status_without_json_is_one_line_per_egress_the_one_in_use_marked() -> None:
    shown = egress_status(POOL)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        "* direct://  helo=prober.verimail.test  mailFrom=probe@verimail.test",
        "  direct://127.0.0.62  helo=out2.verimail.test  mailFrom=probe@verimail.test",
        "  socks5://prober@127.0.0.1:1080  helo=out3.verimail.test  mailFrom=check@verimail.test",
    ]
    assert "hunter2" not in shown.stdout


def test_a_malformed_entry_stops_the_command_naming_the_entry_not_its_password() -> None:
    shown = egress_status("direct://, socks5://prober:hunter2-secret@127.0.0.1", "--json")
    assert shown.returncode != 0
    assert shown.stdout == ""
    assert (
        "SMTP_EGRESS entry 'socks5://prober:***@127.0.0.1' is not usable: the proxy's port is required"
        in (shown.stderr)
    )
    assert "hunter2" not in shown.stderr
