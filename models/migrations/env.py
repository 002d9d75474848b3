"""Alembic environment: the URL comes from settings (one config contract), metadata from ``models``."""

from __future__ import annotations

import importlib
import pkgutil
from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine, pool

import models
from models import Base
from models.session import database_url

# Import every module of the package, so a new models file is compared and migrated even if nobody
# remembered to import it in models/__init__.py.
for module in pkgutil.iter_modules(models.__path__):
    importlib.import_module(f"models.{module.name}")

config = context.config
# Tests run migrations in-process; they pass their own logging, so only configure it from the ini file
# when Alembic runs as a command.
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def run_migrations_online() -> None:
    engine = create_engine(database_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata, compare_type=True)
        with context.begin_transaction():
            context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(url=database_url(), target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
