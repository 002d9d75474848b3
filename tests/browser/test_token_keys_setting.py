"""VERDICT_TOKEN_KEYS is read strictly: each entry ``id:secret`` with an id of its own and a long secret,
``default`` alone for the key derived from SECRET_KEY; a refusal names the entry, never its secret."""

from __future__ import annotations

import pytest

from settings import ConfigError, Settings, TokenKey

# A fixed secret: parametrized ids carry it, and pytest-xdist's workers must collect the same ids.
SECRET = "verdict-token-key-of-this-test-only-0123456789"
PRODUCTION = {"APP_ENV": "production", "SECRET_KEY": "s" * 32, "KEY_SEALING_KEY": "k" * 43}


def token_keys(raw: str) -> tuple[TokenKey, ...]:
    return Settings.from_env(PRODUCTION | {"VERDICT_TOKEN_KEYS": raw}).browser.token_keys


def test_unset_the_key_derived_from_secret_key_seals_and_reads_tokens() -> None:
    assert Settings.from_env(PRODUCTION).browser.token_keys == (TokenKey("default"),)


def test_the_first_key_seals_and_default_alone_keeps_the_derived_key() -> None:
    keys = token_keys(f" t2:{SECRET} , default")

    assert keys == (TokenKey("t2", SECRET), TokenKey("default"))
    assert SECRET not in repr(keys)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (f"t2:{SECRET},t2:{SECRET[::-1]}", "entry 2 repeats the id 't2' of entry 1"),
        ("t2:too-short", r"entry 1 \('t2'\): the secret must be at least 32 characters"),
        (f"t2:{SECRET},", "entry 2 must be id:secret"),
        (SECRET, "entry 1 must be id:secret"),
        (f"t 2:{SECRET}", "entry 1 must start with an id of 1 to 32 letters"),
        (f"default:{SECRET}", "entry 1: 'default' is the id of the key derived from SECRET_KEY"),
    ],
)
def test_a_malformed_entry_is_refused_naming_it_and_not_its_secret(raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"VERDICT_TOKEN_KEYS {message}") as refused:
        token_keys(raw)

    assert SECRET not in str(refused.value)
