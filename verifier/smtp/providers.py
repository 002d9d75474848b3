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
    GOOGLE = "google"  # Gmail and Google Workspace
    YAHOO = "yahoo"  # Yahoo and AOL share *.yahoodns.net
    OUTLOOK_COM = "outlook.com"  # consumer Outlook/Hotmail: *.olc.protection.outlook.com
    MICROSOFT_365 = "microsoft365"  # Exchange Online, in both of its MX forms
    ICLOUD = "icloud"
    ZOHO = "zoho"
    PROTON = "proton"
    FASTMAIL = "fastmail"
    GMX = "gmx"  # GMX, web.de and mail.com (one operator)
    YANDEX = "yandex"
    MIMECAST = "mimecast"  # filtering gateways in front of a company's own server
    PROOFPOINT = "proofpoint"
    BARRACUDA = "barracuda"
    CISCO = "cisco"  # Cisco Secure Email (IronPort) cloud


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


_MICROSOFT_365 = ProviderRules(
    Provider.MICROSOFT_365, catch_all_own_session=True, access_denied_is_reject=True
)

# Every MX host name form each provider publishes, as name suffixes (matched on a label boundary).
_RULES: tuple[tuple[tuple[str, ...], ProviderRules], ...] = (
    ((".yahoodns.net",), ProviderRules(Provider.YAHOO, accepts_all_at_rcpt=True)),
    (
        (".olc.protection.outlook.com",),
        ProviderRules(Provider.OUTLOOK_COM, one_rcpt_per_session=True, catch_all_own_session=True),
    ),
    (
        # <tenant>.mail.protection.outlook.com, the newer <tenant>.<region>.mx.microsoft (DNSSEC-signed),
        # and the sovereign clouds (US government, 21Vianet in China)
        (
            ".mail.protection.outlook.com",
            ".mx.microsoft",
            ".mail.protection.office365.us",
            ".mail.protection.partner.outlook.cn",
        ),
        _MICROSOFT_365,
    ),
    # aspmx.l.google.com, alt1-4.aspmx.l.google.com, aspmx2-5.googlemail.com, smtp.google.com (Workspace's
    # single MX since 2023), gmail-smtp-in.l.google.com (gmail.com itself)
    ((".google.com", ".googlemail.com"), ProviderRules(Provider.GOOGLE)),
    ((".mail.icloud.com",), ProviderRules(Provider.ICLOUD)),  # mx01/mx02.mail.icloud.com
    (
        (".zoho.com", ".zoho.eu", ".zoho.in", ".zoho.com.au", ".zoho.jp", ".zohocloud.ca", ".zoho.sa"),
        ProviderRules(Provider.ZOHO),
    ),
    ((".protonmail.ch",), ProviderRules(Provider.PROTON)),  # mail. and mailsec.protonmail.ch
    ((".messagingengine.com",), ProviderRules(Provider.FASTMAIL)),  # in1-smtp/in2-smtp.messagingengine.com
    ((".gmx.net", ".gmx.com", ".web.de", ".mail.com"), ProviderRules(Provider.GMX)),
    ((".yandex.ru", ".yandex.net", ".yandex.com"), ProviderRules(Provider.YANDEX)),
    ((".mimecast.com", ".mimecast.co.za", ".mimecast-offshore.com"), ProviderRules(Provider.MIMECAST)),
    ((".pphosted.com", ".ppe-hosted.com"), ProviderRules(Provider.PROOFPOINT)),  # Proofpoint, Essentials
    ((".barracudanetworks.com",), ProviderRules(Provider.BARRACUDA)),
    ((".iphmx.com",), ProviderRules(Provider.CISCO)),
)


def rules_for(mx_hosts: Sequence[str]) -> ProviderRules:
    """The rules of the provider running the most preferred MX host we recognise, else generic ones."""
    for host in mx_hosts:
        name = "." + host.lower().rstrip(".")
        for suffixes, rules in _RULES:
            if name.endswith(suffixes):
                return rules
    return ProviderRules()
