"""What a scripted lab SMTP server says, decided without any I/O so the rules read in one place.

The replies copy real MTAs' wording (Postfix, postgrey, Exchange Online) because the prober classifies
on codes *and* text, and a lab that spoke an idealised dialect would hide exactly the cases where other
checkers go wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from maillab.model import Behaviour, Tls

ANGLE = re.compile(r"<([^>]*)>")
HANG_UP = ""  # not a reply: the server closes the connection without answering


@dataclass
class SessionState:
    """Per-connection state of one conversation."""

    peer: str
    greeted: bool = False
    tls: bool = False
    mail_from: str | None = None
    rcpt_count: int = 0
    first_domain: str | None = None  # the domain of the transaction's first recipient
    errors: int = 0  # refused RCPTs in this session (Postfix's error count)


@dataclass
class Greylist:
    """postgrey's triplet memory: (client IP, sender, recipient) -> first time seen."""

    first_seen: dict[tuple[str, str, str], float] = field(default_factory=dict)

    def blocks(self, key: tuple[str, str, str], now: float, delay: float) -> bool:
        first = self.first_seen.setdefault(key, now)
        return now - first < delay


class Script:
    """Replies of one server, given its behaviour and the lab's TLS ability."""

    def __init__(self, name: str, behaviour: Behaviour, greylist: Greylist) -> None:
        self.name = name
        self.behaviour = behaviour
        self.greylist = greylist

    def refusal(self, peer: str) -> str | None:
        """The greeting of a client whose address is on a block list, else None (greet it normally)."""
        if peer not in self.behaviour.blocked_clients:
            return None
        return f"554 5.7.1 Service unavailable; Client host [{peer}] blocked using zen.spamhaus.org"

    def ehlo(self, state: SessionState) -> str:
        if not self.behaviour.ehlo:
            return "502 5.5.2 Error: command not recognized"
        state.greeted = True
        lines = [self.name, "SIZE 10240000", "ENHANCEDSTATUSCODES", "8BITMIME"]
        if self.behaviour.pipelining:
            lines.insert(1, "PIPELINING")
        if self.behaviour.tls in (Tls.OFFERED, Tls.REQUIRED) and not state.tls:
            lines.append("STARTTLS")
        if self.behaviour.smtputf8:
            lines.append("SMTPUTF8")
        return "\n".join(f"250{'-' if i < len(lines) - 1 else ' '}{line}" for i, line in enumerate(lines))

    def helo(self, state: SessionState) -> str:
        state.greeted = True
        return f"250 {self.name}"

    def mail(self, state: SessionState, argument: str) -> str:
        if not state.greeted:
            return "503 5.5.1 Error: send HELO/EHLO first"
        if self.behaviour.tls in (Tls.REQUIRED, Tls.REQUIRED_UNADVERTISED) and not state.tls:
            return "530 5.7.0 Must issue a STARTTLS command first"
        if self.behaviour.mail_reply is not None:
            return self.behaviour.mail_reply
        if not argument.isascii() and not self.behaviour.smtputf8:
            return "553 5.6.7 Non-ASCII address requires SMTPUTF8"
        state.mail_from, state.rcpt_count, state.first_domain = _address(argument), 0, None
        return "250 2.1.0 Ok"

    def rcpt(self, state: SessionState, argument: str, now: float) -> str:
        limit = self.behaviour.error_limit
        if limit is not None and state.errors >= limit:
            return f"421 4.7.0 {self.name} Error: too many errors"
        reply = self._rcpt(state, argument, now)
        state.errors += reply[:1] in ("4", "5")
        return reply

    def _rcpt(self, state: SessionState, argument: str, now: float) -> str:
        if state.mail_from is None:
            return "503 5.5.1 Error: need MAIL command"
        if self.behaviour.hang_up_at_rcpt == state.rcpt_count + 1:
            return self.behaviour.hang_up_reply or HANG_UP
        limit = self.behaviour.max_rcpt_per_session
        if limit is not None and state.rcpt_count >= limit:
            return "452 4.5.3 Error: too many recipients"
        if not argument.isascii() and not self.behaviour.smtputf8:
            return "553 5.6.7 Non-ASCII address requires SMTPUTF8"
        state.rcpt_count += 1
        address = _address(argument)
        return (
            self._relay(state, address) or self.behaviour.rcpt_reply or self._recipient(state, address, now)
        )

    def _relay(self, state: SessionState, address: str) -> str | None:
        """Relaying denied: a domain this shared server does not host, or a second tenant in a transaction."""
        domain = address.rpartition("@")[2]
        state.first_domain = state.first_domain or domain
        b = self.behaviour
        if (b.hosted is not None and domain not in b.hosted) or (
            b.one_domain_per_transaction and domain != state.first_domain
        ):
            return f"554 5.7.1 <{address}>: Relay access denied"
        return None

    def _recipient(self, state: SessionState, address: str, now: float) -> str:
        local = address.rpartition("@")[0].lower()
        b = self.behaviour
        triplet = (state.peer, state.mail_from or "", address)
        if b.greylist_seconds is not None and self.greylist.blocks(triplet, now, b.greylist_seconds):
            domain = address.rpartition("@")[2]
            return (
                f"450 4.2.0 <{address}>: Recipient address rejected: Greylisted, "
                f"see http://postgrey.schweikert.ch/help/{domain}.html"
            )
        state_reply = self._state_reply(local, address)
        if state_reply is not None:
            return state_reply
        if b.catch_all or local in b.mailboxes or address.rpartition("@")[2] in b.catch_all_domains:
            return "250 2.1.5 Ok"
        return b.unknown_reply or (
            f"550 5.1.1 <{address}>: Recipient address rejected: User unknown in virtual mailbox table"
        )

    def _state_reply(self, local: str, address: str) -> str | None:
        """The reply of a mailbox that exists but cannot take mail: its own scripted words, full, disabled."""
        b = self.behaviour
        own = dict(b.account_replies).get(local)
        if own is not None:
            return own
        if local in b.full:
            return f"452 4.2.2 <{address}>: Recipient address rejected: Mailbox full"
        if local in b.over_quota:
            return f"552 5.2.2 <{address}>: Recipient address rejected: Mailbox over quota"
        if local in b.disabled:
            return f"550 5.2.1 <{address}>: Recipient address rejected: Mailbox disabled"
        return None


def _address(argument: str) -> str:
    """The address inside ``FROM:<...>``/``TO:<...>``, lower-cased like Postfix logs it."""
    match = ANGLE.search(argument)
    return (match.group(1) if match else argument.partition(":")[2].strip()).lower()
