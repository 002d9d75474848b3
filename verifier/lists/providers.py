"""Mailbox provider or mail security gateway, recognised from MX host names (``data/mailbox-providers.tsv``).

The SMTP prober keys its own provider rules on the same host names; this table only names the provider for
the ``mailboxProvider`` check. A gateway (Mimecast, Proofpoint, ...) filters mail in front of the real
mailbox host, so RCPT answers there say more about the gateway's policy than about the mailbox.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from verifier.lists._data import rows


@dataclass(frozen=True, slots=True)
class MailboxProvider:
    """Who runs the domain's mail: ``kind`` is ``mailbox`` or ``gateway``."""

    name: str
    kind: str
    mx_host: str


@functools.cache
def provider_table() -> tuple[tuple[str, str, str], ...]:
    """(host suffix, provider, kind), narrowest suffixes first."""
    return tuple((suffix.lower(), name, kind) for suffix, name, kind in rows("mailbox-providers.tsv"))


def mailbox_provider(mx_hosts: Iterable[str]) -> MailboxProvider | None:
    """The provider of the first MX host (in the order given: preference order) that the table knows."""
    for host in mx_hosts:
        if (found := _provider_of(host.lower().rstrip("."))) is not None:
            return found
    return None


@functools.lru_cache(maxsize=16_384)  # the table scan, once per MX host name and process
def _provider_of(name: str) -> MailboxProvider | None:
    for suffix, provider, kind in provider_table():
        if name == suffix or name.endswith("." + suffix):
            return MailboxProvider(provider, kind, name)
    return None
