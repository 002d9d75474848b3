"""Engine configuration: strict parsing of the DNS and SMTP variables."""

from __future__ import annotations

import pytest

from verifier.config import EngineConfig, EngineConfigError, Nameserver


def test_defaults_use_the_system_resolver_and_port_25():
    config = EngineConfig.from_env({})
    assert config.dns_nameservers == ()
    assert config.smtp_probe_port == 25


def test_nameservers_take_optional_ports_and_ipv6_brackets():
    config = EngineConfig.from_env({"DNS_NAMESERVERS": "127.0.0.1:5353, [::1]:5300 ,10.0.0.1"})
    assert config.dns_nameservers == (
        Nameserver("127.0.0.1", 5353),
        Nameserver("::1", 5300),
        Nameserver("10.0.0.1", 53),
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SMTP_PROBE_PORT", "twenty-five"),
        ("SMTP_PROBE_PORT", "70000"),
        ("SMTP_TIMEOUT", "0"),
        ("SMTP_TIMEOUT", "inf"),
        ("SMTP_DEADLINE", "-1"),
        ("SMTP_MAX_RCPT_PER_SESSION", "0"),
        ("SMTP_HELO_HOST", "two words"),
        ("SMTP_MAIL_FROM", ""),
        ("DNS_NAMESERVERS", "127.0.0.1:x"),
        ("DNS_NAMESERVERS", "resolver.example.com"),
        ("SMTP_PIPELINING", "maybe"),
    ],
)
def test_unusable_values_are_refused_at_start(name, value):
    with pytest.raises(EngineConfigError):
        EngineConfig.from_env({name: value})


def test_values_are_read_from_the_environment():
    config = EngineConfig.from_env(
        {"SMTP_PROBE_PORT": "2525", "SMTP_HELO_HOST": "probe.example.com", "SMTP_TIMEOUT": "2.5"}
    )
    assert (config.smtp_probe_port, config.smtp_helo_host, config.smtp_timeout) == (
        2525,
        "probe.example.com",
        2.5,
    )


def test_pipelining_is_on_unless_switched_off():
    assert EngineConfig.from_env({}).smtp_pipelining is True
    assert EngineConfig.from_env({"SMTP_PIPELINING": "false"}).smtp_pipelining is False
