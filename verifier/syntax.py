"""Address syntax: an RFC 5321 ``Mailbox`` (RFC 6531 when internationalised) that fits ``RCPT TO:<...>``.

Built on ``email-validator`` (maintained, IDNA 2008 through ``idna``, careful Unicode rules) with a thin layer
around it for what a deliverability service needs and the library leaves to its caller:

* before it: any ``str`` is accepted without raising; lone surrogates, control characters (which RFC 5321
  allows nowhere, not even quoted) and surrounding white space are refused with a plain reason;
* after it: the local part is limited to 64 *octets* (the library counts characters and only in strict
  mode), an IPv6 literal whose ``::`` stands for a single group is refused (RFC 5321 4.1.3), and a dotless
  domain, when allowed, still needs a TLD ending in a letter.

``parse_address`` judges exactly the text it is given (the corpora test it so). The engine calls
``parse_input``, which first trims the blanks a copy from a spreadsheet, PDF or web page brings along
(white space, zero-width characters, a BOM) and keeps the untouched input for the result to echo.
``result_email`` is the one place a result's ``email`` is written from what was submitted.

Optional RFC forms are off by default, as ``../shared/corpora/README.md`` recommends for a deliverability
service; ``SyntaxPolicy`` turns each on. Non-ASCII local parts (SMTPUTF8) and Unicode domains (IDNA 2008)
are on by default: the engine supports RFC 6531, and the prober reports "unknown" when a server cannot
take such a local part.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field, replace

import idna
from email_validator import EmailNotValidError, ValidatedEmail, validate_email
from email_validator.syntax import validate_email_length

LOCAL_PART_MAX_OCTETS = 64
_BAD_QUOTED_PAIR = re.compile(r"\\(?![ -~])")  # a backslash not followed by printable ASCII
IPV6_GROUPS = 8
# Trimmed around an address, never inside it: ASCII white space, NEL, every Unicode space separator (Zs),
# the line and paragraph separators, the zero-width space/non-joiner/joiner, the word joiner and the BOM.
SURROUNDING_BLANKS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\u200b\u200c\u200d\u2060\ufeff"
)


@dataclass(frozen=True, slots=True)
class SyntaxPolicy:
    """Which legal-but-unusual forms are accepted. The defaults are the service's policy."""

    quoted_local: bool = False  # "john doe"@example.com (RFC 5321 Quoted-string)
    address_literal: bool = False  # user@[192.0.2.1], user@[IPv6:2001:db8::1]
    dotless_domain: bool = False  # user@localhost-style names; ICANN bars dotless gTLDs
    smtputf8: bool = True  # non-ASCII local parts (RFC 6531)
    unicode_domain: bool = True  # IDN domains typed in Unicode (IDNA 2008); A-labels are always fine
    test_domains: bool = False  # *.test (RFC 6761): the mail lab's zones, never a real mailbox


DEFAULT_POLICY = SyntaxPolicy()


@dataclass(frozen=True, slots=True)
class ParsedAddress:
    """A syntactically valid address, normalised: lowercase, NFC local part, Unicode and A-label domains.

    ``typed`` is the address as the user typed it (what ``result_email`` lowercases for a result), and
    ``input`` the text exactly as submitted (blanks around it included, see ``parse_input``), which a
    result echoes. Grouping and probing use the normalised forms.
    """

    email: str
    local_part: str
    domain: str
    ascii_domain: str
    needs_smtputf8: bool
    literal_ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None = None
    typed: str = field(kw_only=True)
    input: str = field(kw_only=True)

    @property
    def is_literal(self) -> bool:
        """True for ``user@[ip]``: there is no domain to resolve, the IP is the mail host."""
        return self.literal_ip is not None

    @property
    def smtp_address(self) -> str:
        """The form for ``RCPT TO``: the A-label domain works with or without SMTPUTF8."""
        return f"{self.local_part}@{self.ascii_domain}"


@dataclass(frozen=True, slots=True)
class SyntaxFailure:
    """Why the input is not an address; ``reason`` is a plain sentence meant for the end user."""

    reason: str


def parse_input(raw: str, policy: SyntaxPolicy = DEFAULT_POLICY) -> ParsedAddress | SyntaxFailure:
    """What the engine judges: ``raw`` with the blanks around it trimmed, parsed; ``input`` keeps ``raw``."""
    parsed = parse_address(trim(raw) if isinstance(raw, str) else raw, policy)
    return replace(parsed, input=raw) if isinstance(parsed, ParsedAddress) else parsed


def trim(raw: str) -> str:
    """``raw`` without ``SURROUNDING_BLANKS`` at either end (inside an address they are still refused)."""
    return raw.strip(SURROUNDING_BLANKS)


def result_email(raw: str) -> str:
    """A result's ``email`` (spec 2.1: the address validated, normalised to lowercase): ``raw`` trimmed and
    lowercased, the domain kept in the form it was written (an A-label stays ``xn--``, a Unicode domain
    stays Unicode). Any text has one, an address or not; clients join on ``input`` and ``index``."""
    text = trim(raw)
    local, at, domain = text.rpartition("@")
    return f"{local.lower()}@{_lowercase_domain(domain)}" if at else text.lower()


def _lowercase_domain(domain: str) -> str:
    """A Unicode domain is lowercased as IDNA reads it (UTS 46, non-transitional), not by ``str.lower``
    or ``casefold``: those turn a ``Σ`` ending the text into ``ς`` and ``ß`` into ``ss``, each another
    domain to IDNA 2008."""
    if domain.isascii():
        return domain.lower()
    try:
        return idna.uts46_remap(domain, std3_rules=False, transitional=False)
    except idna.IDNAError:  # not a domain (the syntax check says why): lowercased as text
        return domain.lower()


def parse_address(raw: str, policy: SyntaxPolicy = DEFAULT_POLICY) -> ParsedAddress | SyntaxFailure:
    """Parse and normalise one address exactly as given. Never raises, whatever the input."""
    reason = _reason_to_refuse_text(raw)
    if reason is not None:
        return SyntaxFailure(reason)
    try:
        validated = _validate(raw, policy)
    except (EmailNotValidError, ValueError) as error:  # idna's errors are ValueErrors too
        return SyntaxFailure(str(error) or "The address is not valid.")
    reason = _reason_to_refuse_parsed(validated, policy)
    return SyntaxFailure(reason) if reason is not None else _parsed(validated, raw)


# Unicode's control characters (category Cc) are exactly these two ranges: one search in C, where a
# category lookup per character cost every address a few microseconds.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _reason_to_refuse_text(raw: object) -> str | None:
    """Checks on the raw text that email-validator either does not make or reports less plainly."""
    if not isinstance(raw, str):
        return "The address must be text."
    if not raw:
        return "The address is empty."
    if not _is_encodable(raw):
        return "The address contains invalid Unicode (a lone surrogate)."
    if control := _CONTROL.search(raw):
        return f"The address contains a control character (U+{ord(control.group()):04X})."
    if raw != raw.strip():
        return "The address has white space before or after it."
    return None


def _is_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# A list holds thousands of addresses at each of a few domains, and email-validator spends about two
# thirds of an address on its domain. Each valid domain name's normalised forms, as the library returned
# them for an address typed with it under a policy, are kept; a later address at that domain whose local
# part is a plain dot-atom of ASCII letters, digits and ``_+-`` within 64 characters (which the library
# returns unchanged) gets them with the library's own length check; every other address goes through the
# library whole.
DOMAIN_MEMO_ENTRIES = 10_000
DOMAIN_MEMO: dict[tuple[str, SyntaxPolicy], tuple[str, str]] = {}
_PLAIN_LOCAL = re.compile(r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*")


def _validate(raw: str, policy: SyntaxPolicy) -> ValidatedEmail:
    local, _, domain_part = raw.rpartition("@")
    known = DOMAIN_MEMO.get((domain_part, policy))
    if known is not None and len(local) <= LOCAL_PART_MAX_OCTETS and _PLAIN_LOCAL.fullmatch(local):
        return _at_known_domain(local, domain_part, known)
    validated = _validate_whole(raw, policy)
    if getattr(validated, "domain_address", None) is None:  # a name, not a literal
        if len(DOMAIN_MEMO) >= DOMAIN_MEMO_ENTRIES:
            DOMAIN_MEMO.clear()
        DOMAIN_MEMO[(domain_part, policy)] = (validated.domain, validated.ascii_domain)
    return validated


def _at_known_domain(local: str, domain_part: str, known: tuple[str, str]) -> ValidatedEmail:
    """What the library returns for ``local@domain_part``, the domain's forms ``known`` from an earlier
    address: a plain local part is its own normal and ASCII form and needs no SMTPUTF8."""
    validated = ValidatedEmail()
    validated.original = f"{local}@{domain_part}"
    validated.local_part = validated.ascii_local_part = local
    validated.smtputf8 = False
    validated.domain, validated.ascii_domain = known
    validated.normalized = f"{local}@{validated.domain}"
    validated.ascii_email = f"{local}@{validated.ascii_domain}"
    validated.display_name = None
    validate_email_length(validated)
    return validated


def _validate_whole(raw: str, policy: SyntaxPolicy) -> ValidatedEmail:
    return validate_email(
        raw,
        allow_smtputf8=policy.smtputf8,
        allow_quoted_local=policy.quoted_local,
        allow_domain_literal=policy.address_literal,
        allow_display_name=False,
        allow_empty_local=False,
        strict=True,
        check_deliverability=False,
        globally_deliverable=not policy.dotless_domain,
        test_environment=policy.test_domains,
    )


def _reason_to_refuse_parsed(validated: ValidatedEmail, policy: SyntaxPolicy) -> str | None:
    typed_local, _, typed_domain = validated.original.rpartition("@")
    if len(typed_local.encode("utf-8")) > LOCAL_PART_MAX_OCTETS:
        return f"The part before the @-sign is longer than {LOCAL_PART_MAX_OCTETS} bytes."
    if _has_bad_quoted_pair(typed_local):
        return "Inside quotes, a backslash may only escape a printable ASCII character."
    if not policy.unicode_domain and not typed_domain.isascii():
        return "Internationalized characters after the @-sign are not supported."
    if isinstance(_literal_ip(validated), ipaddress.IPv6Address):
        return _reason_to_refuse_ipv6_literal(typed_domain)
    if policy.dotless_domain and _literal_ip(validated) is None:
        return _reason_to_refuse_tld(validated.ascii_domain)
    return None


def _has_bad_quoted_pair(typed_local: str) -> bool:
    """RFC 5321 quoted-pairSMTP is a backslash and ASCII 32-126; RFC 6531 widens qtext only, not the pair.

    email-validator lets a backslash escape anything, so ``"test\\©"`` needs this check. Escaped
    backslashes are complete pairs and are dropped first.
    """
    unpaired = typed_local.replace("\\\\", "")
    return typed_local.startswith('"') and _BAD_QUOTED_PAIR.search(unpaired) is not None


def _reason_to_refuse_ipv6_literal(literal: str) -> str | None:
    """RFC 5321 IPv6-comp: ``::`` replaces at least two groups, so at most six may be written."""
    text = literal.strip("[]")[len("IPv6:") :]
    if "::" not in text:
        return None
    written = sum(2 if "." in group else 1 for group in text.split(":") if group)
    if written > IPV6_GROUPS - 2:
        return "The IPv6 address uses '::' for a single group, which RFC 5321 does not allow."
    return None


def _reason_to_refuse_tld(ascii_domain: str) -> str | None:
    """The check email-validator skips when dotless names are allowed: no TLD can end without a letter."""
    if not ascii_domain.rpartition(".")[2][-1:].isalpha():
        return "The part after the @-sign does not end in a valid top-level domain."
    return None


def _parsed(validated: ValidatedEmail, raw: str) -> ParsedAddress:
    local_part = validated.local_part.lower()
    domain = validated.domain.lower()
    return ParsedAddress(
        email=f"{local_part}@{domain}",
        local_part=local_part,
        domain=domain,
        ascii_domain=validated.ascii_domain.lower(),
        needs_smtputf8=validated.smtputf8,
        literal_ip=_literal_ip(validated),
        typed=raw,
        input=raw,
    )


def _literal_ip(validated: ValidatedEmail) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """email-validator sets ``domain_address`` only for literals and types it as ``object``."""
    ip = getattr(validated, "domain_address", None)
    return ip if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address) else None
