"""Provider rules keyed on MX host names: mailbox providers whose RCPT replies need special reading.

These are *probing* rules (how to talk and what a reply proves), not the ``mailboxProvider`` check,
which the lists module owns. They key on MX host names because that is what the prober sees, and a
custom domain hosted at Microsoft or Yahoo behaves like the provider, not like its own name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Provider(StrEnum):
    GENERIC = "generic"
    YAHOO = "yahoo"  # Yahoo and AOL share *.yahoodns.net
    OUTLOOK_COM = "outlook.com"  # consumer Outlook/Hotmail: *.olc.protection.outlook.com
    MICROSOFT_365 = "microsoft365"  # Exchange Online: *.mail.protection.outlook.com


@dataclass(frozen=True, slots=True)
class ProviderRules:
    """How to probe a provider.

    - ``accepts_all_at_rcpt``: RCPT is accepted for any local part and bounced later, so a 250 proves
      nothing (the catch-all probe would say "catch-all" falsely, so it is skipped too).
    - ``one_rcpt_per_session``: a second RCPT on a connection is refused; use one connection per address.
    - ``catch_all_own_session``: the provider counts unknown recipients per connection (directory
      harvest protection), so the random-address probe must not share the real recipients' session.
    - ``access_denied_is_reject``: ``550 5.4.1 ... Access denied`` means "no such recipient" (Exchange
      Online directory-based edge blocking), although 5.4.x generically means a routing problem.
    """

    provider: Provider = Provider.GENERIC
    accepts_all_at_rcpt: bool = False
    one_rcpt_per_session: bool = False
    catch_all_own_session: bool = False
    access_denied_is_reject: bool = False


_RULES: tuple[tuple[str, ProviderRules], ...] = (
    (".yahoodns.net", ProviderRules(Provider.YAHOO, accepts_all_at_rcpt=True)),
    (
        ".olc.protection.outlook.com",
        ProviderRules(Provider.OUTLOOK_COM, one_rcpt_per_session=True, catch_all_own_session=True),
    ),
    (
        ".mail.protection.outlook.com",
        ProviderRules(Provider.MICROSOFT_365, catch_all_own_session=True, access_denied_is_reject=True),
    ),
)


def rules_for(mx_hosts: Sequence[str]) -> ProviderRules:
    """The rules of the provider running the most preferred MX host we recognise, else generic ones."""
    for host in mx_hosts:
        name = "." + host.lower().rstrip(".")
        for suffix, rules in _RULES:
            if name.endswith(suffix):
                return rules
    return ProviderRules()
