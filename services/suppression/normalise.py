"""The suppression key: when two spellings are one mailbox.

It starts from the account's de-duplication key (``verifier.dedupe.address_key``: trimmed, NFC, lowercase,
the domain in its A-label form), so a list and its suppression list agree on case and IDN. On top of it,
the rules a mailbox provider itself defines for its own domains: Gmail ignores dots in the local part and
everything from a ``+``; Outlook, iCloud, Fastmail, Proton and Yandex deliver ``name+tag`` to ``name``.
Only the provider's consumer domains are listed: a company domain hosted by Google keeps its dots
(Workspace does not ignore them), and a domain not listed keeps its ``+`` (its server may not strip it).
"""

from __future__ import annotations

from verifier.dedupe import address_key

# domain -> (dots ignored, the domain the provider's other names stand for)
_DOTS_AND_PLUS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}
_PLUS_ONLY = frozenset(
    {
        "outlook.com",
        "hotmail.com",
        "live.com",
        "msn.com",
        "icloud.com",
        "me.com",
        "mac.com",
        "fastmail.com",
        "fastmail.fm",
        "proton.me",
        "protonmail.com",
        "pm.me",
        "yandex.ru",
        "yandex.com",
    }
)


def suppression_key(raw: str) -> str:
    """The key ``raw`` is suppressed and looked up by (see the module docstring)."""
    key = address_key(raw)
    local, at, domain = key.rpartition("@")
    if not at or not local:
        return key
    if domain in _DOTS_AND_PLUS:
        return f"{_untagged(local).replace('.', '')}@{_DOTS_AND_PLUS[domain]}"
    if domain in _PLUS_ONLY:
        return f"{_untagged(local)}@{domain}"
    return key


def _untagged(local: str) -> str:
    """``name+tag`` -> ``name``; a local part that is only a tag stays as it is."""
    base = local.partition("+")[0]
    return base or local
