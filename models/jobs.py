"""Validation jobs: every validation (single, batch, bulk list) is a job; Postgres is its record.

Three tables, one per grain of work:

- ``validation_jobs``: what the client asked for and how far it got (counters the workers add to).
- ``job_items``: one row per submitted entry (a CSV list's blank rows too), in submission order; its result
  once settled. A duplicate address keeps its own row (``duplicate_of`` names the first) but is probed and
  charged once: settling an email settles every pending row holding it.
- ``job_groups``: the unit of work the workers claim: up to one SMTP session's worth of distinct addresses
  of one domain, with a lease (``lease_until``) so a killed worker's group is taken over by the sweeper,
  and ``next_attempt_at`` for greylisted addresses retried later.

The broker only carries "look at group N"; the states here decide whether there is anything to do, which
is what makes a redelivered or duplicated message harmless.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Identity, Index, Integer, SmallInteger, String, Text, true
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class JobKind(StrEnum):
    SINGLE = "single"
    BATCH = "batch"
    BULK = "bulk"


class JobStatus(StrEnum):
    """``uploading`` is a bulk list being received (not charged yet); the rest are what clients see."""

    UPLOADING = "uploading"
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED)


class ItemState(StrEnum):
    NEW = "new"  # stored, not parsed yet (bulk lists are parsed by a worker)
    PENDING = "pending"  # parsed, waiting for its domain group
    INTERIM = "interim"  # answered for now (a temporary failure, unknown) and retried in the background
    DONE = "done"  # result written
    BLANK = "blank"  # a CSV row without an address: kept for the download, never validated or charged


class GroupState(StrEnum):
    PENDING = "pending"  # not sent to the broker (or sent back after a lost message / greylisting)
    QUEUED = "queued"  # a message was sent at ``enqueued_at``
    RUNNING = "running"  # claimed by a worker until ``lease_until``
    DONE = "done"
    CANCELLED = "cancelled"


class ValidationJob(Base):
    __tablename__ = "validation_jobs"
    __table_args__ = (
        Index("ix_validation_jobs_account_id_created_at", "account_id", "created_at"),
        # One job per client Idempotency-Key, account and mode; the sweeper clears keys older than 24 h.
        Index(
            "uq_validation_jobs_account_id_idempotency_key",
            "account_id",
            "livemode",
            "idempotency_key",
            unique=True,
            postgresql_where="idempotency_key IS NOT NULL",
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    # "val_"/"bat_"/"blk_" + 96 random bits: the id clients see; numeric ids never leave the service.
    public_id: Mapped[str] = mapped_column(String(40), unique=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    # The key that submitted the job, kept after the key is deleted as audit entries keep it (ids are never
    # reused). No foreign key: every concurrent job of a key share-locked its one row (docs/decisions.md).
    key_id: Mapped[int | None] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSONB)
    source: Mapped[str | None] = mapped_column(Text)  # bulk: "csv" or "json"
    # Bulk: the uploaded file's name (the dashboard's upload; the API's raw body has none), so people find
    # and download a list by the name they gave it rather than its id.
    file_name: Mapped[str | None] = mapped_column(Text)
    total: Mapped[int] = mapped_column(Integer, default=0)
    processed: Mapped[int] = mapped_column(Integer, default=0)
    valid: Mapped[int] = mapped_column(Integer, default=0)
    warning: Mapped[int] = mapped_column(Integer, default=0)
    invalid: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    planned_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # Greylisted addresses are retried until here, then settled as unknown.
    deadline: Mapped[datetime]
    # The client's ``Idempotency-Key`` and a digest of what it was sent with (a reuse must match it).
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    request_digest: Mapped[str | None] = mapped_column(String(64))
    # Enough groups probed and not one MX answered: our outbound SMTP is down, not the domains.
    checker_degraded: Mapped[bool] = mapped_column(default=False)
    # A CSV list's header as uploaded (None: no header row, or a JSON list), widened to its widest row.
    columns: Mapped[list[str] | None] = mapped_column(JSONB)
    # False for a test-mode job: answered by the sandbox engine, never charged, seen only by test keys.
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())


class JobItem(Base):
    __tablename__ = "job_items"
    __table_args__ = (Index("ix_job_items_job_id_email", "job_id", "email"),)

    job_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("validation_jobs.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    input: Mapped[str] = mapped_column(Text)
    email: Mapped[str | None] = mapped_column(Text)
    domain: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(8))
    score: Mapped[int | None] = mapped_column(SmallInteger)
    severity: Mapped[str | None] = mapped_column(String(8))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # ``verifier.dedupe.address_key`` of the input; rows sharing it are one address, charged once.
    key: Mapped[str | None] = mapped_column(Text)
    duplicate_of: Mapped[int | None] = mapped_column(Integer)  # position of the first row with this key
    cells: Mapped[list[str] | None] = mapped_column(JSONB)  # a CSV row's cells (None: just the address)


class JobGroup(Base):
    __tablename__ = "job_groups"
    __table_args__ = (
        Index("ix_job_groups_job_id_state", "job_id", "state"),
        # The sweeper's question: which unfinished groups are due, stale or abandoned?
        Index("ix_job_groups_open", "state", postgresql_where="state IN ('pending', 'queued', 'running')"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    job_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("validation_jobs.id", ondelete="CASCADE"))
    domain: Mapped[str] = mapped_column(Text)
    emails: Mapped[list[str]] = mapped_column(ARRAY(Text))
    state: Mapped[str] = mapped_column(String(12))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime]
    enqueued_at: Mapped[datetime | None]
    lease_until: Mapped[datetime | None]
    # The token of the lane hold a running group was claimed under (``services.probing.upkeep.holds``): while
    # that hold lives in Redis the claim's worker is alive; once it is gone the sweeper takes the group back.
    held_by: Mapped[str | None] = mapped_column(Text)
    finished_at: Mapped[datetime | None]
    # Set when probed: True when no MX host said a word. An unreachable group keeps its engine outcome
    # (``outcome``) so its results can be re-assembled as "checker degraded" once the job looks degraded.
    unreachable: Mapped[bool | None]
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSONB)


class RecentVerdict(Base):
    """An account's latest final verdict on an address, for answering it again without probing
    (``options.maxAge``): which item holds it and when it was made. One row per account, address and
    ``variant`` (what shapes a result: quickMode, skipCatchAll and the plan's checks), replaced by each newer
    final verdict; the result itself stays in its item, the record. Answers drawn from a verdict are never
    written here, so a verdict's age is that of its check."""

    __tablename__ = "recent_verdicts"

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    variant: Mapped[str] = mapped_column(String(32), primary_key=True)
    email: Mapped[str] = mapped_column(Text, primary_key=True)  # normalised, as items hold it
    checked_at: Mapped[datetime]
    # The item holding the verdict. No foreign key: deleting a job would then search this table for its
    # items (an index more to write on every verdict); a verdict whose item is gone is simply not found.
    job_id: Mapped[int] = mapped_column(BigInteger)
    position: Mapped[int] = mapped_column(Integer)
