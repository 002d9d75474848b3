"""Monitored lists: a finished bulk list kept and re-checked on a schedule, each re-check a run.

- ``monitored_lists``: the list, its schedule (weekly or monthly) and when it is next due.
- ``monitor_runs``: one re-check; its work is an ordinary bulk job (``job_id``), compared with the job of
  the run before it (``baseline_job_id``: the kept list itself for the first run).
- ``monitor_changes``: one row per address whose severity or reason changed in a run; its primary key
  (run, first row of the address) is what makes ``address.changed`` fire exactly once per change.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Identity, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class Schedule(StrEnum):
    WEEKLY = "weekly"
    MONTHLY = "monthly"


class RunStatus(StrEnum):
    STARTING = "starting"  # its job is stored, not yet charged and opened to the workers
    RUNNING = "running"  # its job is with the workers
    COMPLETED = "completed"  # compared with the run before; its events are emitted
    SKIPPED = "skipped"  # not run: the quota refused it (``reason``)


class MonitoredList(Base):
    __tablename__ = "monitored_lists"
    __table_args__ = (
        Index("ix_monitored_lists_account_id", "account_id"),
        # The beat sweep's question: which active lists are due?
        Index("ix_monitored_lists_due", "next_run_at", postgresql_where="NOT paused"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True)  # "mon_" + 96 random bits
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    livemode: Mapped[bool]
    # A finished list is kept once: a second request for it meets this unique key.
    source_job_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("validation_jobs.id", ondelete="CASCADE"), unique=True
    )
    name: Mapped[str] = mapped_column(Text)
    addresses: Mapped[int] = mapped_column(Integer)  # distinct addresses: what each run is charged
    schedule: Mapped[str] = mapped_column(String(8))
    paused: Mapped[bool] = mapped_column(default=False)
    next_run_at: Mapped[datetime]
    created_at: Mapped[datetime] = mapped_column(default=clock.now)


class MonitorRun(Base):
    __tablename__ = "monitor_runs"
    __table_args__ = (UniqueConstraint("list_id", "number"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    list_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("monitored_lists.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, ... per list; two sweeps cannot both make run n
    # The run's bulk job; NULL once a refused charge deleted it (a skipped run).
    job_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("validation_jobs.id", ondelete="SET NULL"), unique=True
    )
    baseline_job_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("validation_jobs.id", ondelete="CASCADE")
    )
    status: Mapped[str] = mapped_column(String(12))
    reason: Mapped[str | None] = mapped_column(Text)
    total: Mapped[int] = mapped_column(Integer, default=0)  # distinct addresses compared
    changed: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    finished_at: Mapped[datetime | None]


class MonitorChange(Base):
    __tablename__ = "monitor_changes"

    run_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("monitor_runs.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)  # the address's first row
    email: Mapped[str] = mapped_column(Text)
    previous_severity: Mapped[str | None] = mapped_column(String(8))
    previous_reason: Mapped[str | None] = mapped_column(Text)
    severity: Mapped[str | None] = mapped_column(String(8))
    reason: Mapped[str | None] = mapped_column(Text)
