"""Reading one SMTP reply: what kind of answer is it? (No verdict yet; that is ``result.py``.)

Order matters and is the core of our accuracy:

1. no reply -> no-answer; 250/251 -> accepted;
2. provider rules (Microsoft 365 ``550 5.4.1 Access denied`` is a definitive reject); a 530 (TLS or
   authentication required) is about our session, never a mailbox or a block list;
3. the words of a permanent (5xx) refusal, whatever its enhanced code: one that names our sender, our IP or
   host is about us (policy); otherwise, unless it names a block list or a policy, one that says the account
   is suspended, disabled, inactive or deactivated is a disabled mailbox, and one that says the user is
   unknown or does not exist is a rejected mailbox. Providers file such accounts under 5.7.x ("policy")
   as often as under 5.1.x/5.2.1, so the code alone would call a gone mailbox "prober blocked";
4. the enhanced status code (RFC 3463) when present, because it is more precise than the basic code:
   x.1.x addressing -> mailbox rejected (except 5.1.7/5.1.8, which are about *our* sender), x.2.1
   disabled, x.2.2 full, x.5.3 too many recipients, x.7.x policy;
5. policy wording (Spamhaus, Proofpoint, "reverse hostname", block lists...) -> policy, never "no such
   mailbox": a 550 from a block list says nothing about the mailbox;
6. the basic code: 550/551/553 rejected, 452/552 full, 450/451 greylisting, 421 and other 4xx temporary.

Replies to anything but RCPT (banner, EHLO, MAIL) can never prove anything about a mailbox: a 5xx there
is the server refusing *us* (policy), whatever its wording.

Two marks ride on the classification, for a caller that can ask again over another egress: ``egress_fault``
(our proxy or source address failed; no reply came from the MX at all) and ``blocked`` (the server refused
the egress's address, ``blocks``). Neither is ever a verdict about the mailbox.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from enum import StrEnum

from verifier.smtp.evidence import EGRESS_FAULT, ReplyEvidence
from verifier.smtp.providers import ProviderRules


class ProbeOutcome(StrEnum):
    """The kind of answer a recipient got, before any verdict."""

    ACCEPTED = "accepted"
    REJECTED_MAILBOX = "rejected-mailbox"
    REJECTED_POLICY = "rejected-policy"
    TEMPORARY = "temporary"
    FULL = "full"
    DISABLED = "disabled"
    NO_ANSWER = "no-answer"
    NOT_SENT = "not-sent"  # we chose not to ask (UTF-8 local part without SMTPUTF8, no mail host)


POLICY_WORDS = re.compile(
    r"spamhaus|\bblock(ed|list|ed using)?\b|black ?list|dnsbl|\brbl\b|proofpoint|barracuda|spamcop|sorbs"
    r"|reverse (host ?name|dns)|\bptr\b|\brdns\b|reputation|\bspf\b|\bdmarc\b|\bpolicy\b|banned|abuse"
    r"|not authori[sz]ed|relay (access )?denied|too many (connections|errors)|rate limit",
    re.IGNORECASE,
)
MAILBOX_WORDS = re.compile(
    r"user unknown|unknown user|no such (user|mailbox|recipient)|does not exist|doesn't exist|not exist"
    r"|invalid (recipient|mailbox|address)|recipient (not found|unknown)|mailbox (unavailable|not found)"
    r"|address rejected|unrouteable|(doesn't|does not) have an? [\w.-]+ account",  # Yahoo's "554 ... dd"
    re.IGNORECASE,
)
# "Not a domain of mine": in a session opened for another domain behind the same MX address, a server
# that hosts only some of the domains naming it (or routes one domain per transaction) says this about the
# domain, never about the mailbox (``GroupRun`` then asks again on a session of the domain's own).
RELAY_WORDS = re.compile(
    r"relay(ing)? (access )?(denied|not permitted|not allowed|prohibited)|unable to relay|we do not relay"
    r"|not (a )?local (domain|recipient)|not hosted here|domain (is )?not (hosted|served|local)|rcpthosts",
    re.IGNORECASE,
)
# A refusal about *us* whatever its code: Postfix defers sender checks to RCPT ("Sender address rejected:
# User unknown"), Exim's "Sender verify failed", Microsoft's "banned sending IP", "Client host rejected".
ABOUT_US = re.compile(
    r"\bsender\b|\bclient host\b|\bsending ip\b|\byour (account|ip|host|server|domain|connection|client)",
    re.IGNORECASE,
)
# The recipient's account exists but is switched off; a subject is required so that "inactive" or
# "disabled" about something else (a feature, our session) does not count.
ACCOUNT_OFF = re.compile(
    r"\b(account|mailbox|user|recipient|address)\b[^.;:]{0,40}?\b(suspended|disabled|inactive|deactivated)\b"
    r"|\b(suspended|disabled|inactive|deactivated) (e-?mail )?(account|mailbox|user|recipient|address)\b",
    re.IGNORECASE,
)
# The recipient does not exist. Stricter than MAILBOX_WORDS (no "address rejected", which Postfix puts in
# front of every kind of refusal), since it also overrides 5.7.x. RFC 5321's generic "mailbox unavailable"
# is left out: the RFC itself lists policy reasons under it.
ACCOUNT_GONE = re.compile(
    r"user unknown|unknown (user|recipient|mailbox)|recipient unknown"
    r"|no such (user|mailbox|recipient|account|address)|(does not|doesn't) exist"
    r"|(mailbox|recipient|user|account) not found",
    re.IGNORECASE,
)
TOO_MANY = re.compile(r"too many recipients", re.IGNORECASE)
GREYLIST_WORDS = re.compile(r"grey ?list|gray ?list|try again later|temporarily deferred", re.IGNORECASE)
RETRY_IN = re.compile(r"(\d{1,5})\s*(seconds|secs?|s\b|minutes|mins?)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Classification:
    outcome: ProbeOutcome
    reason: str  # a short machine code: "mailbox_rejected", "greylisted", "prober_blocked", ...
    retry_after: int | None = None
    prober_blocked: bool = False
    # the (egress, MX address) pair is blocked: the answer would differ over another egress (``blocks``)
    blocked: bool = False
    egress_fault: bool = False  # our way out failed (``connect.py``): nothing was learnt about the MX

    @property
    def too_many_recipients(self) -> bool:
        return self.reason == "too_many_recipients"


def classify(
    evidence: ReplyEvidence, rules: ProviderRules, greylist_default: int, *, rcpt: bool
) -> Classification:
    """Classify one reply; ``rcpt`` says whether it answered a RCPT TO (only those judge a mailbox)."""
    found = _classify(evidence, rules, greylist_default, rcpt=rcpt)
    return dataclasses.replace(found, blocked=True) if blocks(evidence, found) else found


def _classify(
    evidence: ReplyEvidence, rules: ProviderRules, greylist_default: int, *, rcpt: bool
) -> Classification:
    if evidence.text.startswith(EGRESS_FAULT) and evidence.code is None:
        return Classification(
            ProbeOutcome.NO_ANSWER, "egress_fault", retry_after=greylist_default, egress_fault=True
        )
    if evidence.code is None:
        reason = _NO_REPLY_REASONS.get(evidence.text, "no_reply")
        retry_after = greylist_default if reason in _TEMPORARY_SILENCES else None
        return Classification(ProbeOutcome.NO_ANSWER, reason, retry_after=retry_after)
    if evidence.code in (250, 251):
        return Classification(ProbeOutcome.ACCEPTED, "accepted")
    found = _classify_reply(evidence, rules, greylist_default)
    if not rcpt and found.outcome in _MAILBOX_OUTCOMES:
        return Classification(ProbeOutcome.REJECTED_POLICY, "session_rejected", prober_blocked=True)
    return found


_NO_REPLY_REASONS = {
    "timeout": "timeout",
    "connect timeout": "connect_timeout",
    "connection refused": "connection_refused",
    "connection reset": "connection_reset",
    "deadline reached": "deadline",
    "connection closed by server": "disconnected",
    "session limit": "session_limit",
    "backing off": "backing_off",
    "blocked": "blocked",  # every egress is blocked at the address (the limiter's ``blocked``): not asked
}
# Silences that say "not now" (a server too slow or busy, our own wait for a session slot, a server that
# asked us to back off) rather than "nothing there": they carry a retry time like a 4xx, so a client (and
# ``retryTemporary``) knows when.
_TEMPORARY_SILENCES = {
    "timeout",
    "connect_timeout",
    "deadline",
    "disconnected",
    "connection_reset",
    "session_limit",
    "backing_off",
    "blocked",
}
_MAILBOX_OUTCOMES = {ProbeOutcome.REJECTED_MAILBOX, ProbeOutcome.FULL, ProbeOutcome.DISABLED}


def _classify_reply(evidence: ReplyEvidence, rules: ProviderRules, greylist_default: int) -> Classification:
    code, enhanced, text = evidence.code or 0, evidence.enhanced_code or "", evidence.text
    if rules.access_denied_is_reject and enhanced == "5.4.1" and "access denied" in text.lower():
        return Classification(ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected")
    if code == 530:  # RFC 3207/4954: "STARTTLS first" or "authentication required", about us, not a block
        return Classification(ProbeOutcome.REJECTED_POLICY, "tls_or_auth_required")
    by_words = _by_words(code, text) if code >= 500 else None
    if by_words is not None:
        return by_words
    by_enhanced = _by_enhanced(code, enhanced, text, greylist_default)
    if by_enhanced is not None:
        return by_enhanced
    if POLICY_WORDS.search(text):
        return _policy(code)
    return _by_basic(code, text, greylist_default)


def _by_words(code: int, text: str) -> Classification | None:
    """A permanent refusal whose words settle it, whatever its enhanced code (step 3 of the module doc)."""
    if ABOUT_US.search(text):
        return _policy(code)
    if POLICY_WORDS.search(text):
        return None  # a block list or a policy named: the codes decide, never the account words
    if ACCOUNT_OFF.search(text):
        return Classification(ProbeOutcome.DISABLED, "mailbox_disabled")
    if ACCOUNT_GONE.search(text):
        return Classification(ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected")
    return None


def _by_enhanced(code: int, enhanced: str, text: str, greylist_default: int) -> Classification | None:
    klass, _, detail = enhanced.partition(".")
    if not enhanced or klass != str(code)[0]:
        return None  # absent, or inconsistent with the basic code: let the basic code decide
    subject = detail.partition(".")[0]
    if detail == "5.3" or TOO_MANY.search(text):
        return Classification(ProbeOutcome.TEMPORARY, "too_many_recipients")
    if subject == "7" or detail in ("1.7", "1.8"):  # security/policy, or a complaint about *our* sender
        return (
            _policy(code)
            if klass == "5" or POLICY_WORDS.search(text)
            else _greylisted(text, greylist_default)
        )
    if detail == "2.2":
        return Classification(ProbeOutcome.FULL, "mailbox_full")
    return None if klass == "4" else _permanent(detail, subject)  # other 4.x.x: basic code and wording decide


def _permanent(detail: str, subject: str) -> Classification | None:
    if subject in ("3", "4", "6"):  # mail system, routing, content: the server's trouble, not the mailbox's
        return Classification(ProbeOutcome.REJECTED_POLICY, "server_refused")
    return _PERMANENT_BY_DETAIL.get(detail) or (
        Classification(ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected") if subject == "1" else None
    )


_PERMANENT_BY_DETAIL = {
    "2.1": Classification(ProbeOutcome.DISABLED, "mailbox_disabled"),
    "2.0": Classification(ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected"),
}


def _by_basic(code: int, text: str, greylist_default: int) -> Classification:
    if code in (452, 552):
        reason = "too_many_recipients" if TOO_MANY.search(text) else "mailbox_full"
        return Classification(
            ProbeOutcome.TEMPORARY if reason == "too_many_recipients" else ProbeOutcome.FULL, reason
        )
    if code in (550, 551, 553) or (code >= 500 and MAILBOX_WORDS.search(text)):
        return Classification(ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected")
    if code in (450, 451) or (code >= 400 and GREYLIST_WORDS.search(text)):
        return _greylisted(text, greylist_default)
    if 400 <= code < 500:
        return Classification(ProbeOutcome.TEMPORARY, "temporary_failure", retry_after=greylist_default)
    if code == 554:
        return _policy(code)  # "transaction failed" without detail: most often a block, never proof
    return Classification(ProbeOutcome.NO_ANSWER, "unexpected_reply")


def _policy(code: int) -> Classification:
    outcome = ProbeOutcome.REJECTED_POLICY if code >= 500 else ProbeOutcome.TEMPORARY
    return Classification(outcome, "prober_blocked", prober_blocked=True)


def _greylisted(text: str, default: int) -> Classification:
    """Greylisting (450/451, 4.7.x): retryable; honour a delay the server names, else our default."""
    match = RETRY_IN.search(text)
    seconds = default
    if match:
        seconds = int(match.group(1)) * (60 if match.group(2).lower().startswith("min") else 1)
    return Classification(ProbeOutcome.TEMPORARY, "greylisted", retry_after=seconds)


def refuses_domain(evidence: ReplyEvidence) -> bool:
    """A RCPT refused because the server does not take mail for the recipient's domain (relaying denied)."""
    return evidence.code is not None and evidence.code >= 400 and bool(RELAY_WORDS.search(evidence.text))


# Block lists and other complaints about the client's address: a temporary refusal naming these is a block
# too (a rate limit such as Gmail's 421 4.7.28 "unusual rate ... from your IP" is backoff, not a block).
BLOCK_LIST_WORDS = re.compile(
    r"spamhaus|\bblock(ed|list)\b|black ?list|dnsbl|\brbl\b|barracuda|spamcop|sorbs|proofpoint"
    r"|reverse (host ?name|dns)|\bptr\b|\brdns\b|banned|client host",
    re.IGNORECASE,
)
_REFUSED_AT_CONNECT = frozenset({"connection refused", "connection reset"})


def blocks(evidence: ReplyEvidence, found: Classification) -> bool:
    """Does this answer refuse the (egress, MX address) pair rather than say anything about a mailbox?

    A connection refused or reset; a 554 greeting; a permanent refusal about us (5.7.x, block-list or
    client wording, any 5xx before RCPT) at greeting, HELO, MAIL or RCPT; a temporary one naming a block
    list. "Relay access denied" is about the recipient's domain, never a block. A refused connection is
    a block only if the server answers other egresses: the pure reading cannot know, so the caller that
    routes around blocks confirms it over another egress (a server that refuses every egress is down).
    """
    text, code = evidence.text, evidence.code
    if code is None:
        return text in _REFUSED_AT_CONNECT
    if (evidence.command == "CONNECT" and code == 554) or found.reason == "session_rejected":
        return True
    if not found.prober_blocked or RELAY_WORDS.search(text):
        return False
    if code >= 500:
        return (evidence.enhanced_code or "").startswith("5.7") or bool(
            BLOCK_LIST_WORDS.search(text) or ABOUT_US.search(text)
        )
    return bool(BLOCK_LIST_WORDS.search(text))
