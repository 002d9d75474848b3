"""What ``parse_address`` and ``parse_input`` give a caller: a normalised address, or a plain reason."""

import ipaddress
import sys
import unicodedata

import pytest

from verifier.syntax import (
    DEFAULT_POLICY,
    SURROUNDING_BLANKS,
    ParsedAddress,
    SyntaxFailure,
    SyntaxPolicy,
    parse_address,
    parse_input,
    result_email,
    trim,
)

ALL_FORMS = SyntaxPolicy(quoted_local=True, address_literal=True, dotless_domain=True)


def parsed(raw: str, policy: SyntaxPolicy = DEFAULT_POLICY) -> ParsedAddress:
    result = parse_address(raw, policy)
    assert isinstance(result, ParsedAddress), result
    return result


def reason(raw: str, policy: SyntaxPolicy = DEFAULT_POLICY) -> str:
    result = parse_address(raw, policy)
    assert isinstance(result, SyntaxFailure), result
    return result.reason


def test_address_is_normalised_to_lowercase() -> None:
    address = parsed("John.Doe@Example.COM")
    assert (address.email, address.local_part, address.domain) == (
        "john.doe@example.com",
        "john.doe",
        "example.com",
    )


def test_idn_domain_keeps_unicode_and_gives_its_a_label() -> None:
    address = parsed("user@Bücher.example")
    assert address.domain == "bücher.example"
    assert address.ascii_domain == "xn--bcher-kva.example"
    assert address.smtp_address == "user@xn--bcher-kva.example"
    assert not address.needs_smtputf8


def test_a_label_domain_is_shown_in_unicode() -> None:
    assert parsed("user@xn--bcher-kva.example").domain == "bücher.example"


def test_non_ascii_local_part_needs_smtputf8() -> None:
    address = parsed("δοκιμή@παράδειγμα.δοκιμή")
    assert address.needs_smtputf8
    assert address.ascii_domain == "xn--hxajbheg2az3al.xn--jxalpdlp"


def test_local_part_is_nfc_normalised() -> None:
    assert parsed("cafe\u0301@example.com").local_part == "café"


def test_non_ascii_can_be_switched_off() -> None:
    ascii_only = SyntaxPolicy(smtputf8=False, unicode_domain=False)
    assert "Internationalized characters before the @-sign" in reason("δοκιμή@example.com", ascii_only)
    assert "Internationalized characters after the @-sign" in reason("user@bücher.example", ascii_only)
    assert parsed("user@xn--bcher-kva.example", ascii_only).domain == "bücher.example"


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("", "empty"),
        ("plainaddress", "must have an @-sign"),
        ("a@b@example.com", "invalid characters"),
        ("@example.com", "something before the @-sign"),
        ("user@", "something after the @-sign"),
        (" user@example.com", "white space before or after"),
        ("user@example.com\n", "control character (U+000A)"),
        ("us\u0000er@example.com", "control character (U+0000)"),
        ("us er@example.com", "invalid characters before the @-sign"),
        ("user(comment)@example.com", "invalid characters before the @-sign"),
        ("user@example(comment).com", "invalid characters"),
        ("John <john@example.com>", "display name"),
        (".user@example.com", "cannot start with a period"),
        ("us..er@example.com", "two periods in a row"),
        ("user@-example.com", "hyphen"),
        ("user@example", "should have a period"),
        ("user@example.123", "valid top-level domain"),
        ("user@255.255.255.255", "valid top-level domain"),
        ("user@mail.localhost", "special-use or reserved name"),
        ('"quoted"@example.com', "Quoting the part before the @-sign is not allowed"),
        ("user@[192.0.2.1]", "bracketed IP address"),
        ("us\ud800er@example.com", "lone surrogate"),
    ],
)
def test_refusals_name_the_problem(raw: str, words: str) -> None:
    assert words in reason(raw)


def test_local_part_is_limited_to_64_octets_not_characters() -> None:
    assert parsed("a" * 64 + "@example.com").local_part == "a" * 64
    assert "longer than 64 bytes" in reason("é" * 33 + "@example.com")  # 33 characters, 66 octets
    assert "too long before the @-sign" in reason("a" * 65 + "@example.com")


def test_address_is_limited_to_254_octets() -> None:
    domain = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 47]) + ".com"  # 243 octets
    assert len(parsed("abcdefghij@" + domain).email) == 254
    assert "too long" in reason("abcdefghijk@" + domain)


def test_domain_labels_and_names_are_limited() -> None:
    assert "so many characters" in reason("user@" + "a" * 64 + ".com")
    long_domain = ".".join(["a" * 63] * 4) + ".com"  # 259 octets
    assert "too long after the @-sign" in reason("u@" + long_domain)


def test_quoted_local_part_accepted_only_when_enabled() -> None:
    address = parsed('"John Doe"@example.com', SyntaxPolicy(quoted_local=True))
    assert address.email == '"john doe"@example.com'
    assert parsed('"plain"@example.com', SyntaxPolicy(quoted_local=True)).email == "plain@example.com"


def test_quoted_pair_may_only_escape_printable_ascii() -> None:
    assert parsed('"a\\ b"@example.com', ALL_FORMS).local_part == '"a b"'
    assert "backslash may only escape" in reason('"test\\©"@example.com', ALL_FORMS)
    assert "something before the @-sign" in reason('""@example.com', ALL_FORMS)


def test_address_literals_accepted_only_when_enabled() -> None:
    v4 = parsed("user@[192.0.2.1]", SyntaxPolicy(address_literal=True))
    assert v4.is_literal
    assert v4.literal_ip == ipaddress.ip_address("192.0.2.1")
    v6 = parsed("user@[IPv6:2001:DB8::1]", SyntaxPolicy(address_literal=True))
    assert (v6.email, v6.literal_ip) == ("user@[ipv6:2001:db8::1]", ipaddress.ip_address("2001:db8::1"))
    assert not parsed("user@example.com").is_literal


@pytest.mark.parametrize(
    "literal",
    ["IPv6:1:2:3:4:5:6::7", "IPv6:1:2:3:4:5::1.2.3.4", "IPv6:1::2::3", "IPv6:1:2:3", "IPv6:fe80::1%eth0"],
)
def test_bad_ipv6_literals_are_refused(literal: str) -> None:
    assert isinstance(parse_address(f"user@[{literal}]", ALL_FORMS), SyntaxFailure)


def test_dotless_domains_accepted_only_when_enabled_and_never_numeric() -> None:
    assert parsed("user@intranet", SyntaxPolicy(dotless_domain=True)).domain == "intranet"
    assert "valid top-level domain" in reason("user@123", SyntaxPolicy(dotless_domain=True))
    assert "valid top-level domain" in reason("user@host.123", SyntaxPolicy(dotless_domain=True))


def test_test_domains_only_for_the_lab() -> None:
    assert "special-use" in reason("user@mx.lab.test")
    assert parsed("user@mx.lab.test", SyntaxPolicy(test_domains=True)).domain == "mx.lab.test"


@pytest.mark.parametrize("raw", [None, 42, b"user@example.com", ["user@example.com"]])
def test_non_text_input_is_refused_not_raised(raw: object) -> None:
    assert reason(raw) == "The address must be text."  # type: ignore[arg-type]


def test_parse_address_judges_exactly_what_it_is_given_and_parse_input_trims_first() -> None:
    assert "white space before or after" in reason("\u00a0user@example.com")
    result = parse_input("\ufeff\u00a0User@Example.COM\u200b\r\n")
    assert isinstance(result, ParsedAddress)
    assert (result.input, result.typed, result.email) == (
        "\ufeff\u00a0User@Example.COM\u200b\r\n",
        "User@Example.COM",
        "user@example.com",
    )


@pytest.mark.parametrize(
    ("raw", "email"),
    [
        ("\u00a0John.Doe@Example.COM\t", "john.doe@example.com"),
        ("Jörg@Xn--Mnchen-3ya.DE", "jörg@xn--mnchen-3ya.de"),  # an A-label stays one
        ("JÖRG@MÜNCHEN.DE", "jörg@münchen.de"),  # a Unicode domain stays Unicode
        ("Hans@STRAẞE.DE", "hans@straße.de"),  # not casefolded: strasse.de is another domain
        ("info@ΟΔΟΣ.ΕΛΛΑΣ", "info@οδοσ.ελλασ"),  # str.lower would end it in a final sigma
        ("Not An Address", "not an address"),
        ("", ""),
    ],
)
def test_a_result_email_is_the_trimmed_text_in_lowercase_with_the_domain_in_its_written_form(
    raw: str, email: str
) -> None:
    assert result_email(raw) == email


def test_every_unicode_space_separator_is_trimmed() -> None:
    spaces = {chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Zs"}
    assert spaces <= set(SURROUNDING_BLANKS)
    assert set(SURROUNDING_BLANKS) - spaces == set("\t\n\v\f\r\x85\u2028\u2029\u200b\u200c\u200d\u2060\ufeff")


def test_trim_leaves_what_is_inside_and_what_is_not_blank() -> None:
    assert trim("\u200b a b \u200b") == "a b"
    assert trim("\x1fuser@example.com") == "\x1fuser@example.com"  # a control character is refused, not cut
    assert "control character (U+001F)" in str(parse_input("\x1fuser@example.com"))
