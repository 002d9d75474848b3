"""The declarative base: one naming convention for constraints, timestamps from the service clock."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import DateTime, MetaData, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from core import clock

# Named constraints make Alembic migrations reproducible: autogenerate and hand-written downgrades refer to
# the same names on every database.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: DateTime(timezone=True)}


class Timestamped:
    """created_at/updated_at set from ``core.clock`` so tests that move time see it in the rows."""

    created_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        default=clock.now, onupdate=clock.now, server_default=func.now()
    )
