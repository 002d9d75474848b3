"""What a publishable key can spend of its owner's: its budget, never the owner's servers' windows and never
billed overage. Anyone can replay a public key with any ``Origin``; these are the stories of a script doing
so, told from the owner's side."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask.testing import FlaskClient
from sqlalchemy import select

from core import clock
from models.accounts import Account, Tier
from models.session import transaction
from models.usage import UsageCharge
from tests.browser.helpers import form_key, page_asks, set_budget
from tests.fixtures.db import Persona, open_persona
from tests.limits.helpers import body, fill, usage_of, validate
from tests.limits.test_redis_restart import OwnRedis, own_redis

__all__ = ["own_redis"]
GROWTH_PER_MINUTE = 10
KEY_PER_MINUTE = 5  # the key's share of Growth's minute (``BROWSER_KEY_SHARE_PERCENT``)


def spend_the_day(client: FlaskClient, form: Persona, answers: int) -> None:
    """A script spends ``answers`` with the key, at the pace the key's minute throttle lets it."""
    for answered in range(answers):
        if answered and answered % KEY_PER_MINUTE == 0:
            clock.move(timedelta(minutes=1))
        assert page_asks(client, form).status_code == 200


def test_a_script_spending_the_keys_day_leaves_the_owners_servers_their_whole_allowance(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)  # 10 requests a minute, 167 a day
    form = form_key(owner)
    spend_the_day(client, form, 100)  # the default budget, in 20 minutes
    clock.move(timedelta(minutes=1))
    assert page_asks(client, form).status_code == 429

    own = [validate(client, owner.headers).status_code for _ in range(GROWTH_PER_MINUTE + 1)]

    assert own == [200] * GROWTH_PER_MINUTE + [429]  # the minute is all theirs, and only theirs
    usage = usage_of(client, owner.headers)
    assert (usage["rateLimit"]["usedThisMinute"], usage["rateLimit"]["usedToday"]) == (10, 10)
    assert (usage["quota"]["used"], usage["quota"]["usedByPublishableKeys"]) == (110, 100)


def test_the_owners_servers_past_their_minute_do_not_hold_the_page_back(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)
    form = form_key(owner)
    for _ in range(GROWTH_PER_MINUTE):
        assert validate(client, owner.headers).status_code == 200
    assert validate(client, owner.headers).status_code == 429

    answer = page_asks(client, form)

    assert answer.status_code == 200
    assert (body(answer)["verdict"], body(answer)["reason"]) == ("invalid", "syntax")
    assert (answer.headers["X-RateLimit-Limit"], answer.headers["X-RateLimit-Remaining"]) == ("100", "99")


def test_a_publishable_key_stops_at_the_quota_and_is_never_charged_overage(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)  # 5,000 a month, overage billed up to 6,000
    form = form_key(owner)
    assert set_budget(client, owner, form, daily=2).status_code == 200
    fill(owner.account_id, 4_999)
    assert page_asks(client, form).status_code == 200  # the 5,000th

    refused = page_asks(client, form)

    assert refused.status_code == 429
    error = body(refused)["error"]
    assert (error["code"], error["used"], error["limit"]) == ("RATE_LIMIT_EXCEEDED", 5_000, 5_000)
    assert "never answered into the billed overage buffer" in error["message"]
    assert refused.headers["Retry-After"] == str(error["retryAfter"])
    assert page_asks(client, form).status_code == 429
    assert validate(client, owner.headers).status_code == 200  # the owner's servers may go on into grace
    quota = usage_of(client, owner.headers)["quota"]
    assert (quota["used"], quota["inGracePeriod"], quota["usedByPublishableKeys"]) == (5_001, True, 1)
    with transaction() as session:
        charged = select(UsageCharge.validations).where(UsageCharge.publishable_key_id == form.key_id)
        assert list(session.scalars(charged)) == [1]

    upgrade(owner, Tier.PRO)  # room again: the refusals took nothing of the key's day of 2
    assert [page_asks(client, form).status_code for _ in range(2)] == [200, 429]


def upgrade(owner: Persona, tier: Tier) -> None:
    with transaction() as session:
        session.get_one(Account, owner.account_id).tier = tier


def test_a_redis_restart_rebuilds_the_keys_budget_and_not_the_owners_windows_with_it(
    at_instant: datetime, client: FlaskClient, own_redis: OwnRedis
) -> None:
    owner = open_persona(Tier.GROWTH)
    form = form_key(owner)
    assert set_budget(client, owner, form, daily=3, monthly=50).status_code == 200
    assert [page_asks(client, form).status_code for _ in range(2)] == [200, 200]
    assert validate(client, owner.headers).status_code == 200

    own_redis.stop()
    own_redis.start()

    assert [page_asks(client, form).status_code for _ in range(2)] == [200, 429]  # 2 were rebuilt
    usage = usage_of(client, owner.headers)
    assert (usage["rateLimit"]["usedThisMinute"], usage["rateLimit"]["usedToday"]) == (1, 1)
    assert usage["quota"]["used"] == 4
