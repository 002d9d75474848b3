"""An answer's time budget: when the workers have not answered in time, what the web process can say now.

The validation itself goes on (its job is charged and queued; the settled result appears at its results
URL and in ``validation.completed``); the caller gets, within its budget, the result as far as it can be
drawn without the mail server: syntax, the lists, the typo suggestion and the domain's DNS, which the
worker has usually fetched into the shared cache by then. DNS gets what is left of the budget and no more:
a lookup still running past it is left to finish in the background (it fills the cache for the worker) and
the domain is reported ``unknown`` with the reason ``timeout`` (``verifier.unfinished``). Nothing here is
charged or stored: the job's own result is the record.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late

from services.jobs.options import JobOptions
from services.probing.fleet.fleet_engine import shared_engine
from verifier.dns import MailDomain
from verifier.engine import resolve_domain, syntax_failure_result
from verifier.results import JsonValue
from verifier.syntax import ParsedAddress, SyntaxFailure
from verifier.unfinished import unfinished

# Kept back from a budget for drawing the partial answer (mostly the DNS read from the shared cache): the
# workers are waited for until this long before the end.
MARGIN_SECONDS = 0.5
# Lookups that outlast their answer's budget run on here; a few threads, since each waits on the network.
_LOOKUPS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="budget-dns")


def partial_result(email: str, options: JobOptions, seconds: float) -> dict[str, JsonValue]:
    """``email``'s result as far as it can be drawn in ``seconds`` (DNS gets them; the rest is local and
    takes milliseconds), the checks not finished ``unknown`` with the reason ``timeout``; the stored form
    (``ValidationResult.to_dict``)."""
    engine = shared_engine()
    parsed = engine.parse(email)
    if isinstance(parsed, SyntaxFailure):
        return syntax_failure_result(email, parsed).to_dict()
    if not options.livemode:  # test mode never asks DNS: what a lookup would say comes with the job
        return unfinished(parsed, None, options.engine).to_dict()
    return unfinished(parsed, _resolved_within(parsed, options, seconds), options.engine).to_dict()


def _resolved_within(parsed: ParsedAddress, options: JobOptions, seconds: float) -> MailDomain | None:
    if not options.engine.resolves_domain or seconds <= 0:
        return None
    lookup = _LOOKUPS.submit(resolve_domain, parsed, shared_engine().resolver)
    try:
        return lookup.result(timeout=seconds)
    except Late:
        return None
