"""Service configuration, read once from the environment with strict parsing.

Every process type (web, worker, beat, flower, release) builds its settings here and nowhere else, so
the config contract in the README has exactly one implementation. Unknown booleans and malformed
numbers are errors at start-up rather than silent defaults: a typo in production must not turn a
safety switch off (or on).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from core import development_secrets
from verifier.config_values import EngineConfigError, parse_bool, parse_int, parse_seconds
from verifier.egress import DIRECT, Egress, parse_egress_pool

APP_ENVS = ("development", "production")
SECRET_KEY_MIN_LENGTH = 32
# The longest one blocking Redis command (BLPOP) waits; callers that wait longer loop. redis-py does not
# stretch the socket timeout for a blocking command, so a longer one would fail as "Redis unreachable".
BLOCKING_SLICE = 2.0
REDIS_TIMEOUT_FLOOR = BLOCKING_SLICE + 1.0  # a blocking wait and a second for its reply


# One parser and one error type for the whole process: the service may depend on the engine, never the
# reverse, so the engine owns them. Every configuration problem raises ``ConfigError`` at start-up.
ConfigError = EngineConfigError


def parse_ca_bundle(name: str, raw: str) -> str | None:
    """A PEM file path, or None when unset; a path that is not a readable file is an error at start-up,
    not a TLS failure discovered at the first send."""
    path = raw.strip()
    if not path:
        return None
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ConfigError(f"{name} must be a readable PEM file, got {path!r}")
    return path


def parse_directory(name: str, raw: str) -> str | None:
    """A readable directory, or None when unset (checked at start-up, like a CA bundle)."""
    path = raw.strip()
    if not path:
        return None
    if not os.path.isdir(path) or not os.access(path, os.R_OK | os.X_OK):
        raise ConfigError(f"{name} must be a readable directory, got {path!r}")
    return path


def parse_bind_address(raw: str) -> str:
    """An IP address to listen on (IPv6 bracketed for gunicorn's ``--bind``)."""
    text = raw.strip().strip("[]")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ConfigError(f"BIND_ADDRESS must be an IP address, got {raw!r}") from None
    return f"[{address}]" if address.version == 6 else str(address)


def required_secret(name: str, raw: str | None, app_env: str) -> str:
    """A secret's value: production requires it; development falls back to the installation's own random
    one (``core.development_secrets``), so no mode has a key that anyone else knows."""
    text = (raw or "").strip()
    if text:
        return text
    if app_env == "production":
        raise ConfigError(f"{name} is required when APP_ENV=production")
    try:
        return development_secrets.load()[name]
    except (development_secrets.DevelopmentSecretsError, OSError) as error:
        raise ConfigError(f"{name} is unset and the development one is unusable: {error}") from None


def parse_sealing_key(raw: str | None, app_env: str) -> bytes:
    """KEY_SEALING_KEY: 32 bytes in URL-safe base64, e.g. from ``secrets.token_urlsafe(32)``."""
    text = required_secret("KEY_SEALING_KEY", raw, app_env)
    try:  # validate=True: a stray character is an error, not silently dropped
        key = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError("KEY_SEALING_KEY must be URL-safe base64") from None
    if len(key) != 32:
        raise ConfigError(f"KEY_SEALING_KEY must decode to 32 bytes, got {len(key)}")
    return key


def parse_secret_key(raw: str | None, app_env: str) -> str:
    """SECRET_KEY: signs dashboard sessions and CSRF tokens; 32+ characters, e.g. ``token_urlsafe(32)``."""
    text = required_secret("SECRET_KEY", raw, app_env)
    if len(text) < SECRET_KEY_MIN_LENGTH:
        raise ConfigError(f"SECRET_KEY must be at least {SECRET_KEY_MIN_LENGTH} characters")
    return text


def parse_redis_timeout(raw: str) -> float:
    seconds = parse_seconds("REDIS_SOCKET_TIMEOUT", raw)
    if seconds < REDIS_TIMEOUT_FLOOR:
        raise ConfigError(
            f"REDIS_SOCKET_TIMEOUT must be at least {REDIS_TIMEOUT_FLOOR:g} seconds "
            f"(a blocking wait lasts up to {BLOCKING_SLICE:g} s), got {raw!r}"
        )
    return seconds


def parse_base_url(env: Mapping[str, str], default: str) -> str:
    """PUBLIC_BASE_URL: an absolute http(s) URL, kept without its trailing slash."""
    raw = env.get("PUBLIC_BASE_URL", default).strip().rstrip("/")
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ConfigError(f"PUBLIC_BASE_URL must be an absolute http(s) URL, got {raw!r}")
    return raw


@dataclass(frozen=True)
class ServiceBrand:
    """The service's own ``provider``/``support``/``documentation`` in result metadata (spec 2.3), and the
    sender of emails to white-labelled accounts, whose address must not name the service either."""

    provider: str = "verimail"
    support: str = "support@verimail.localhost"
    documentation: str = "http://127.0.0.1:8000/openapi.json"
    # WHITE_LABEL_MAIL_FROM: the address (on a domain that names nobody) that white-labelled emails come
    # from; the display name is the reseller's provider name.
    white_label_mail_from: str = "no-reply@notifications.localhost"

    @classmethod
    def from_env(cls, env: Mapping[str, str], base_url: str) -> ServiceBrand:
        d = cls()
        return cls(
            provider=_text(env, "SERVICE_PROVIDER", d.provider),
            support=_text(env, "SERVICE_SUPPORT", d.support),
            documentation=_text(env, "SERVICE_DOCUMENTATION", f"{base_url}/openapi.json"),
            white_label_mail_from=_text(env, "WHITE_LABEL_MAIL_FROM", d.white_label_mail_from),
        )


def _text(env: Mapping[str, str], name: str, default: str) -> str:
    value = env.get(name, default).strip()
    if not value:
        raise ConfigError(f"{name} must not be empty")
    return value


@dataclass(frozen=True)
class JobSettings:
    """Validation jobs (``services.jobs``): waits, leases, deadlines, bulk limits. Seconds unless named."""

    batch_wait: int = 25  # BATCH_SYNC_WAIT_SECONDS: a batch answers 200 if done by then, else 202
    single_wait: int = 70  # VALIDATE_WAIT_SECONDS: longest wait of POST /validate (above SMTP_DEADLINE)
    lease: int = 120  # JOB_LEASE_SECONDS: a claimed group is taken over after this (worker died)
    requeue_after: int = 300  # JOB_REQUEUE_SECONDS: a sent but unclaimed group is sent again after this
    sweep_interval: int = 15  # JOB_SWEEP_SECONDS: beat period of the job sweeper
    batch_deadline: int = 900  # JOB_DEADLINE_SECONDS: retryTemporary retries stop here
    bulk_deadline: int = 86_400  # BULK_DEADLINE_SECONDS: the same for bulk lists
    window: int = 200  # JOB_WINDOW: groups of one job in lanes at once (bounds what one list queues)
    sessions_per_mx_host: int = 3  # SMTP_SESSIONS_PER_MX_HOST: across all workers (Redis leases)
    min_session_interval_ms: int = 250  # SMTP_MIN_SESSION_INTERVAL_MS: between new sessions to one MX IP
    backoff_seconds: int = 30  # SMTP_BACKOFF_SECONDS: no new session to an MX IP after a 421 or slow replies
    backoff_max_seconds: int = 600  # SMTP_BACKOFF_MAX_SECONDS: the backoff doubles per complaint up to this
    slow_reply_seconds: int = 5  # SMTP_SLOW_REPLY_SECONDS: a reply slower than this is a complaint
    lane_turn: int = 30  # LANE_TURN_SECONDS: a worker drains one lane this long, then lets others have a turn
    catch_all_ttl: int = 21_600  # CATCH_ALL_TTL_SECONDS: a domain's catch-all verdict is reused this long
    bulk_max_body_bytes: int = 256 * 1024 * 1024  # BULK_MAX_BODY_BYTES: bulk uploads only
    bulk_max_addresses: int = 2_000_000  # BULK_MAX_ADDRESSES
    allow_test_domains: bool = False  # ALLOW_TEST_DOMAINS: *.test addresses (the mail lab); never production
    # RECENT_VERDICT_MAX_AGE: ``options.maxAge`` of a request naming none (0: every validation checks live)
    recent_max_age: int = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, production: bool) -> JobSettings:
        d = cls()

        def number(name: str, default: int, minimum: int = 1) -> int:
            return parse_int(name, env.get(name, str(default)), minimum=minimum)

        allow_test = parse_bool("ALLOW_TEST_DOMAINS", env.get("ALLOW_TEST_DOMAINS", "false"))
        if allow_test and production:
            raise ConfigError("ALLOW_TEST_DOMAINS=true is refused when APP_ENV=production")
        return cls(
            batch_wait=number("BATCH_SYNC_WAIT_SECONDS", d.batch_wait, 0),
            single_wait=number("VALIDATE_WAIT_SECONDS", d.single_wait),
            lease=number("JOB_LEASE_SECONDS", d.lease),
            requeue_after=number("JOB_REQUEUE_SECONDS", d.requeue_after),
            sweep_interval=number("JOB_SWEEP_SECONDS", d.sweep_interval),
            batch_deadline=number("JOB_DEADLINE_SECONDS", d.batch_deadline),
            bulk_deadline=number("BULK_DEADLINE_SECONDS", d.bulk_deadline),
            window=number("JOB_WINDOW", d.window),
            sessions_per_mx_host=number("SMTP_SESSIONS_PER_MX_HOST", d.sessions_per_mx_host),
            min_session_interval_ms=number("SMTP_MIN_SESSION_INTERVAL_MS", d.min_session_interval_ms, 0),
            backoff_seconds=number("SMTP_BACKOFF_SECONDS", d.backoff_seconds),
            backoff_max_seconds=number("SMTP_BACKOFF_MAX_SECONDS", d.backoff_max_seconds),
            slow_reply_seconds=number("SMTP_SLOW_REPLY_SECONDS", d.slow_reply_seconds),
            lane_turn=number("LANE_TURN_SECONDS", d.lane_turn),
            catch_all_ttl=number("CATCH_ALL_TTL_SECONDS", d.catch_all_ttl, 0),
            bulk_max_body_bytes=number("BULK_MAX_BODY_BYTES", d.bulk_max_body_bytes),
            bulk_max_addresses=number("BULK_MAX_ADDRESSES", d.bulk_max_addresses),
            allow_test_domains=allow_test,
            recent_max_age=_recent_max_age(env),
        )


def _recent_max_age(env: Mapping[str, str]) -> int:
    seconds = parse_int("RECENT_VERDICT_MAX_AGE", env.get("RECENT_VERDICT_MAX_AGE", "0"), minimum=0)
    _within("RECENT_VERDICT_MAX_AGE", seconds, MAX_AGE_RANGE)
    return seconds


# The time budget a web page may ask of ``POST /validate/browser``, in seconds (``BrowserSettings.timeout``
# is the default within it). A form waits on the answer; past a few seconds it should go on without one.
BROWSER_TIMEOUT_RANGE = (1.0, 10.0)
# ``options.timeout`` of ``POST /validate``: a budget a server may set for its answer; without one the
# request waits up to VALIDATE_WAIT_SECONDS and is accepted (202) past it.
VALIDATE_TIMEOUT_RANGE = (1.0, 60.0)
VERDICT_TOKEN_RANGE = (10, 3600)
# ``options.maxAge``, seconds: how old a recent verdict may be to answer again. At most 30 days: mailboxes
# close every month, and an older verdict says little.
MAX_AGE_RANGE = (0, 30 * 86_400)


# The verdict-token key derived from SECRET_KEY has this id: it seals tokens until VERDICT_TOKEN_KEYS names
# keys of its own, and written alone there it keeps reading the tokens it sealed while a new key takes over.
DERIVED_TOKEN_KEY_ID = "default"  # noqa: S105 - a key's name, not a secret
_TOKEN_KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


@dataclass(frozen=True)
class TokenKey:
    """A verdict-token key: the id written into each token it seals, and its secret (None: the key is
    derived from SECRET_KEY)."""

    id: str
    secret: str | None = field(default=None, repr=False)


def parse_token_keys(raw: str) -> tuple[TokenKey, ...]:
    """VERDICT_TOKEN_KEYS: comma-separated ``id:secret``; the first seals new tokens, every one reads them
    back. Empty: the key derived from SECRET_KEY. Messages name an entry by its place and id, never its
    secret."""
    if not raw.strip():
        return (TokenKey(DERIVED_TOKEN_KEY_ID),)
    keys = tuple(_token_key(place, entry.strip()) for place, entry in enumerate(raw.split(","), 1))
    first_place: dict[str, int] = {}
    for place, key in enumerate(keys, 1):
        if key.id in first_place:
            raise ConfigError(
                f"VERDICT_TOKEN_KEYS entry {place} repeats the id {key.id!r} of entry {first_place[key.id]}: "
                "each key needs an id of its own, since tokens name the key that sealed them by its id"
            )
        first_place[key.id] = place
    return keys


def _token_key(place: int, entry: str) -> TokenKey:
    name = f"VERDICT_TOKEN_KEYS entry {place}"
    key_id, colon, secret = entry.partition(":")
    key_id = key_id.strip()
    if not colon and key_id == DERIVED_TOKEN_KEY_ID:
        return TokenKey(DERIVED_TOKEN_KEY_ID)
    if not colon:  # the text may be a secret written without its id: never echoed
        raise ConfigError(
            f"{name} must be id:secret (only {DERIVED_TOKEN_KEY_ID!r}, the key derived from SECRET_KEY, "
            "stands alone)"
        )
    if not _TOKEN_KEY_ID.fullmatch(key_id):
        raise ConfigError(f"{name} must start with an id of 1 to 32 letters, digits, '-' or '_', then ':'")
    if key_id == DERIVED_TOKEN_KEY_ID:
        raise ConfigError(
            f"{name}: {DERIVED_TOKEN_KEY_ID!r} is the id of the key derived from SECRET_KEY and takes no "
            "secret; give your own keys other ids"
        )
    if len(secret.strip()) < SECRET_KEY_MIN_LENGTH:
        raise ConfigError(
            f"{name} ({key_id!r}): the secret must be at least {SECRET_KEY_MIN_LENGTH} characters, e.g. "
            "from secrets.token_urlsafe(32)"
        )
    return TokenKey(key_id, secret.strip())


@dataclass(frozen=True)
class BrowserSettings:
    """Validation from web pages (``services.browser``)."""

    timeout: float = 3.0  # BROWSER_TIMEOUT_SECONDS: the answer's time budget when the page names none
    token_lifetime: int = 900  # VERDICT_TOKEN_SECONDS: how long a verdict token may be confirmed
    visitor_per_minute: int = 10  # BROWSER_VISITOR_PER_MINUTE: answers per visitor network and minute
    key_share_percent: int = 50  # BROWSER_KEY_SHARE_PERCENT: of the plan's per-minute limit, per key
    # VERDICT_TOKEN_KEYS: the first seals verdict tokens, all read them (``services.browser.tokens``)
    token_keys: tuple[TokenKey, ...] = (TokenKey(DERIVED_TOKEN_KEY_ID),)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> BrowserSettings:
        d = cls()
        timeout = parse_seconds("BROWSER_TIMEOUT_SECONDS", env.get("BROWSER_TIMEOUT_SECONDS", str(d.timeout)))
        lifetime = parse_int("VERDICT_TOKEN_SECONDS", env.get("VERDICT_TOKEN_SECONDS", str(d.token_lifetime)))
        share = parse_int("BROWSER_KEY_SHARE_PERCENT", env.get("BROWSER_KEY_SHARE_PERCENT", "50"), minimum=1)
        _within("BROWSER_TIMEOUT_SECONDS", timeout, BROWSER_TIMEOUT_RANGE)
        _within("VERDICT_TOKEN_SECONDS", lifetime, VERDICT_TOKEN_RANGE)
        _within("BROWSER_KEY_SHARE_PERCENT", share, (1, 100))
        visitors = env.get("BROWSER_VISITOR_PER_MINUTE", str(d.visitor_per_minute))
        return cls(
            timeout,
            lifetime,
            parse_int("BROWSER_VISITOR_PER_MINUTE", visitors, minimum=1),
            share,
            parse_token_keys(env.get("VERDICT_TOKEN_KEYS", "")),
        )


def _within(name: str, value: float, bounds: tuple[float, float]) -> None:
    if not bounds[0] <= value <= bounds[1]:
        raise ConfigError(f"{name} must be between {bounds[0]:g} and {bounds[1]:g}, got {value:g}")


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
    # PUBLIC_BASE_URL: the base of every URL the service writes, unless the request came through a custom
    # domain its caller's reseller verified (``services.links``); a client's Host header never is one.
    base_url: str
    redis_key_prefix: str
    # REDIS_MAX_CONNECTIONS: per process; a probe worker's lanes each hold one while they wait for a wake-up
    redis_max_connections: int
    # AES-256-GCM key sealing auto-rotated secrets until their owner reveals them (services.keys.sealed).
    key_sealing_key: bytes = field(repr=False)
    # Signs the dashboard's session cookie and CSRF tokens (web.dashboard).
    secret_key: str = field(repr=False)
    # DATABASE_POOL_SIZE: Postgres connections one process may hold at once (``models.session``); more
    # callers wait for one. No code path holds two, so any size of at least one cannot deadlock.
    database_pool_size: int = 15
    # REDIS_SOCKET_TIMEOUT: the deadline of every Redis connect and reply. Blocking commands wait at most
    # ``BLOCKING_SLICE`` at a time, so it must leave room above that.
    redis_socket_timeout: float = 5.0
    # Where gunicorn listens (BIND_ADDRESS): loopback, so only a proxy on the same host reaches the app;
    # 0.0.0.0 inside a container, whose published port the host then fences.
    bind_address: str = "127.0.0.1"
    # CA bundle webhook deliveries trust (REQUESTS_CA_BUNDLE, the name requests users know); None: certifi's.
    webhook_ca_bundle: str | None = None
    # CA bundle the mail relay's certificate is checked against (MAIL_CA_BUNDLE); None: the system store.
    mail_ca_bundle: str | None = None
    jobs: JobSettings = field(default_factory=JobSettings)
    # Finished webhook deliveries, their events and sent/failed emails are deleted after this many days.
    outbox_retention_days: int = 30
    # Requests without a valid key (failed authentications, unknown routes), per client IP (an IPv6
    # client by its /64): ANONYMOUS_REQUESTS_PER_MINUTE and _PER_DAY (``services.usage.rate_limits``).
    anonymous_per_minute: int = 60
    anonymous_per_day: int = 2000
    # Sub-users a reseller may open until the operator sets its terms (RESELLER_MAX_SUB_USERS).
    reseller_max_sub_users: int = 25
    # Dashboard sign-ups, and password-reset requests, per client network and hour (SIGN_UPS_PER_HOUR).
    sign_ups_per_hour: int = 10
    # Who results name when no reseller's white-label applies (``services.branding``).
    brand: ServiceBrand = field(default_factory=ServiceBrand)
    browser: BrowserSettings = field(default_factory=BrowserSettings)
    # SMTP_EGRESS: where probes leave from (``verifier/egress.py``); read here too so that a malformed entry
    # stops every process at start-up, not its first probe. The engine's config reads the same variable.
    smtp_egress: tuple[Egress, ...] = (DIRECT,)
    # SNS_CERTIFICATE_DIR: SNS signing certificates read from this directory (by the file name of the
    # message's SigningCertURL) instead of fetched from it; the URL's host must still be SNS's own
    # (``services.suppression.sns``). For air-gapped hosts and for tests with their own CA.
    sns_certificate_dir: str | None = None
    # OPERATOR_TOKEN_SHA256: the SHA-256 (hex) of the token that makes GET /health the operator's answer
    # (the egress pool with its counters); empty: no operator answer (``services.health.operator``)
    operator_token_sha256: str = field(default="", repr=False)

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
        base_url = parse_base_url(env, f"http://127.0.0.1:{port}")
        return cls(
            database_url=env.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/verimail"),
            redis_url=env.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            app_env=app_env,
            port=port,
            bind_address=parse_bind_address(env.get("BIND_ADDRESS", "127.0.0.1")),
            trusted_proxies=parse_int("TRUSTED_PROXIES", env.get("TRUSTED_PROXIES", "0")),
            webhook_allow_loopback=allow_loopback,
            max_body_bytes=parse_int(
                "MAX_BODY_BYTES", env.get("MAX_BODY_BYTES", str(1024 * 1024)), minimum=1
            ),
            mail_smtp_url=env.get("MAIL_SMTP_URL", "smtp://127.0.0.1:1025"),
            mail_from=env.get("MAIL_FROM", "verimail <no-reply@verimail.localhost>"),
            base_url=base_url,
            redis_key_prefix=env.get("REDIS_KEY_PREFIX", "vm:"),
            redis_max_connections=parse_int(
                "REDIS_MAX_CONNECTIONS", env.get("REDIS_MAX_CONNECTIONS", "1000"), minimum=10
            ),
            redis_socket_timeout=parse_redis_timeout(env.get("REDIS_SOCKET_TIMEOUT", "5")),
            database_pool_size=parse_int(
                "DATABASE_POOL_SIZE", env.get("DATABASE_POOL_SIZE", "15"), minimum=1
            ),
            webhook_ca_bundle=env.get("REQUESTS_CA_BUNDLE", "").strip() or None,
            mail_ca_bundle=parse_ca_bundle("MAIL_CA_BUNDLE", env.get("MAIL_CA_BUNDLE", "")),
            key_sealing_key=parse_sealing_key(env.get("KEY_SEALING_KEY"), app_env),
            secret_key=parse_secret_key(env.get("SECRET_KEY"), app_env),
            outbox_retention_days=parse_int(
                "OUTBOX_RETENTION_DAYS", env.get("OUTBOX_RETENTION_DAYS", "30"), minimum=1
            ),
            anonymous_per_minute=parse_int(
                "ANONYMOUS_REQUESTS_PER_MINUTE", env.get("ANONYMOUS_REQUESTS_PER_MINUTE", "60"), minimum=1
            ),
            anonymous_per_day=parse_int(
                "ANONYMOUS_REQUESTS_PER_DAY", env.get("ANONYMOUS_REQUESTS_PER_DAY", "2000"), minimum=1
            ),
            reseller_max_sub_users=parse_int(
                "RESELLER_MAX_SUB_USERS", env.get("RESELLER_MAX_SUB_USERS", "25"), minimum=0
            ),
            sign_ups_per_hour=parse_int("SIGN_UPS_PER_HOUR", env.get("SIGN_UPS_PER_HOUR", "10"), minimum=1),
            jobs=JobSettings.from_env(env, production=app_env == "production"),
            brand=ServiceBrand.from_env(env, base_url),
            browser=BrowserSettings.from_env(env),
            smtp_egress=parse_egress_pool(env.get("SMTP_EGRESS", "")),
            sns_certificate_dir=parse_directory("SNS_CERTIFICATE_DIR", env.get("SNS_CERTIFICATE_DIR", "")),
            operator_token_sha256=parse_sha256("OPERATOR_TOKEN_SHA256", env.get("OPERATOR_TOKEN_SHA256", "")),
        )


def parse_sha256(name: str, raw: str) -> str:
    """A SHA-256 in hex (64 digits, stored lower-case), or empty."""
    text = raw.strip().lower()
    if text and not re.fullmatch(r"[0-9a-f]{64}", text):
        raise ConfigError(f"{name} must be a SHA-256 in hex (64 digits), e.g. from `sha256sum`")
    return text


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings; tests that change the environment call ``get_settings.cache_clear()``."""
    return Settings.from_env()


def main() -> int:
    """``python -m settings``: check the environment as every process will read it (a deployment's release
    step runs it first); exit 1 with the reason when a setting is missing or malformed."""
    try:
        Settings.from_env()
    except ConfigError as error:
        sys.stderr.write(f"configuration refused: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
