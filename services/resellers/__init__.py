"""Enterprise Plus resellers (spec 1, 2.9, 4.9, 4.10): what a reseller does through the API.

- ``access.ensure_reseller``: only Enterprise Plus accounts may (PLAN_UPGRADE_REQUIRED otherwise);
- ``sub_users``: create, list, get, update (name, tier, suspend/reactivate), delete, usage;
- ``commissions.report``: a month's requests, revenue and commission per sub-user (``revenue``: the money
  rules); ``close_ended_months`` is the beat task that freezes ended months;
- ``white_label.get``/``put``: the reseller's brand (applied by ``services.branding``);
- ``custom_domains``: add, verify (DNS TXT challenge), list, get, delete (used by ``services.links``);
- ``terms.set_terms``: the operator's cap on sub-users and commission rate (CLI ``resellers set``).
"""
