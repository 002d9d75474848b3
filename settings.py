"""Service configuration, read once from the environment with strict parsing.

Every process type (web, worker, beat, flower, release) builds its settings here and nowhere else, so
the config contract in the README has exactly one implementation. Unknown booleans and malformed
numbers are errors at start-up rather than silent defaults: a typo in production must not turn a
safety switch off (or on).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
APP_ENVS = ("development", "production")
# Development only: a stable key so a worker and a web process started by hand agree on it. Production
# refuses to start without KEY_SEALING_KEY, so this value never protects a real secret.
_DEVELOPMENT_SEALING_KEY = hashlib.sha256(b"verimail development sealing key").digest()


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


def parse_sealing_key(raw: str | None, app_env: str) -> bytes:
    """KEY_SEALING_KEY: 32 bytes in URL-safe base64, e.g. from ``secrets.token_urlsafe(32)``."""
    if raw is None or not raw.strip():
        if app_env == "production":
            raise ConfigError("KEY_SEALING_KEY is required when APP_ENV=production")
        return _DEVELOPMENT_SEALING_KEY
    try:
        key = base64.urlsafe_b64decode(raw.strip() + "=" * (-len(raw.strip()) % 4))
    except (binascii.Error, ValueError):
        raise ConfigError("KEY_SEALING_KEY must be URL-safe base64") from None
    if len(key) != 32:
        raise ConfigError(f"KEY_SEALING_KEY must decode to 32 bytes, got {len(key)}")
    return key


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
    # AES-256-GCM key sealing auto-rotated secrets until their owner reveals them (services.sealed_secrets).
    key_sealing_key: bytes = field(default=_DEVELOPMENT_SEALING_KEY, repr=False)

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
            key_sealing_key=parse_sealing_key(env.get("KEY_SEALING_KEY"), app_env),
        )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings; tests that change the environment call ``get_settings.cache_clear()``."""
    return Settings.from_env()
