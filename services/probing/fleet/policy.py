"""The probing policy as pure functions of numbers: how politely the fleet opens SMTP sessions to one MX
address, over which egress, and in what order a lane serves the accounts waiting in it.

Sharing across egresses: politeness (sessions at once, spacing, backoff) is counted per (egress, MX
address), its ``place``; an MX address's lane gets ``per_host`` seats per live egress of the fleet
(``seats``), and a new session tries the process's egresses in ``egress_order``, the pairs in backoff
last. Any session may carry any domain of its lane, whatever egress it left from: the catch-all verdicts
and the DNS answers are cached per domain, never per egress, so a verdict never depends on which egress
asked.

The fleet applies the rules in Redis, where each decision must be atomic across workers, so Lua scripts
carry them out there: ``politeness`` (sessions at once, spacing, backoff) and ``lanes`` (the turns of a
round). This module is the same rules in Python: the service calls it wherever it decides outside Redis
(the numbers read from the settings, what counts as a complaint, how long to wait before looking again,
how long a backoff level is remembered); ``tests/probing/test_policy_in_redis.py`` holds the scripts to
it, and the fleet simulation (``bench/fleet_*.py``) runs on it instead of a model of its own. It imports
nothing of Redis (an import-linter contract says so).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from settings import JobSettings
from verifier.smtp import ReplyEvidence, classify, rules_for
from verifier.smtp.evidence import EGRESS_FAULT

Account = TypeVar("Account")
Ref = TypeVar("Ref")

# Blocks (a server refusing the egress, not a mailbox): the pair is left alone for BLOCK_SECONDS, doubling
# at each further block up to BLOCK_MAX_SECONDS; an egress blocked by OUT_OF_POOL_MX addresses at once is
# out of its process's pool for OUT_OF_POOL_SECONDS; one whose way out failed is tried last for FAULT_SECONDS.
BLOCK_SECONDS, BLOCK_MAX_SECONDS = 300.0, 6 * 3600.0
OUT_OF_POOL_MX, OUT_OF_POOL_SECONDS = 5, 1800.0
FAULT_SECONDS = 30.0
# A 421 naming our connections is about this egress; a plain 421 (busy, shutting down) is about the server.
TOO_MANY_CONNECTIONS = re.compile(r"too many (concurrent )?(connections|sessions)", re.IGNORECASE)
TOO_MANY = "421 too many connections"
FULL = -1.0  # ``admission``'s answer when every session slot of the address is taken
POLL_FIRST, POLL_MAX = 0.05, 0.25  # looking again at a full slot set: the first pause, doubling to this
BACKOFF_MEMORY = 2  # a backoff level is forgotten after this many longest backoffs of quiet


@dataclass(frozen=True)
class Politeness:
    """The rules' numbers (``settings.JobSettings``)."""

    per_host: int  # SMTP_SESSIONS_PER_MX_HOST: sessions at once per MX address, fleet-wide
    lease_seconds: float  # a slot its worker stopped renewing (it died) frees itself after this long
    interval_seconds: float  # SMTP_MIN_SESSION_INTERVAL_MS: between new sessions to one address
    backoff_seconds: float  # SMTP_BACKOFF_SECONDS: no new session after a complaint, doubling per level
    backoff_max_seconds: float  # SMTP_BACKOFF_MAX_SECONDS
    slow_reply_seconds: float  # SMTP_SLOW_REPLY_SECONDS: a slower reply is a complaint

    @classmethod
    def read(cls, jobs: JobSettings, lease_seconds: float) -> Politeness:
        """The rules as configured, a slot held ``lease_seconds`` unless renewed (``fleet_engine``: a
        hold of its process)."""
        return cls(
            per_host=jobs.sessions_per_mx_host,
            lease_seconds=lease_seconds,
            interval_seconds=jobs.min_session_interval_ms / 1000,
            backoff_seconds=jobs.backoff_seconds,
            backoff_max_seconds=jobs.backoff_max_seconds,
            slow_reply_seconds=jobs.slow_reply_seconds,
        )


def admission(now: float, sessions: int, next_open: float, backoff_until: float, rules: Politeness) -> float:
    """May a new session to an address open at ``now``, given its ``sessions`` open, the earliest time
    the spacing allows the next one and the end of its backoff? 0: yes (the next one may open
    ``interval_seconds`` later); ``FULL``: every slot is taken; else the seconds worth waiting."""
    if now < backoff_until:
        return backoff_until - now
    if sessions >= rules.per_host:
        return FULL
    if now < next_open:
        return next_open - now
    return 0.0


def next_look(wait: float, pause: float, left: float) -> tuple[float | None, float]:
    """After a refused look: how long to sleep before the next one (None: give up, nothing frees in
    time), and the pause after that. ``wait`` is what the rules said to wait (0: slots full, so poll,
    doubling the pause up to ``POLL_MAX``), ``left`` the time to the caller's deadline."""
    if left <= 0 or wait > left:
        return None, pause
    return min(wait or pause, left), (pause if wait else min(pause * 2, POLL_MAX))


def complaint(transcript: Sequence[ReplyEvidence], rules: Politeness) -> str | None:
    """Why a finished session asks us to back off from its server, if it does: a 421 (RFC 5321: closing
    the channel, how MTAs say "too many connections" or "slow down"), or a reply slower than
    ``slow_reply_seconds``."""
    if any(item.code == 421 and TOO_MANY_CONNECTIONS.search(item.text) for item in transcript):
        return TOO_MANY
    if any(item.code == 421 for item in transcript):
        return "421"
    slow_ms = rules.slow_reply_seconds * 1000
    if any(item.code is not None and item.latency_ms > slow_ms for item in transcript):
        return "slow replies"
    return None


def backoff_seconds(level: int, rules: Politeness) -> float:
    """The backoff of the ``level``-th complaint in a row (1 for the first): doubling, capped."""
    return float(min(rules.backoff_seconds * 2 ** (level - 1), rules.backoff_max_seconds))


def backoff_memory(rules: Politeness) -> float:
    """Seconds of quiet after which the next complaint starts again at level 1."""
    return BACKOFF_MEMORY * rules.backoff_max_seconds


def join_turns(
    turns: deque[Account], queues: MutableMapping[Account, deque[Ref]], account: Account, ref: Ref
) -> None:
    """Queue ``ref`` of ``account`` in a lane; an account with nothing waiting joins the back of the turns
    (an account is in the turns exactly while its queue holds refs)."""
    queue = queues.get(account)
    if queue is None:
        queue = queues[account] = deque()
        turns.append(account)
    queue.append(ref)


def take_round(
    turns: deque[Account],
    queues: MutableMapping[Account, deque[Ref]],
    max_addresses: int,
    size: Callable[[Ref], int],
) -> list[Ref]:
    """A lane's next round: one ref per account in turn until it holds ``max_addresses`` addresses (its
    last ref may pass them); each account served goes to the back of the turns, or leaves them once its
    queue is empty, so one account's million-address list never starves another's batch of 10."""
    taken: list[Ref] = []
    total = 0
    while total < max_addresses and turns:
        account = turns[0]
        turns.rotate(-1)
        queue = queues.get(account)
        ref = queue.popleft() if queue else None
        if not queue:
            turns.pop()
            queues.pop(account, None)
        if ref is not None:
            taken.append(ref)
            total += size(ref)
    return taken


def place(egress_id: str, mx_ip: str) -> str:
    """What politeness is counted per: one egress's sessions to one MX address."""
    return f"{mx_ip}/{egress_id}"


def seats(per_host: int, live_egresses: int) -> int:
    """Drains at once of an MX address's lane: the sessions each live egress may have there, so that
    throughput at a busy address grows with the egresses of the fleet (at least ``per_host``)."""
    return max(per_host, 1) * max(live_egresses, 1)


def pooled(rules: Politeness, egresses: int) -> Politeness:
    """One MX address's rules over ``egresses`` egresses taken together (the fleet simulation's view of
    its pairs): the cap ``egresses`` times, new sessions ``egresses`` times as often."""
    count = max(egresses, 1)
    return replace(rules, per_host=rules.per_host * count, interval_seconds=rules.interval_seconds / count)


def egress_order(egress_ids: Sequence[str], turn: int, waits: Sequence[float] = ()) -> list[str]:
    """The order a new session tries the egresses of its process: from ``turn`` on (so sessions spread
    over them), those whose pair is in backoff or blocked (``waits[i] > 0``, seconds left) last."""
    count = len(egress_ids)
    rotated = [(turn + step) % count for step in range(count)]
    rotated.sort(key=lambda index: (waits[index] if index < len(waits) else 0.0) > 0)
    return [egress_ids[index] for index in rotated]


def pool_wait(waits: Sequence[float]) -> float:
    """After every egress of the process was refused a session: what ``next_look`` is told to wait (0: a
    pair is full, poll it; else the shortest spacing or backoff left)."""
    return min(waits) if waits else 0.0


@dataclass(frozen=True)
class Block:
    """A session's reply that blocks its (egress, MX address) pair; ``refused``: a connection refused or
    reset, a block only if the server answers other egresses (else it is down)."""

    reply: str
    refused: bool = False


def block_in(transcript: Sequence[ReplyEvidence]) -> Block | None:
    """The first reply of a session that is about the client, not a mailbox (``classify.blocks``: 5.7.x
    policy or block-list wording at connect, greeting, HELO, MAIL or RCPT, a 554 greeting, a refused
    connection)."""
    for item in transcript:
        if item.code is not None and item.code < 400:
            continue  # a greeting or an acceptance (the classification reads refusals only)
        rcpt = item.command.startswith("RCPT")
        if classify(item, rules_for([item.mx_host]), 0, rcpt=rcpt).blocked:
            line = f"{item.code} {item.text}" if item.code is not None else item.text
            return Block(line, refused=item.code is None)
    return None


def complaint_blocks(reason: str, backoff: float, rules: Politeness) -> bool:
    """A 421 "too many connections" (not a busy server's plain 421) that still comes once the backoff has
    doubled to its longest (``backoff`` is the one it starts, past the first level): the server refuses this
    egress, it does not merely ask it to slow down. With no doubling configured (the first backoff is
    already the longest) a 421 never blocks."""
    return reason == TOO_MANY and rules.backoff_seconds < backoff >= rules.backoff_max_seconds


def fault_in(transcript: Sequence[ReplyEvidence]) -> str | None:
    """The egress's own failure in a session (proxy refused, died mid-session, bad credentials, too
    slow: ``verifier/smtp/connect.py``), if any: not a word from the MX."""
    return next((item.text for item in transcript if item.text.startswith(EGRESS_FAULT)), None)


def block_seconds(level: int) -> float:
    """How long the ``level``-th block in a row keeps a pair closed: doubling, capped."""
    return float(min(BLOCK_SECONDS * 2 ** (level - 1), BLOCK_MAX_SECONDS))


def out_of_pool(blocked_mx: int) -> bool:
    """Is an egress blocked by ``blocked_mx`` MX addresses at once taken out of the pool for a while?"""
    return blocked_mx >= OUT_OF_POOL_MX
