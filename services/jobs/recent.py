"""Recent verdicts: an address an account validated lately, answered again from that verdict
(``options.maxAge``) with no DNS or SMTP traffic.

Every final verdict a job settles (``store.settle_items``, and a quickMode answer's one statement) is
remembered in ``recent_verdicts`` by the SQL of this module, lent to those statements as text: one row per
account, ``variant`` and normalised address, pointing at the item that holds the result (the record) and
saying when the check was made. A verdict is final when no check is ``unknown``: greylisted, timed-out,
throttled or degraded answers are never reused, and neither is an answer that was itself drawn from a
verdict (``metadata.cached``), so a verdict ages from its check and never from its copies. Nor is an
answer the service gave up on ("could not be validated": invalid, 0, ``probe.given_up``): no check was
made, and it is stored marked ``metadata.verdict: false`` (``options.stamped``).

The ``variant`` is what shapes a result besides the address: quickMode, skipCatchAll and the plan's checks
at submission, and test mode (a sandbox verdict is never a live one). A verdict answers only a request of
the same variant, of the same account (tenant isolation: the account is part of the key of every lookup).

Stored results carry ``metadata.checkedAt`` (when the verdict was made) and ``metadata.cached``
(``options.stamped`` writes them on a live result, ``reused`` on the copy an answer is drawn from).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from services.jobs.options import json_text


def variant_sql(options: str) -> str:
    """SQL of the variant of the job options ``options`` (a jsonb expression): one definition for the writes
    and the lookups, so they always agree. The mode is part of it (a job without ``livemode`` is live), so a
    sandbox verdict never answers a live request nor a live one a test request."""
    return (
        f"md5(CAST(jsonb_build_array(({options})->'quickMode', ({options})->'skipCatchAll', "
        f"({options})->'features', COALESCE(({options})->'livemode', 'true'::jsonb)) AS text))"
    )


def reusable_sql(result: str) -> str:
    """SQL: may the stored result ``result`` (a jsonb expression) answer again? Final (no check
    ``unknown``), stamped, a verdict (not given up on), and not itself a copy."""
    return (
        f"({result}) #>> '{{metadata,checkedAt}}' IS NOT NULL "
        f"AND COALESCE(CAST(({result}) #>> '{{metadata,cached}}' AS boolean), false) = false "
        f"AND COALESCE(CAST(({result}) #>> '{{metadata,verdict}}' AS boolean), true) "
        f"AND NOT jsonb_path_exists({result}, '$.checks.* ? (@.status == \"unknown\")')"
    )


_REMEMBER = """remembered AS (
  INSERT INTO recent_verdicts AS v (account_id, variant, email, checked_at, job_id, position)
  SELECT DISTINCT ON (account_id, variant, email) account_id, variant, email, checked_at, job_id, position
  FROM (SELECT account_id, {variant} AS variant, email,
               CAST(result #>> '{{metadata,checkedAt}}' AS timestamptz) AS checked_at, job_id, position
        FROM ({source}) s WHERE email IS NOT NULL AND {reusable}) f
  ORDER BY account_id, variant, email, checked_at DESC, position
  ON CONFLICT (account_id, variant, email) DO UPDATE
    SET checked_at = excluded.checked_at, job_id = excluded.job_id, position = excluded.position
    WHERE v.checked_at <= excluded.checked_at
)"""


def remember_cte(source: str) -> str:
    """A CTE named ``remembered`` keeping the reusable verdicts of ``source`` (a query of ``account_id``,
    ``options``, normalised ``email``, ``result``, ``job_id``, ``position``; email NULL: nothing to keep),
    each replacing an older one. Rows in key order, one per key, so concurrent saves lock alike."""
    return _REMEMBER.format(variant=variant_sql("options"), source=source, reusable=reusable_sql("result"))


_FIND = text(
    """
SELECT v.email, i.result FROM recent_verdicts v
JOIN job_items i ON i.job_id = v.job_id AND i.position = v.position
WHERE v.account_id = :account AND v.variant = {variant}
  AND v.email = ANY(:emails) AND v.checked_at >= :since AND {reusable}
""".format(variant=variant_sql("CAST(:options AS jsonb)"), reusable=reusable_sql("i.result"))
)


def find(
    session: Session, account_id: int, options: Mapping[str, Any], emails: Sequence[str], since: datetime
) -> dict[str, dict[str, Any]]:
    """The account's reusable verdicts on ``emails`` (normalised) made since ``since``, for requests with
    job ``options``: each address's stored result, already marked as a copy (``reused``)."""
    params = {"account": account_id, "options": json_text(options), "emails": list(emails), "since": since}
    return {email: reused(result) for email, result in session.execute(_FIND, params)}


def reused(result: dict[str, Any]) -> dict[str, Any]:
    """The copy of a stored verdict an answer is drawn from: its own ``checkedAt``, ``cached`` true."""
    return {**result, "metadata": {**result["metadata"], "cached": True}}


def verdict_metadata(result: Mapping[str, Any]) -> dict[str, Any]:
    """What an answer's ``metadata`` says of the stored ``result``: ``cached`` and ``checkedAt`` (None for
    a result never stored, such as a timed-out answer's), and ``reason`` with its evidence when the
    suppression list answered (``services.suppression.answers``)."""
    stored = result.get("metadata") or {}
    shown = {"cached": bool(stored.get("cached", False)), "checkedAt": stored.get("checkedAt")}
    if stored.get("reason") is not None:  # answered from the suppression list, with its evidence
        shown |= {"reason": stored["reason"], "suppression": stored.get("suppression")}
    return shown
