"""quickMode charges and records in one transaction: a validation is stored exactly when it is charged."""

from __future__ import annotations

from datetime import datetime

from flask.testing import FlaskClient

from models.accounts import Tier
from models.jobs import ValidationJob
from tests.fixtures.db import open_persona
from tests.limits.helpers import count_rows, fill, usage_of, validate


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
