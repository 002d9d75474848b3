"""Strict parsers of single configuration values, shared by the engine's config, its egress pool and the
service's ``settings.py``: one spelling of "what a valid number of seconds is" for every variable."""

from __future__ import annotations


class EngineConfigError(ValueError):
    """A configuration value that cannot be used; the service's ``settings.ConfigError`` is this class."""


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def parse_bool(name: str, raw: str) -> bool:
    """A strict boolean: an unknown word is an error, never silently false (a typo must not flip a switch)."""
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise EngineConfigError(f"{name} must be one of true/false/1/0/yes/no/on/off, got {raw!r}")


def parse_int(name: str, raw: str, *, minimum: int = 0) -> int:
    """A whole number of at least ``minimum``; also the service's parser (``settings.py`` imports it)."""
    try:
        value = int(raw.strip())
    except ValueError:
        raise EngineConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise EngineConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def parse_seconds(name: str, raw: str) -> float:
    """A positive, finite number of seconds; also the service's parser (``settings.py`` imports it)."""
    try:
        value = float(raw.strip())
    except ValueError:
        raise EngineConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not value > 0 or value == float("inf"):
        raise EngineConfigError(f"{name} must be a positive, finite number of seconds, got {raw!r}")
    return value


def parse_text(name: str, raw: str) -> str:
    """A word such as a host name or an address: non-empty, without spaces or angle brackets (it goes
    verbatim into an SMTP command line)."""
    value = raw.strip()
    if not value or any(ch.isspace() or ch in "<>" for ch in value):
        raise EngineConfigError(f"{name} must be a non-empty value without spaces or <>, got {raw!r}")
    return value


def parse_port(name: str, raw: str) -> int:
    """A TCP port, 1-65535."""
    port = parse_int(name, raw, minimum=1)
    if port > 65535:
        raise EngineConfigError(f"{name} must be at most 65535, got {port}")
    return port
