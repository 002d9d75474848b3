"""Check and plan-feature names as people read them: ``typoSuggestion`` is "Typo suggestion".

The API keeps the spec's camelCase names (``checks`` keys, ``plan.features``); pages show these instead.
One table serves both, since a feature and the check it runs share a name.
"""

from __future__ import annotations

import re

HUMAN_NAMES = {
    "syntax": "Syntax",
    "domain": "Domain",
    "mxRecords": "MX records",
    "disposable": "Disposable address",
    "roleBased": "Role address",
    "smtp": "Mailbox (SMTP)",
    "catchAll": "Catch-all",
    "typoSuggestion": "Typo suggestion",
    "freeEmail": "Free email provider",
    "corporateEmail": "Company domain",
    "mailboxProvider": "Mailbox provider",
}
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def human_name(name: str) -> str:
    """The readable name of a check or feature; a name added later without one still reads as words."""
    if name in HUMAN_NAMES:
        return HUMAN_NAMES[name]
    words = _WORD_START.sub(" ", name).lower()
    return words[:1].upper() + words[1:]
