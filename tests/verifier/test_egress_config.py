"""``SMTP_EGRESS``: the egress pool as an operator writes it, and every way of writing it wrong."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from settings import ConfigError, Settings
from verifier.config import EngineConfig
from verifier.egress import DIRECT, EgressKind, parse_egress_pool

ROOT = Path(__file__).resolve().parents[2]


def test_unset_means_the_default_route():
    assert EngineConfig.from_env({}).smtp_egress == (DIRECT,)
    assert parse_egress_pool(" ") == (DIRECT,)
    assert DIRECT.id == "direct://"


def test_every_form_parses_in_order_with_its_own_identity():
    pool = parse_egress_pool(
        "direct://, direct://203.0.113.7?helo=mx-out1.example.com,"
        "socks5://probe%40eu:p%40ss@proxy.example.net:1080?helo=out2.example.com&mailFrom=check@example.com,"
        "direct://[2001:db8::7], socks5://10.0.0.5:1080"
    )
    assert [egress.id for egress in pool] == [
        "direct://",
        "direct://203.0.113.7",
        "socks5://probe%40eu@proxy.example.net:1080",
        "direct://[2001:db8::7]",
        "socks5://10.0.0.5:1080",
    ]
    proxied = pool[2]
    assert proxied.kind is EgressKind.SOCKS5
    assert proxied.proxy is not None
    assert (proxied.proxy.username, proxied.proxy.password) == ("probe@eu", "p@ss")
    assert (proxied.helo, proxied.mail_from) == ("out2.example.com", "check@example.com")
    assert (pool[1].source, pool[1].helo, pool[1].mail_from) == ("203.0.113.7", "mx-out1.example.com", None)
    assert "p@ss" not in repr(proxied)


def test_the_first_egress_sets_helo_and_sender_else_the_engine_defaults_apply():
    env = {"SMTP_HELO_HOST": "probe.example.com", "SMTP_MAIL_FROM": "verify@example.com"}
    own = EngineConfig.from_env({**env, "SMTP_EGRESS": "direct://127.0.0.9?helo=own.example.com"})
    assert (own.helo_host, own.mail_from) == ("own.example.com", "verify@example.com")
    default = EngineConfig.from_env(env)
    assert (default.helo_host, default.mail_from) == ("probe.example.com", "verify@example.com")


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("ftp://proxy.example.net:21", "the scheme must be direct:// or socks5://"),
        ("direct://mx-out.example.com", "the source address must be an IPv4 or IPv6 address"),
        ("direct://203.0.113.7/path", "direct:// takes only a source address"),
        ("socks5://proxy.example.net", "the proxy's port is required"),
        ("socks5://proxy.example.net:99999", "the proxy's port must be a number from 1 to 65535"),
        ("socks5://user@proxy.example.net:1080", "a proxy user needs both a name and a password"),
        ("direct://?helo=two words", "helo must be a non-empty value without spaces or <>"),
        ("direct://?mailFrom=nobody", "mailFrom must be an address"),
        ("direct://?from=a@b.example", "unknown or repeated option 'from'"),
        ("direct://?helo=a.example&helo=b.example", "unknown or repeated option 'helo'"),
    ],
)
def test_a_malformed_entry_is_named_with_its_problem(entry, problem):
    with pytest.raises(ConfigError) as refused:
        EngineConfig.from_env({"SMTP_EGRESS": f"direct://, {entry}"})
    message = str(refused.value)
    assert message.startswith(f"SMTP_EGRESS entry {entry!r}")
    assert problem in message


def test_a_repeated_egress_is_refused():
    with pytest.raises(ConfigError) as refused:
        parse_egress_pool("direct://127.0.0.9, direct://127.0.0.9?helo=other.example.com")
    assert str(refused.value) == (
        "SMTP_EGRESS entry 'direct://127.0.0.9?helo=other.example.com' repeats the egress direct://127.0.0.9"
    )


def test_a_password_never_appears_in_the_message():
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"SMTP_EGRESS": "socks5://probe:hunter2-secret@proxy.example.net:70000"})
    assert "hunter2-secret" not in str(refused.value)
    assert "socks5://probe:***@proxy.example.net:70000" in str(refused.value)


def test_a_malformed_entry_stops_start_up_naming_the_entry():
    env = {**os.environ, "SMTP_EGRESS": "direct://, socks5://probe:hunter2@proxy.example.net"}
    checked = subprocess.run(
        [sys.executable, "-m", "settings"],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 1
    assert "SMTP_EGRESS entry 'socks5://probe:***@proxy.example.net'" in checked.stderr
    assert "the proxy's port is required" in checked.stderr
    assert "hunter2" not in checked.stderr
