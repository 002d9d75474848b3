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
    _period, days = daily.validations_per_day(account)
    bars, peak = present.chart(days)
    report = UsageOut.of(usage_report(account))
    return forms.render("usage.html", usage=report, days=days, bars=bars, peak=peak, chart=present)
