"""Usage: the numbers of ``GET /api/usage`` (the same report, the same schema), and validations per day."""

from __future__ import annotations

from services.usage import daily
from services.usage.report import usage_report
from web.dashboard import forms, present, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.usage import UsageOut


@bp.get("/usage")
@sign_in_required
def usage() -> tuple[str, int, dict[str, str]]:
    account = session.actor().account
    period, days = daily.validations_per_day(account)
    report = UsageOut.of(usage_report(account))
    chart = present.chart(period, days)
    return forms.render("usage.html", usage=report, days=days, chart=chart, present=present)
