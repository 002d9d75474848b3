"""The written forms of an allowlist entry, as one regular expression: what the service accepts and what
/openapi.json says it accepts are the same text.

An entry is an IPv4 address (dotted decimal, no leading zeros), an IPv6 address (hexadecimal groups, at
most one ``::``), or a CIDR range of either whose address has no host bits set (``10.0.0.0/24``, never
``10.0.0.7/24``). "No host bits set" is spelled out per prefix length, which is why the expression is
generated: for ``/n`` the groups past the prefix are zero, and the group the prefix ends in has its low
bits zero. ``ipaddress`` alone is more lenient (``/032``, zone ids, dotted IPv4 inside IPv6), and a client
reading the document could not know that.
"""

from __future__ import annotations

import re

HEX = "[0-9a-fA-F]"
ANY_GROUP = HEX + "{1,4}"
ZERO_GROUP = "0{1,4}"
OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"


def _numbers(values: range) -> str:
    return "(?:" + "|".join(str(value) for value in values) + ")"


def _ipv4_network(prefix: int) -> str:
    """Dotted quads whose bits past ``prefix`` are zero."""
    whole, rest = divmod(prefix, 8)
    octets = [OCTET] * whole
    if whole < 4:
        octets.append(_numbers(range(0, 256, 2 ** (8 - rest))) if rest else "0")
        octets += ["0"] * (3 - whole)
    return r"\.".join(octets)


def _ipv4() -> str:
    ranges = (f"{_ipv4_network(prefix)}/{prefix}" for prefix in range(33))
    return "|".join([r"\.".join([OCTET] * 4), *ranges])


def _group_with_low_zero_bits(bits: int) -> str:
    """One hexadecimal group (1-4 digits) whose value has its low ``bits`` bits zero."""
    if bits == 0:
        return ANY_GROUP
    zeros, odd = divmod(bits, 4)
    digits = "".join(f"{value:x}{value:X}" for value in range(0, 16, 2**odd))
    tail = (f"[{digits}]" if odd else "") + "0" * zeros
    free = 4 - zeros - (1 if odd else 0)
    return f"(?:{HEX}{{0,{free}}}{tail}|{ZERO_GROUP})"


def _written(count: int, group: str) -> str:
    """``count`` groups joined by colons (nothing for none)."""
    if count == 0:
        return ""
    return group if count == 1 else f"{group}(?::{group}){{{count - 1}}}"


def _zeros_after(count: int) -> str:
    """``count`` zero groups after a written group: written out, or with one ``::`` among them."""
    forms = [f"(?::{ZERO_GROUP}){{{count}}}"] if count else [""]
    for before in range(count):
        after = count - 1 - before
        right = f"(?:{_written(1, ZERO_GROUP)}(?::{ZERO_GROUP}){{0,{after - 1}}})?" if after else ""
        forms.append((f"(?::{ZERO_GROUP}){{{before}}}" if before else "") + f"::{right}")
    return "(?:" + "|".join(forms) + ")"


def _gap_in(count: int) -> str:
    """Groups 1..``count`` written with one ``::`` among them, ending where the next group follows."""
    forms = []
    for left in range(count):
        right = count - 1 - left
        forms.append(_written(left, ANY_GROUP) + "::" + (f"(?:{ANY_GROUP}:){{0,{right}}}" if right else ""))
    return "(?:" + "|".join(forms) + ")"


def _ipv6_forms(last: int, prefixes: range, slash: bool = True) -> str:
    """Addresses whose bits past the prefix are zero, the prefix ending in group ``last`` (1-8), followed
    by ``/n`` for each of ``prefixes`` (or by nothing: an address, ``last`` 8 and ``prefixes`` [128])."""
    head = f"(?:{ANY_GROUP}:){{{last - 1}}}" if last > 1 else ""

    def ending(tail: str) -> str:
        forms = (
            f"{_group_with_low_zero_bits(16 * last - n)}{tail}" + (f"/{n}" if slash else "") for n in prefixes
        )
        return "(?:" + "|".join(forms) + ")"

    forms = [head + ending(_zeros_after(8 - last))]  # the gap, if any, among the zero groups
    if last > 1:  # the gap among the groups before the prefix's last one
        forms.append(_gap_in(last - 1) + ending(f"(?::{ZERO_GROUP}){{{8 - last}}}"))
    gapped = []  # the gap covers the prefix's last group (zero then, whatever the prefix length)
    for left in range(last):
        right = min(7 - left, 8 - last)
        zeros = f"(?:{ZERO_GROUP}(?::{ZERO_GROUP}){{0,{right - 1}}})?" if right else ""
        gapped.append(f"{_written(left, ANY_GROUP)}::{zeros}")
    forms.append("(?:" + "|".join(gapped) + ")" + (f"/{_numbers(prefixes)}" if slash else ""))
    return "|".join(forms)


def _zero_address() -> str:
    """``::`` in every spelling: eight zero groups, or fewer around one gap."""
    gapped = (
        _written(left, ZERO_GROUP)
        + "::"
        + (f"(?:{ZERO_GROUP}(?::{ZERO_GROUP}){{0,{6 - left}}})?" if left < 7 else "")
        for left in range(8)
    )
    return "(?:" + "|".join([_written(8, ZERO_GROUP), *gapped]) + ")"


def _ipv6() -> str:
    ranges = [f"{_zero_address()}/0"]
    ranges += [_ipv6_forms(last, range(16 * last - 15, 16 * last + 1)) for last in range(1, 9)]
    return "|".join([_ipv6_forms(8, range(128, 129), slash=False), *ranges])


# Blanks around an entry are trimmed, so the document admits them too.
ENTRY_PATTERN = rf"^\s*(?:{_ipv4()}|{_ipv6()})\s*$"
ENTRY = re.compile(ENTRY_PATTERN)
