"""Reseller commissions: a month picker (default this month) over ``services.resellers.commissions.report``,
the body of ``GET /api/commissions``: each sub-user's requests, revenue and commission, totals, rate, and
whether the month is closed."""

from __future__ import annotations

from datetime import timedelta

from flask import request

from core import clock
from services.errors import InvalidField, NotFound
from services.resellers import commissions
from services.resellers.revenue import Month
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.resellers import reseller_required
from web.schemas.commissions import CommissionQuery, CommissionReportOut

Page = tuple[str, int, dict[str, str]]


@bp.get("/reseller/commissions")
@reseller_required
def reseller_commissions() -> Page:
    this_month = Month.containing(clock.now())
    asked = request.args.get("period") or None
    try:
        period = forms.as_model(CommissionQuery, {"period": asked}).period
        report = CommissionReportOut.of(commissions.report(session.actor(), period))
    # not a month (400), or not begun (the API answers 404): either way the picker stays usable
    except (InvalidField, NotFound) as error:
        return forms.render(
            "commissions.html", 400, report=None, error=error.message, asked=asked, latest=this_month.label
        )
    month = Month.parse(report.period)
    following = month.following()
    return forms.render(
        "commissions.html",
        report=report,
        asked=report.period,
        latest=this_month.label,
        previous=Month.containing(month.start - timedelta(days=1)).label,
        following=following.label if following.start <= this_month.start else None,
    )
