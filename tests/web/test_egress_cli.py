"""``flask --app web egress status`` as an operator runs it: the configured pool with what the fleet counted
over each egress (real sessions to the mail lab, the counters in the run's Redis), never a password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from maillab import MailLab
from maillab.world import BLOCKED_SOURCE
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet.policy import Politeness
from tests.workers.test_egress_service import forget_blocks
from verifier.dns import MailResolver
from verifier.egress import parse_egress
from verifier.smtp import probe_over_egresses

ROOT = Path(__file__).resolve().parents[2]
# Source addresses no other test of the run probes from: their counters start at zero.
POOL = (
    "direct://127.0.0.91, direct://127.0.0.92?helo=out2.verimail.test,"
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


def not_counted_yet() -> dict[str, object]:
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
                "id": "direct://127.0.0.91",
                "kind": "direct",
                "address": "127.0.0.91",
                "proxy": None,
                "proxyUser": None,
                "helo": "prober.verimail.test",
                "mailFrom": "probe@verimail.test",
                "inUse": True,
                **not_counted_yet(),
            },
            {
                "id": "direct://127.0.0.92",
                "kind": "direct",
                "address": "127.0.0.92",
                "proxy": None,
                "proxyUser": None,
                "helo": "out2.verimail.test",
                "mailFrom": "probe@verimail.test",
                "inUse": True,
                **not_counted_yet(),
            },
            {
                "id": "socks5://prober@127.0.0.1:1080",
                "kind": "socks5",
                "address": None,
                "proxy": "127.0.0.1:1080",
                "proxyUser": "prober",
                "helo": "out3.verimail.test",
                "mailFrom": "check@verimail.test",
                "inUse": True,
                **not_counted_yet(),
            },
        ]
    }
    assert "hunter2" not in shown.stdout


def test_status_without_json_is_a_few_lines_per_egress_those_in_use_marked() -> None:
    shown = egress_status(POOL)
    assert shown.returncode == 0, shown.stderr
    none = "    sessions=0/0  rcpts=0  blocks=none"
    assert shown.stdout.splitlines() == [
        "* direct://127.0.0.91  helo=prober.verimail.test  mailFrom=probe@verimail.test",
        none,
        "* direct://127.0.0.92  helo=out2.verimail.test  mailFrom=probe@verimail.test",
        none,
        "* socks5://prober@127.0.0.1:1080  helo=out3.verimail.test  mailFrom=check@verimail.test",
        none,
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


def test_status_shows_what_the_fleet_counted_over_each_egress(lab: MailLab) -> None:
    """Sessions over two source addresses, the block-list server refusing the first: each egress's
    sessions and RCPTs, the block counted once at its MX address with the reply, nothing left open."""
    blocked, clean = parse_egress("direct://127.0.0.61"), parse_egress("direct://127.0.0.93")
    forget_blocks(BLOCKED_SOURCE)
    limiter = RedisSessionLimiter(Politeness(3, 30, 0, 30, 600, 60), (blocked, clean))
    config = lab.engine_config(smtp_egress=(blocked, clean))
    domain = MailResolver(config).resolve("blocklist.test")
    emails = ["alice@blocklist.test", "zed@blocklist.test", "bob@blocklist.test"]
    probe_over_egresses(domain, emails, config=config, limiter=limiter, check_catch_all=False)

    shown = egress_status(f"{blocked.id}, {clean.id}", "--json")
    assert shown.returncode == 0, shown.stderr
    first, second = json.loads(shown.stdout)["egresses"]
    assert (first["sessionsOpen"], first["rcpts"], first["blocks"]) == (0, 0, {"127.0.0.45": 1})
    assert first["sessionsTotal"] >= 1
    assert "blocked by 127.0.0.45: 554 Service unavailable" in first["lastError"]
    assert "zen.spamhaus.org" in first["lastError"]
    assert first["inUse"] is True  # blocked at one MX address only: still in the pool
    assert (second["sessionsOpen"], second["sessionsTotal"], second["rcpts"]) == (0, 1, 3)
    assert (second["blocks"], second["lastError"], second["backoffUntil"]) == ({}, None, None)
