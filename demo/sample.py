"""The sample list: a few hundred lab addresses, as a list someone might really have to clean.

Mostly people at healthy servers (the benchmark domains, where ``user00``-``user49`` exist), and the lab's
tricky cases mixed in: unknown mailboxes, full and disabled ones, catch-all and disposable domains, role
accounts, a greylisting server and one that answers 421 at connect, dead domains, typos, broken syntax.
The order is shuffled with a fixed seed, so every run cleans the same list.
"""

from __future__ import annotations

import random

from maillab.world import bench_domain

TRICKY = (
    "alice@mailbox.test",
    "bob@mailbox.test",
    "nobody@mailbox.test",
    "info@mailbox.test",
    "full@full.test",
    "gone@disabled.test",
    "anyone@catchall.test",
    "temp@mailinator.com",
    "carol@greylist.test",
    "dave@busy.test",
    "erin@slow.test",
    "alice@dead.test",
    "suspended@accounts.test",
    "alice@nullmx.test",
    "alice@no-such-domain.test",
    "alice@spamhaus.test",
    "not an address",
    "bob@@mailbox.test",
)
BENCH_DOMAINS = 20


def sample(count: int) -> list[str]:
    """``count`` addresses (at least the tricky ones), shuffled with a fixed seed."""
    rng = random.Random(12)
    people = max(count - len(TRICKY), 0)
    addresses = [_person(rng, index) for index in range(people)] + list(TRICKY)
    rng.shuffle(addresses)
    return addresses[: max(count, 1)]


def _person(rng: random.Random, index: int) -> str:
    """Nine in ten exist (``user00``-``user49``); the rest are unknown at their server."""
    local = f"user{rng.randrange(50):02d}" if rng.random() < 0.9 else f"left{index:03d}"
    return f"{local}@{bench_domain(rng.randrange(BENCH_DOMAINS))}"
