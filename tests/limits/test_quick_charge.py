"""quickMode charges and records in one transaction: a validation is stored exactly when it is charged."""

from __future__ import annotations

from datetime import datetime

from flask.testing import FlaskClient
from sqlalchemy import select

from models.accounts import Account, Tier
from models.jobs import JobItem, JobKind, ValidationJob
from models.session import transaction
from services.jobs import store
from services.jobs.options import JobOptions
from services.usage import charging
from services.usage.charging import charge_validations
from services.validation.quick import quick_result
from tests.fixtures.db import open_persona
from tests.limits.helpers import count_rows, fill, load_account, usage_of, validate


def test_a_quick_validation_is_charged_and_recorded_together(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)

    answer = validate(client, growth.headers)  # quickMode, judged by syntax alone

    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["isValid"] is False
    assert usage_of(client, growth.headers)["quota"]["used"] == 1
    assert count_rows(ValidationJob, growth.account_id) == 1


def test_a_quick_validation_refused_by_the_quota_is_neither_charged_nor_recorded(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 6_000)  # the hard limit (120% of 5,000)

    answer = validate(client, growth.headers)  # quickMode, judged by syntax alone

    assert answer.status_code == 429, answer.get_json()
    assert usage_of(client, growth.headers)["quota"]["used"] == 6_000
    assert count_rows(ValidationJob, growth.account_id) == 0


def test_a_charge_key_replayed_on_the_one_statement_path_counts_once_and_the_connection_stays_usable(
    at_instant: datetime,
) -> None:
    growth = open_persona(Tier.GROWTH)
    account = load_account(growth.account_id)
    charge_validations(account, 1, "opens-the-period")  # a period's first charge takes the transaction

    first = _in_one_statement(account, "request-1")
    replayed = _in_one_statement(account, "request-1")  # the claim's unique index undoes the statement
    next_one = _in_one_statement(account, "request-2")  # same pooled connection

    assert (first, replayed, next_one) == (2, None, 3)
    assert count_rows(ValidationJob, growth.account_id) == 2  # the replay's job was undone with its charge


def _in_one_statement(account: Account, charge_key: str) -> int | None:
    """What a quick validation charged under ``charge_key`` left used, by the one statement alone."""
    result = quick_result("not an address", JobOptions().engine)
    single = store.FinishedSingle(
        store.new_public_id(JobKind.SINGLE),
        account.id,
        None,
        JobOptions(),
        "not an address",
        result.to_dict(),
    )
    charge = charging.statement_charge(account, 1, charge_key)
    quota = store.charge_and_insert_finished_single(charge, single)
    return None if quota is None else quota.used


def test_the_one_statement_path_records_the_same_rows_as_the_full_one(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)

    first = validate(client, growth.headers)  # the period's first charge: the full transaction
    second = validate(client, growth.headers)  # the one statement

    assert (first.status_code, second.status_code) == (200, 200)
    assert first.get_json()["checks"] == second.get_json()["checks"]
    with transaction() as session:
        jobs = (
            session.execute(
                select(ValidationJob)
                .where(ValidationJob.account_id == growth.account_id)
                .order_by(ValidationJob.id)
            )
            .scalars()
            .all()
        )
        items = [
            session.execute(select(JobItem).where(JobItem.job_id == job.id)).scalar_one() for job in jobs
        ]
        shown = [
            (job.kind, job.status, job.total, job.processed, job.valid, job.warning, job.invalid, job.options)
            for job in jobs
        ]
        stored = [(i.position, i.input, i.email, i.state, i.score, i.severity, i.result) for i in items]
    assert shown[0] == shown[1] == ("single", "completed", 1, 1, 0, 0, 1, shown[0][-1])
    assert stored[0] == stored[1]
    assert stored[0][3:6] == ("done", 0, "invalid")
