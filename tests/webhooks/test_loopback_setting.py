"""WEBHOOK_ALLOW_LOOPBACK: off unless asked for, strictly parsed, and never accepted in production."""

from __future__ import annotations

import secrets

import pytest

from settings import ConfigError, Settings

PRODUCTION = {
    "APP_ENV": "production",
    "KEY_SEALING_KEY": secrets.token_urlsafe(32),
    "SECRET_KEY": secrets.token_urlsafe(32),
}


def test_loopback_targets_are_refused_unless_the_setting_says_otherwise() -> None:
    assert Settings.from_env({}).webhook_allow_loopback is False
    assert Settings.from_env(PRODUCTION).webhook_allow_loopback is False
    assert Settings.from_env({"WEBHOOK_ALLOW_LOOPBACK": "true"}).webhook_allow_loopback is True


def test_production_refuses_to_start_with_loopback_allowed() -> None:
    with pytest.raises(ConfigError, match="WEBHOOK_ALLOW_LOOPBACK=true is refused"):
        Settings.from_env({**PRODUCTION, "WEBHOOK_ALLOW_LOOPBACK": "true"})


def test_an_unknown_boolean_is_an_error_not_false() -> None:
    with pytest.raises(ConfigError, match="WEBHOOK_ALLOW_LOOPBACK"):
        Settings.from_env({"WEBHOOK_ALLOW_LOOPBACK": "maybe"})
