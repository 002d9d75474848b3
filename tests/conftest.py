"""Root of the suite: shared fixtures live in ``tests/fixtures`` as plugins, one module per real service."""

pytest_plugins = [
    "tests.fixtures.lab",  # the mail lab: DNS on 127.0.0.1, SMTP servers on 127.0.0.x
    "tests.fixtures.db",  # a fresh Postgres database per run, migrated with Alembic
]
