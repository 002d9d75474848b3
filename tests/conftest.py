"""Root of the suite: shared fixtures live in ``tests/fixtures`` as plugins, one module per real service."""

import os
import secrets

# One Redis key prefix per run, set before any test module is imported: the Celery app (built at the first
# import of ``workers.celery_app``) and the Redis client read it then, so no message or key of a test run can
# land in the development namespace where a local worker would pick it up.
os.environ["REDIS_KEY_PREFIX"] = f"vmtest_{secrets.token_hex(6)}:"
# No test may ask the system resolver (it is not on loopback): by default the engine resolves through a
# loopback port where nothing listens, which answers "unknown" at once; lab tests point it at the lab DNS.
os.environ["DNS_NAMESERVERS"] = "127.0.0.1:9"
# Every test calls from 127.0.0.1, and many are refused on purpose: the anonymous windows of that one client
# would otherwise turn later refusals into 429s. tests/limits/test_anonymous_windows.py and
# tests/users/test_sign_up.py set their own.
os.environ.setdefault("ANONYMOUS_REQUESTS_PER_MINUTE", "1000000")
os.environ.setdefault("ANONYMOUS_REQUESTS_PER_DAY", "1000000")
os.environ.setdefault("SIGN_UPS_PER_HOUR", "1000000")  # the same one client signs up again and again

pytest_plugins = [
    "tests.fixtures.lab",  # the mail lab: DNS on 127.0.0.1, SMTP servers on 127.0.0.x
    "tests.fixtures.socks",  # SOCKS5 proxies (Debian's Dante) for probes over an egress
    "tests.fixtures.db",  # a fresh Postgres database per run, migrated with Alembic
]
