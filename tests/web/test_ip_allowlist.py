"""IP allowlists at the door: exact and CIDR, IPv4 and IPv6, mixed; X-Forwarded-For only when trusted."""

from __future__ import annotations

import pytest

from tests.fixtures.db import Persona, add_key, create_test_app

MIXED = ("198.51.100.7", "10.0.0.0/8", "2001:db8::/32", "::1")


def call_from(client, persona: Persona, ip: str, **headers: str):
    return client.get("/api/keys", headers=persona.headers | headers, environ_base={"REMOTE_ADDR": ip})


@pytest.fixture
def fenced(owner: Persona) -> Persona:
    return add_key(owner.account_id, "Fenced admin", ("*:*",), allowed_ips=MIXED)


@pytest.mark.parametrize("ip", ["198.51.100.7", "10.20.30.40", "2001:db8:1::5", "::1", "::ffff:10.1.2.3"])
def test_clients_inside_the_allowlist_get_in(client, fenced: Persona, ip: str) -> None:
    assert call_from(client, fenced, ip).status_code == 200


@pytest.mark.parametrize("ip", ["198.51.100.8", "11.0.0.1", "2001:db9::1", "::2", "127.0.0.1"])
def test_clients_outside_the_allowlist_are_refused_with_ip_not_allowed(
    client, fenced: Persona, ip: str
) -> None:
    response = call_from(client, fenced, ip)
    assert response.status_code == 403
    assert response.json["error"]["code"] == "IP_NOT_ALLOWED"
    assert response.json["error"]["clientIp"] == ip
    assert response.json["error"]["allowedIps"] == list(MIXED)


def test_a_key_without_an_allowlist_is_accepted_from_anywhere(client, owner: Persona) -> None:
    assert call_from(client, owner, "203.0.113.50").status_code == 200


def test_spoofed_forwarded_for_is_ignored_without_trusted_proxies(client, fenced: Persona) -> None:
    response = call_from(client, fenced, "203.0.113.50", **{"X-Forwarded-For": "198.51.100.7"})
    assert response.status_code == 403
    assert response.json["error"]["clientIp"] == "203.0.113.50"


def test_behind_one_trusted_proxy_only_the_address_it_appended_counts(fenced: Persona) -> None:
    client = create_test_app(trusted_proxies=1).test_client()
    # The client wrote the first entry itself; the proxy appended the real peer (203.0.113.50).
    spoofed = call_from(client, fenced, "127.0.0.1", **{"X-Forwarded-For": "198.51.100.7, 203.0.113.50"})
    assert spoofed.status_code == 403
    assert spoofed.json["error"]["clientIp"] == "203.0.113.50"
    honest = call_from(client, fenced, "127.0.0.1", **{"X-Forwarded-For": "10.9.8.7"})
    assert honest.status_code == 200
