"""Providers are recognised by every MX host form they publish, and their replies read by their rules."""

from __future__ import annotations

import pytest

from verifier.smtp import ProbeOutcome, ReplyEvidence, SmtpVerdict, classify, rules_for
from verifier.smtp.providers import Provider

MICROSOFT_365_FORMS = (
    "contoso-com.mail.protection.outlook.com",
    "contoso-com.o-v1.mx.microsoft",  # the newer <tenant>.<region>.mx.microsoft form
    "contoso-us.mail.protection.office365.us",
    "contoso-cn.mail.protection.partner.outlook.cn",
)
MX_FORMS = (
    ("aspmx.l.google.com", Provider.GOOGLE),
    ("alt1.aspmx.l.google.com", Provider.GOOGLE),
    ("alt4.aspmx.l.google.com", Provider.GOOGLE),
    ("aspmx2.googlemail.com", Provider.GOOGLE),
    ("smtp.google.com", Provider.GOOGLE),
    ("gmail-smtp-in.l.google.com", Provider.GOOGLE),
    *((form, Provider.MICROSOFT_365) for form in MICROSOFT_365_FORMS),
    ("hotmail-com.olc.protection.outlook.com", Provider.OUTLOOK_COM),
    ("mta5.am0.yahoodns.net", Provider.YAHOO),
    ("mx-aol.mail.gm0.yahoodns.net", Provider.YAHOO),
    ("mx-biz.mail.am0.yahoodns.net", Provider.YAHOO),
    ("mx01.mail.icloud.com", Provider.ICLOUD),
    ("mx02.mail.icloud.com", Provider.ICLOUD),
    ("mx.zoho.com", Provider.ZOHO),
    ("mx2.zoho.eu", Provider.ZOHO),
    ("mx.zoho.in", Provider.ZOHO),
    ("mx.zoho.com.au", Provider.ZOHO),
    ("mx.zoho.jp", Provider.ZOHO),
    ("mx.zohocloud.ca", Provider.ZOHO),
    ("mx.zoho.sa", Provider.ZOHO),
    ("mail.protonmail.ch", Provider.PROTON),
    ("mailsec.protonmail.ch", Provider.PROTON),
    ("in1-smtp.messagingengine.com", Provider.FASTMAIL),
    ("in2-smtp.messagingengine.com", Provider.FASTMAIL),
    ("mx00.gmx.net", Provider.GMX),
    ("mx01.gmx.com", Provider.GMX),
    ("mx-ha02.web.de", Provider.GMX),
    ("mx00.mail.com", Provider.GMX),
    ("mx.yandex.ru", Provider.YANDEX),
    ("mx.yandex.net", Provider.YANDEX),
    ("mx.yandex.com", Provider.YANDEX),
    ("us-smtp-inbound-1.mimecast.com", Provider.MIMECAST),
    ("za-smtp-inbound-1.mimecast.co.za", Provider.MIMECAST),
    ("se-smtp-inbound-1.mimecast-offshore.com", Provider.MIMECAST),
    ("mx0a-001b2d01.pphosted.com", Provider.PROOFPOINT),
    ("mx1-us1.ppe-hosted.com", Provider.PROOFPOINT),
    ("d123456a.ess.barracudanetworks.com", Provider.BARRACUDA),
    ("mx1.hc1234-56.iphmx.com", Provider.CISCO),
)
ACCESS_DENIED = "Recipient address rejected: Access denied. AS(201806281) [x.prod.protection.outlook.com]"


@pytest.mark.parametrize(("mx_host", "provider"), MX_FORMS, ids=[host for host, _ in MX_FORMS])
def test_each_published_mx_form_names_its_provider(mx_host, provider):
    assert rules_for([mx_host]).provider is provider
    assert rules_for([mx_host.upper() + "."]).provider is provider  # DNS spelling: any case, trailing dot


@pytest.mark.parametrize(
    "mx_host", ["mx.example.com", "mail.notgoogle.com", "aspmx.l.google.com.example.net", "gmail.com"]
)
def test_look_alike_names_are_no_provider(mx_host):
    assert rules_for([mx_host]).provider is Provider.GENERIC


@pytest.mark.parametrize("mx_host", MICROSOFT_365_FORMS)
def test_microsoft_365_access_denied_means_no_such_user_under_every_mx_form(mx_host):
    evidence = ReplyEvidence(
        mx_host, "192.0.2.1", "RCPT TO:<zed@contoso.com>", 550, "5.4.1", ACCESS_DENIED, True, 1
    )
    found = classify(evidence, rules_for([mx_host]), 300, rcpt=True)
    assert (found.outcome, found.reason) == (ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected")


def test_microsoft_365_newer_mx_form_gets_its_rules_against_a_real_server(probe):
    result = probe("m365-new.test", "alice", "zed")
    assert result.provider == "microsoft365"
    assert result["alice@m365-new.test"].verdict is SmtpVerdict.DELIVERABLE
    assert result["zed@m365-new.test"].verdict is SmtpVerdict.UNDELIVERABLE


def test_a_full_mailbox_leads_to_the_catch_all_probe(probe, lab):
    result = probe("full.test", "full")
    assert result["full@full.test"].verdict is SmtpVerdict.FULL
    assert result.catch_all is False  # the random address was refused: the server checks mailboxes
    assert result.catch_all_probe is not None
    assert result.catch_all_probe.outcome is ProbeOutcome.REJECTED_MAILBOX
