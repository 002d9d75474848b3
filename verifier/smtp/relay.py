"""``Relay``: the domain groups of one round, probed in turn, sending the RCPTs of the groups after them.

A lane's round probes the groups of many domains behind one MX address, one after the other on one
session (``keeper.py``). Alone, each group costs at least one round trip, however few its addresses:
the batches of a sign-up flow bring one address per domain, so a round of thirty domains waited thirty
round trips. With a relay, a group whose own RCPTs are all sent fills the rest of its pipelined write
(RFC 2920) with the recipients of the next groups whose MX resolves to the same address, in the order
those groups will ask for them; the session then goes straight to the next group (not through the
keeper), which finds its replies already on their way. Each reply is still read and judged by its own
group, in its own transcript (``ProbeSession`` keeps a reply read ahead of its turn for its RCPT).

A group that wants its catch-all probe sends its random RCPT after its real ones there too
(``catch_all.py``), so a cold round of one-address domains still costs a round trip per write.

Budgets are unchanged: the RCPTs in flight count against the session's recipient limit and against the
refusals it may still collect (``GroupRun._depth``), whichever group sent them.

Trade-offs accepted:

- Only groups that can ride another domain's transaction are sent ahead: ASCII local parts, a provider
  that takes more than one RCPT per session, a domain that accepts mail. The others probe as before.
- A group refused in the shared session ("relaying denied", ``GroupRun.misrouted``) or cut short leaves
  replies nobody asks for; they stay counted as in flight, and the session is closed at the end of the
  round rather than kept, so no refusal the server counted goes uncounted by us.
- The session held between two groups keeps its slot under the per-address limit; a group of the round
  waiting for a slot there (one refused in the shared transaction needs a session of its own) makes the
  relay close it (``let_go``), and the later groups open their own.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from verifier.config import EngineConfig
from verifier.dns.model import MailDomain
from verifier.smtp.catch_all import random_recipient, rides_ahead
from verifier.smtp.faults import each
from verifier.smtp.group import connectable_targets
from verifier.smtp.keeper import KeptSession, SessionKeeper
from verifier.smtp.providers import rules_for


@dataclass
class _Group:
    domain: MailDomain | None  # as resolved for the round
    ip: str | None  # the MX address its first session goes to; None: never sent ahead
    recipients: list[str]  # as its RCPTs spell them, in the order the group asks
    sent: int = 0  # how many were sent ahead
    catch_all: str | None = None  # its catch-all probe's recipient, the last of ``recipients``


class Relay:
    """One round's groups in order; not thread-safe (a round runs on one greenlet)."""

    def __init__(
        self, groups: Sequence[tuple[MailDomain | None, Sequence[str], bool]], config: EngineConfig
    ) -> None:
        """``groups``: each group's domain, addresses and whether it wants its catch-all probe."""
        self._groups = [
            _group(domain, addresses, catch_all, config) for domain, addresses, catch_all in groups
        ]
        self._current = -1
        self._held: dict[str, KeptSession] = {}

    def advance(self) -> None:
        """The next group of the round starts."""
        self._current += 1

    @property
    def mail_domain(self) -> MailDomain | None:
        """The current group's domain as resolved for the round (None: not probed by SMTP)."""
        return self._groups[self._current].domain if 0 <= self._current < len(self._groups) else None

    @property
    def catch_all_address(self) -> str | None:
        """The current group's catch-all recipient, which an earlier group may have sent ahead."""
        return self._groups[self._current].catch_all if 0 <= self._current < len(self._groups) else None

    def ahead(self, ip: str, most: int) -> list[str]:
        """Up to ``most`` recipients of the groups after the current one whose sessions go to ``ip``, not
        sent yet, in the order they will be asked; they count as sent from now on."""
        taken: list[str] = []
        for group in self._later(ip):
            if len(taken) >= most:
                break
            part = group.recipients[group.sent : group.sent + most - len(taken)]
            group.sent += len(part)
            taken += part
        return taken

    def wants(self, ip: str) -> bool:
        """Will a later group of the round open a session to ``ip``?"""
        return next(self._later(ip), None) is not None

    def keep(self, kept: KeptSession) -> None:
        """Hold ``kept`` for the next group at its address (one replaced is ended as at ``finish``)."""
        ip = kept.session.target.ip
        replaced = self._held.get(ip)
        self._held[ip] = kept
        if replaced is not None:
            _end(replaced, None)

    def take(self, ip: str, *, utf8: bool) -> KeptSession | None:
        """The session held for ``ip``, if it is alive (and carries SMTPUTF8 when wanted)."""
        kept = self._held.get(ip)
        if kept is None or not kept.session.alive or (utf8 and not kept.session.mail_utf8):
            return None
        del self._held[ip]
        return kept

    def let_go(self, ip: str) -> None:
        """Close the session held for ``ip``: a group of the round waits for a slot there (one refused in
        the shared transaction needs a session of its own), and the later groups can open theirs."""
        kept = self._held.pop(ip, None)
        if kept is not None:
            _end(kept, None)

    def finish(self, keeper: SessionKeeper | None) -> None:
        """The round is over: a session with nothing owed goes to ``keeper``, any other is closed."""
        held, self._held = list(self._held.values()), {}
        each([functools.partial(_end, kept, keeper) for kept in held])

    def _later(self, ip: str) -> Iterator[_Group]:
        return (group for group in self._groups[self._current + 1 :] if group.ip == ip)


def _end(kept: KeptSession, keeper: SessionKeeper | None) -> None:
    if keeper is not None and kept.session.alive and not kept.session.owes_replies:
        keeper.keep(kept)
    else:
        kept.release()


def _group(
    domain: MailDomain | None, addresses: Sequence[str], catch_all: bool, config: EngineConfig
) -> _Group:
    """What may be sent ahead of a group: nothing unless every address could ride another transaction."""
    if domain is None or not domain.accepts_mail or not addresses:
        return _Group(domain, None, [])
    locals_ = [address.rpartition("@")[0] for address in dict.fromkeys(addresses)]
    rules = rules_for([record.host for record in domain.mx_records])
    if rules.one_rcpt_per_session or not all(local.isascii() for local in locals_):
        return _Group(domain, None, [])
    recipients = [f"{local}@{domain.domain}" for local in locals_]
    probe = (
        random_recipient(domain.domain) if catch_all and rides_ahead(rules, len(locals_), config) else None
    )
    return _Group(domain, first_ip(domain, config), recipients + ([probe] if probe else []), catch_all=probe)


def first_ip(domain: MailDomain, config: EngineConfig) -> str | None:
    """The MX address a group of ``domain`` tries first."""
    return next((target.ip for target in connectable_targets(domain, config)), None)
