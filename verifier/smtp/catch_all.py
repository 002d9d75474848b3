"""The catch-all probe's random recipient, and whether it rides the real recipients' pipelined write.

Sent only after the real replies were read, the random RCPT cost every domain whose verdict is not
cached a round trip of its own: a cold round of seven one-address domains behind one MX address took
seven more. Where the server offers PIPELINING it now goes at the end of the write that carries the
domain's last real recipients (``GroupRun._pipelined``, ``Relay.ahead``), and its reply arrives with
theirs. The verdict is unchanged: the real replies still decide whether the random one is read as the
catch-all probe (``prober._catch_all``); when they make it moot, its reply is read and dropped.

Only a group whose addresses and random one fit in one write sends it ahead (a sign-up form's single
address, a batch's few at a domain): for it the probe's own round trip would double its time. A larger
group takes several writes anyway, usually holds a refused address (which makes the probe moot), and
asks for the probe after its replies as before. Once answered, the verdict is cached for the fleet
(``CATCH_ALL_TTL``), so a domain is sent a random RCPT ahead about once per TTL, not per group.

Trade-offs accepted: a group that turns out not to need the probe (an address refused, or none
accepted) still sent one RCPT for a mailbox nobody has, counted against the session's refusal budget
like any RCPT in flight. Providers where that could cost more are never sent it ahead: those counting
unknown recipients per connection (``catch_all_own_session``), those whose RCPT proves nothing
(``accepts_all_at_rcpt``) and those taking one RCPT per connection.
"""

from __future__ import annotations

import random
import string

from verifier.config import EngineConfig
from verifier.smtp.providers import ProviderRules

CATCH_ALL_LOCAL_LENGTH = 20


def random_local_part() -> str:
    """A local part no human has: letters and digits, starting with a letter (some MTAs dislike digits)."""
    alphabet = string.ascii_lowercase + string.digits
    return random.choice(string.ascii_lowercase) + "".join(
        random.choices(alphabet, k=CATCH_ALL_LOCAL_LENGTH - 1)
    )


def random_recipient(ascii_domain: str) -> str:
    """The catch-all probe's recipient at ``ascii_domain``."""
    return f"{random_local_part()}@{ascii_domain}"


def rides_ahead(rules: ProviderRules, recipients: int, config: EngineConfig) -> bool:
    """May the random RCPT of a group of ``recipients`` distinct addresses go in the same write as the
    real ones, before their replies are read? (A write carries at most a session's refusal budget.)"""
    costly = rules.accepts_all_at_rcpt or rules.one_rcpt_per_session or rules.catch_all_own_session
    return recipients < config.smtp_session_max_rejections and not costly
