"""Service configuration, read once from the environment with strict parsing.

Every process type (web, worker, beat, flower, release) builds its settings here and nowhere else, so
the config contract in the README has exactly one implementation. Unknown booleans and malformed
numbers are errors at start-up rather than silent defaults: a typo in production must not turn a
safety switch off (or on).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
APP_ENVS = ("development", "production")


class ConfigError(ValueError):
    """A configuration value that cannot be used; raised at start-up."""


def parse_bool(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name} must be one of true/false/1/0/yes/no/on/off, got {raw!r}")


def parse_int(name: str, raw: str, *, minimum: int = 0) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class Settings:
    """The service-level settings; the engine's own (DNS, SMTP) live in ``verifier.config``."""

    database_url: str
    redis_url: str
    app_env: str
    port: int
    trusted_proxies: int
    webhook_allow_loopback: bool
    max_body_bytes: int
    mail_smtp_url: str
    mail_from: str
    base_url: str
    redis_key_prefix: str
    # CA bundle webhook deliveries trust (REQUESTS_CA_BUNDLE, the name requests users know); None: certifi's.
    webhook_ca_bundle: str | None = None

    @property
    def is_production(self) -> bool:
        return self.app_env == "production"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        app_env = env.get("APP_ENV", "development").strip().lower()
        if app_env not in APP_ENVS:
            raise ConfigError(f"APP_ENV must be development or production, got {app_env!r}")
        allow_loopback = parse_bool("WEBHOOK_ALLOW_LOOPBACK", env.get("WEBHOOK_ALLOW_LOOPBACK", "false"))
        if allow_loopback and app_env == "production":
            raise ConfigError("WEBHOOK_ALLOW_LOOPBACK=true is refused when APP_ENV=production")
        port = parse_int("PORT", env.get("PORT", "8000"), minimum=1)
        return cls(
            database_url=env.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/verimail"),
            redis_url=env.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            app_env=app_env,
            port=port,
            trusted_proxies=parse_int("TRUSTED_PROXIES", env.get("TRUSTED_PROXIES", "0")),
            webhook_allow_loopback=allow_loopback,
            max_body_bytes=parse_int("MAX_BODY_BYTES", env.get("MAX_BODY_BYTES", str(1024 * 1024)), minimum=1),
            mail_smtp_url=env.get("MAIL_SMTP_URL", "smtp://127.0.0.1:1025"),
            mail_from=env.get("MAIL_FROM", "verimail <no-reply@verimail.localhost>"),
            base_url=env.get("BASE_URL", f"http://127.0.0.1:{port}").rstrip("/"),
            redis_key_prefix=env.get("REDIS_KEY_PREFIX", "vm:"),
            webhook_ca_bundle=env.get("REQUESTS_CA_BUNDLE", "").strip() or None,
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings; tests that change the environment call ``get_settings.cache_clear()``."""
    return Settings.from_env()
