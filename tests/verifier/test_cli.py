"""``python -m verifier`` run as a user would: a subprocess aimed at the mail lab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from maillab import MailLab

ROOT = Path(__file__).parents[2]


def run(lab: MailLab, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = os.environ | {"SMTP_PROBE_PORT": str(lab.smtp_port), "SMTP_TIMEOUT": "3"} | env
    command = [sys.executable, "-m", "verifier", "--nameserver", lab.nameserver, *args]
    return subprocess.run(
        command, check=False, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


def test_human_output_names_each_check_and_the_advice(lab: MailLab) -> None:
    done = run(lab, "--test-domains", "Alice@mailbox.test", "zed@mailbox.test")
    assert done.returncode == 1, done.stderr  # one address is invalid
    lines = done.stdout.splitlines()
    assert lines[:2] == ["alice@mailbox.test: valid, score 100", '  input: "Alice@mailbox.test"']
    assert "zed@mailbox.test: invalid, score 10" in lines
    assert any(line.startswith("  [FAIL] smtp") and "does not exist" in line for line in lines)
    assert "  advice: The mailbox does not exist: remove this address." in lines


def test_human_output_shows_skipped_and_unknown_checks_as_such_not_as_failures(lab: MailLab) -> None:
    done = run(lab, "--test-domains", "alice@nullmx.test", "alice@greylist.test")
    lines = done.stdout.splitlines()
    assert any(line.startswith("  [skipped] smtp") for line in lines)
    assert any(line.startswith("  [unknown] smtp") for line in lines)


def test_json_output_is_the_spec_result(lab: MailLab) -> None:
    done = run(lab, "--json", "--test-domains", "bob@mailbox.test")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert (body["email"], body["isValid"], body["severity"]) == ("bob@mailbox.test", True, "valid")
    assert body["checks"]["smtp"]["metadata"]["smtpResponse"].startswith("250")


def test_json_and_human_output_echo_the_input_and_the_address_trimmed_in_lowercase(lab: MailLab) -> None:
    padded = "\u00a0Bob@MailBox.test\t"
    body = json.loads(run(lab, "--json", "--test-domains", padded).stdout)
    assert (body["input"], body["email"], body["severity"]) == (padded, "bob@mailbox.test", "valid")
    assert body["checks"]["syntax"]["metadata"]["normalizedEmail"] == "bob@mailbox.test"
    lines = run(lab, "--test-domains", padded).stdout.splitlines()
    assert lines[:2] == ["bob@mailbox.test: valid, score 100", '  input: "\\u00a0Bob@MailBox.test\\t"']


def test_json_output_answers_each_argument_in_order_with_its_index_as_a_batch_does(lab: MailLab) -> None:
    arguments = [" alice@mailbox.test", "zed@mailbox.test", "ALICE@mailbox.test\u200b", "not an address"]
    done = run(lab, "--json", "--quick", "--test-domains", *arguments)
    bodies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(b["index"], b["input"], b["email"]) for b in bodies] == [
        (0, " alice@mailbox.test", "alice@mailbox.test"),
        (1, "zed@mailbox.test", "zed@mailbox.test"),
        (2, "ALICE@mailbox.test\u200b", "alice@mailbox.test"),
        (3, "not an address", "not an address"),
    ]
    assert bodies[0]["score"] == bodies[2]["score"]


def test_quick_mode_opens_no_smtp_session(lab: MailLab) -> None:
    done = run(lab, "--json", "--quick", "--test-domains", "alice@mailbox.test", "carol@catchall.test")
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [result["email"] for result in results] == ["alice@mailbox.test", "carol@catchall.test"]
    assert all(result["checks"]["domain"]["passed"] for result in results)
    assert all("smtp" not in result["checks"] and "catchAll" not in result["checks"] for result in results)
    assert lab.servers["mailbox"].sessions_opened == lab.servers["catchall"].sessions_opened == 0


def test_lab_domains_are_refused_without_the_flag(lab: MailLab) -> None:
    done = run(lab, "alice@mailbox.test")
    assert done.returncode == 1
    assert "special-use or reserved name" in done.stdout
    assert lab.servers["mailbox"].sessions_opened == 0


def test_a_loopback_mx_is_contacted_only_in_test_domain_mode(lab: MailLab) -> None:
    refused = json.loads(run(lab, "--json", "alice@duck.com").stdout)  # mx.duck.com is 127.0.0.11
    assert refused["checks"]["smtp"]["metadata"]["reason"] == "mx_not_public"
    assert lab.servers["mailbox"].sessions_opened == 0
    allowed = json.loads(run(lab, "--json", "--test-domains", "alice@duck.com").stdout)
    assert (allowed["severity"], allowed["checks"]["smtp"]["passed"]) == ("valid", True)


def test_bad_configuration_is_a_usage_error(lab: MailLab) -> None:
    done = run(lab, "alice@mailbox.test", SMTP_PROBE_PORT="smtp")
    assert done.returncode == 2
    assert "configuration error: SMTP_PROBE_PORT" in done.stderr
