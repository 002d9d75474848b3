"""Usage: plans, the monthly quota, rate limits, billing periods and the usage report.

Public API, by module:
- ``plans``: the tiers of spec 8.1 and their limits (``plan_for``)
- ``charging``: ``charge_validations`` (the one way usage grows), ``current_status``
- ``sandbox``: test mode's usage, counted apart and never charged (``count_validations``, ``status``)
- ``quota`` (states of spec 3.2), ``quota_events`` (its three events), ``periods`` (billing windows),
  ``period_close`` (the beat sweep closing ended periods)
- ``rate_limits``: per-minute and per-day windows in Redis; ``recent_errors`` counts error answers
- ``report``: ``usage_report`` (``GET /api/usage``); ``errors``
"""
