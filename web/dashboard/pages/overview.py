"""Overview: plan, quota gauge (80/100/120%), validations per day, rate headroom, keys due for rotation."""

from __future__ import annotations

from core import clock
from models.accounts import Tier
from services.keys import lifecycle
from services.usage import daily
from services.usage.plans import PLANS
from services.usage.report import usage_report
from web.dashboard import forms, present, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.usage import UsageOut


@bp.get("/")
@sign_in_required
def overview() -> tuple[str, int, dict[str, str]]:
    actor = session.actor()
    report = usage_report(actor.account)
    period, days = daily.validations_per_day(actor.account)
    now, keys = clock.now(), lifecycle.list_keys(actor)
    return forms.render(
        "overview.html",
        usage=UsageOut.of(report),
        account_id=actor.account.id,
        requested=PLANS[Tier(actor.account.requested_tier)] if actor.account.requested_tier else None,
        gauge=present.Gauge.of(report.quota),
        marks=present.GAUGE_MARKS,
        chart=present.chart(period, days),
        present=present,
        total=sum(day.validations for day in days),
        nearing=[(key, present.days_to_rotation(key, now)) for key in present.nearing_rotation(keys, now)],
        has_keys=bool(keys),
    )
