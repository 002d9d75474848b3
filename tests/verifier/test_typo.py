"""Typo suggestions: the usual slips get a suggestion, real domains never get "corrected"."""

import pytest

from verifier.typo import suggest_domain


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("gmial.com", "gmail.com"),
        ("gmail.con", "gmail.com"),
        ("gmai.com", "gmail.com"),
        ("gnail.com", "gmail.com"),
        ("gmaill.com", "gmail.com"),
        ("gamil.com", "gmail.com"),
        ("gmail.cmo", "gmail.com"),
        ("gmail.comm", "gmail.com"),
        ("gmaik.con", "gmail.com"),
        ("hotmial.com", "hotmail.com"),
        ("hotmal.com", "hotmail.com"),
        ("hotmai.com", "hotmail.com"),
        ("hotmail.co.ukk", "hotmail.co.uk"),
        ("yaho.com", "yahoo.com"),
        ("yahooo.com", "yahoo.com"),
        ("yahooo.co.uk", "yahoo.co.uk"),
        ("outlok.com", "outlook.com"),
        ("iclod.com", "icloud.com"),
        ("protonmial.com", "protonmail.com"),
        ("googlemial.com", "googlemail.com"),
        ("acme.cmo", "acme.com"),
        ("acme.c0m", "acme.com"),
        ("acme.ogr", "acme.org"),
    ],
)
def test_common_slips_get_a_suggestion(typed: str, meant: str) -> None:
    assert suggest_domain(typed) == meant


@pytest.mark.parametrize(
    "domain",
    [
        # real providers, some one edit away from a bigger one
        "gmail.com",
        "gmx.de",
        "gmx.net",
        "gmx.com",
        "me.com",
        "mac.com",
        "web.de",
        "mail.com",
        "email.com",
        "ymail.com",
        "aol.com",
        "live.com",
        "msn.com",
        "yahoo.co.uk",
        "hotmail.co",
        "qq.com",
        "163.com",
        "ya.ru",
        "bk.ru",
        "wp.pl",
        "o2.pl",
        "sky.com",
        "att.net",
        "cox.net",
        "hey.com",
        "tutanota.de",
        # relays
        "duck.com",
        "mozmail.com",
        "simplelogin.io",
        # companies and real TLDs close to a provider or a common TLD
        "be.com",
        "mc.com",
        "acme.com",
        "acme.io",
        "example.co",
        "company.cm",
        "amazon.com",
        "apple.com",
        "yahoo.net",
        "mail.google.com",
        # reserved names (the mail lab lives under .test)
        "mailbox.test",
        "catchall.test",
        "gmial.test",
        "x.example",
    ],
)
def test_real_domains_get_no_suggestion(domain: str) -> None:
    assert suggest_domain(domain) is None
