"""Monitored lists: keep a finished list, its schedule, its runs."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from models.monitoring import Schedule
from services import links
from services.monitoring.lists import Changes, Monitored, Run
from web.schemas.base import LIVEMODE_DATA, Body, Out, Timestamp
from web.schemas.inputs import patterned

JOB_ID = r"^blk_[0-9a-f]{24}$"
JobId = Annotated[str, *patterned(JOB_ID, "{field} must be a bulk list's id (blk_...).", max_length=40)]
ScheduleName = Literal["weekly", "monthly"]


class KeepListBody(Body):
    job_id: JobId = Field(description="a completed bulk list (blk_...) of this account and mode")
    schedule: ScheduleName


class UpdateMonitoredListBody(Body):
    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    schedule: ScheduleName | None = None
    paused: bool | None = None

    @model_validator(mode="after")
    def something_to_change(self) -> UpdateMonitoredListBody:
        if not self.model_fields_set:
            raise ValueError("Send at least one of schedule, paused.")
        return self

    def to_changes(self) -> Changes:
        return Changes(Schedule(self.schedule) if self.schedule else None, self.paused)


class RunOut(Out):
    number: int
    status: str = Field(description="starting, running, completed, or skipped (see reason)")
    reason: str | None = Field(description="why a run was skipped (the quota refused it)")
    job_id: str | None = Field(description="the run's bulk list (blk_); null for a skipped run")
    total: int = Field(description="distinct addresses compared (once completed)")
    changed: int
    created_at: Timestamp
    finished_at: Timestamp | None
    diff_url: str | None = Field(description="the changed rows, once completed")

    @classmethod
    def of(cls, list_id: str, each: Run) -> RunOut:
        run = each.run
        done = run.status == "completed"
        return cls(
            number=run.number,
            status=run.status,
            reason=run.reason,
            job_id=each.job,
            total=run.total,
            changed=run.changed,
            created_at=run.created_at,
            finished_at=run.finished_at,
            diff_url=links.diff_url(list_id, run.number) if done else None,
        )


class MonitoredListOut(Out):
    id: str
    name: str
    job_id: str = Field(description="the bulk list kept")
    schedule: str
    paused: bool
    next_run_at: Timestamp
    created_at: Timestamp
    runs: list[RunOut] = Field(description="newest first")
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, monitored: Monitored) -> MonitoredListOut:
        kept = monitored.kept
        return cls(
            id=kept.public_id,
            name=kept.name,
            job_id=monitored.source,
            schedule=kept.schedule,
            paused=kept.paused,
            next_run_at=kept.next_run_at,
            created_at=kept.created_at,
            runs=[RunOut.of(kept.public_id, run) for run in monitored.runs],
            livemode=kept.livemode,
        )


class MonitoredListsOut(Out):
    data: list[MonitoredListOut]
    livemode: bool = Field(description=LIVEMODE_DATA)


class DeletedMonitoredListOut(Out):
    id: str
    deleted: bool = True
    livemode: bool = Field(description=LIVEMODE_DATA)
