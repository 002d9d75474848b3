"""KEY_SEALING_KEY is read strictly: production refuses to start without a real 32-byte key."""

from __future__ import annotations

import base64
import secrets

import pytest

from settings import ConfigError, Settings


def test_a_32_byte_url_safe_key_is_used_as_given() -> None:
    key = secrets.token_bytes(32)
    encoded = base64.urlsafe_b64encode(key).decode().rstrip("=")

    assert (
        Settings.from_env(
            {"KEY_SEALING_KEY": encoded, "APP_ENV": "production", "SECRET_KEY": "s" * 32}
        ).key_sealing_key
        == key
    )


def test_development_falls_back_to_its_own_key_but_production_refuses() -> None:
    assert len(Settings.from_env({}).key_sealing_key) == 32
    with pytest.raises(ConfigError, match="KEY_SEALING_KEY is required"):
        Settings.from_env({"APP_ENV": "production"})


@pytest.mark.parametrize(
    "raw", ["not base64 at all!", "k" * 42 + "!", base64.urlsafe_b64encode(b"short").decode()]
)
def test_a_malformed_key_is_an_error(raw: str) -> None:
    with pytest.raises(ConfigError, match="KEY_SEALING_KEY"):
        Settings.from_env({"KEY_SEALING_KEY": raw})


def test_the_key_never_shows_in_the_settings_repr() -> None:
    key = base64.urlsafe_b64encode(b"k" * 32).decode()

    assert "key_sealing_key" not in repr(Settings.from_env({"KEY_SEALING_KEY": key}))
