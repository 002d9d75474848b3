"""Which lane a group waits in: its mail server's, so every domain behind one MX address shares sessions.

Thousands of domains name the same few MX addresses (Google Workspace, Microsoft 365, hosting providers,
mail-security gateways), and the fleet's politeness is per address (``services.probing.fleet.politeness``). A
lane per domain made the domains of one address take turns on its few session slots, each opening
sessions of its own; a lane per address carries them all over the same warm sessions
(``verifier/smtp/keeper.py``: RCPTs of several domains in one transaction).

At dispatch a group's domain is resolved through the engine's own resolver (its answers are shared in
Redis and memoized in the process, so this is mostly a memory read, and a miss warms the cache the probe
reads next). The lane is named for the address the prober would connect to first (MX preference, IPv4
first, public addresses only unless the lab's loopback is allowed). The lane has ``sessions_per_mx_host``
seats per live egress of the fleet (``services.probing.egress.registry``; seats: ``lanes``): one drain
per seat holds one session at a time, so the address's sessions are the politeness cap's over
every egress, no more, and every domain behind it is carried by all of them: a
provider's biggest domain is not left to one session while the others sit idle. A domain may so be probed
on two sessions at once, within its address's cap; its catch-all verdict is shared through the fleet's
cache, so it is asked again only when two sessions ask at the same moment. A domain with no MX address,
or whose answer is not in within ``ROUTE_SECONDS``, keeps a lane of its own, named for the domain, with one
seat.

Postgres stays the record: a lane name is never stored (a claim records its lane in the hold's token,
``lanes.take``), and a domain routed differently later (its MX changed, its answer came late) costs at
most a ref pushed to two lanes, whose second claim fails.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from services.probing.egress import registry
from services.probing.fleet import policy
from services.probing.fleet.dns_memo import MEMO_ENTRIES, MEMO_SECONDS
from services.probing.fleet.fleet_engine import shared_engine
from settings import get_settings
from verifier.dns.cache import MemoryCache
from verifier.public_ip import text_refusal_reason

log = logging.getLogger(__name__)
ROUTE_SECONDS = 1.0  # DNS answers not in by then leave their domains in lanes of their own
MX_LANE = "mx/"  # the lanes of MX addresses: "mx/<ip>"
NO_ADDRESS = ""  # memoized: the domain has no MX address to route by
WARMING_MOST = 1_000  # lookups in flight at most for ``warm``
# Lookups run beside the caller so that one slow domain costs a batch its own wait, not one per domain;
# batches in flight at once share the lookups of their common domains (``_pending``), and answers are
# memoized as the DNS memo does (``dns_memo``), so a dispatch mostly reads memory.
_LOOKUPS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="lane-routes")
# ``warm`` starts its lookups from a thread of its own: each lookup thread started from the planner's made
# it wait for the interpreter lock while the threads started before it ran (160 ms for a list's first 200
# domains, a third of its planning).
_WARMER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lane-routes-warm")
_lock = threading.RLock()  # a lookup done before its callback is added runs the callback under it
_pending: dict[str, Future[str | None]] = {}
_memo = MemoryCache(max_entries=MEMO_ENTRIES)


def mx_addresses(domains: Iterable[str]) -> dict[str, str | None]:
    """The MX address each domain's sessions would go to first, None when there is none (or no answer
    within ``ROUTE_SECONDS``)."""
    found: dict[str, str | None] = {}
    lookups: dict[str, Future[str | None]] = {}
    for domain in set(domains):
        if (memoized := _memo.get(domain)) is not None:
            found[domain] = memoized or None
        else:
            lookups[domain] = _lookup(domain)
    done, _ = wait(lookups.values(), timeout=ROUTE_SECONDS)
    return found | {domain: lookup.result() if lookup in done else None for domain, lookup in lookups.items()}


def warm(domains: Iterable[str]) -> None:
    """Start the lookups of ``domains`` not memoized yet, without waiting for them (a list's planner, as it
    parses: its groups are then routed from memory). Once ``WARMING_MOST`` lookups are in flight the rest
    are left to dispatch, which looks up only the groups of a job's window: a million-row list queues no
    million lookups at once."""
    _WARMER.submit(_start_lookups, set(domains))


def _start_lookups(domains: set[str]) -> None:
    for domain in domains:
        if len(_pending) >= WARMING_MOST:
            return
        if _memo.get(domain) is None:
            _lookup(domain)


def lane_for(domain: str, address: str | None) -> str:
    """The lane of a domain's groups: its MX address's, or its own."""
    return domain if address is None else f"{MX_LANE}{address}"


def seats_for(lane: str) -> int:
    """Drains at once of ``lane``: the sessions its MX address may have over every live egress of the
    fleet (``policy.seats``), or one for a domain's own."""
    if not lane.startswith(MX_LANE):
        return 1
    return policy.seats(get_settings().jobs.sessions_per_mx_host, registry.live_count())


def test_lane(domain: str) -> str:
    """The lane of a test-mode domain's groups: no DNS asked, no live group beside them."""
    return f"test/{domain}"


def _lookup(domain: str) -> Future[str | None]:
    """The lookup of ``domain`` in flight, or a new one."""
    with _lock:
        lookup = _pending.get(domain)
        if lookup is None:
            lookup = _pending[domain] = _LOOKUPS.submit(_remembered, domain)
            lookup.add_done_callback(lambda _: _forget(domain))
        return lookup


def _forget(domain: str) -> None:
    with _lock:
        _pending.pop(domain, None)


def _remembered(domain: str) -> str | None:
    address = _first_address(domain)
    _memo.set(domain, address or NO_ADDRESS, MEMO_SECONDS)
    return address


def _first_address(domain: str) -> str | None:
    engine = shared_engine()
    try:
        mail_domain = engine.resolver.resolve(domain)
    except Exception:  # never raises by contract; a bug here must not keep groups out of every lane
        log.exception("routing %s", domain)
        return None
    if not mail_domain.accepts_mail:
        return None
    loopback = engine.config.smtp_allow_loopback_mx
    addresses = (ip for record in mail_domain.mx_records for ip in record.addresses)
    return next((ip for ip in addresses if text_refusal_reason(ip, allow_loopback=loopback) is None), None)
