"""Custom domains: a reseller registers a hostname, publishes the TXT challenge in the mail lab's DNS,
verifies it through the engine's resolver; requests through it get links on it, and a Host header that is
not a verified domain of the caller's reseller never appears in anything the service writes."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import requests
from sqlalchemy import select

from maillab import MailLab
from maillab.model import DomainSpec
from models.keys import ApiKey
from models.session import transaction
from services.keys import rotation
from services.mail import outbox
from services.resellers.custom_domains import challenge_name
from settings import get_settings
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.resellers.conftest import Customer, create_sub_user
from tests.resellers.test_white_label import BRAND, brand_of, service_brand
from tests.workers.harness import Api

QUICK = {"options": {"quickMode": True}}


@pytest.fixture
def hostname(lab: MailLab) -> Iterator[str]:
    """A fresh lab name for the test; its challenge is withdrawn from the lab afterwards."""
    name = f"api.brand-{secrets.token_hex(3)}.test"
    yield name
    lab.withdraw(challenge_name(name))


def register(live_api: Api, reseller: Persona, hostname: str) -> dict[str, Any]:
    response = live_api.call("post", "/api/custom-domains", reseller, json={"hostname": hostname})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def verified(live_api: Api, lab: MailLab, reseller: Persona, hostname: str) -> dict[str, Any]:
    domain = register(live_api, reseller, hostname)
    record = domain["verification"]
    lab.publish(DomainSpec(record["name"], txt=(record["value"],)))
    response = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def async_batch(live_api: Api, persona: Customer | Persona, host: str | None = None) -> requests.Response:
    headers = {"Prefer": "respond-async", **({"Host": host} if host else {})}
    body = {"emails": ["alice@mailbox.test"], **QUICK}
    response = live_api.call("post", "/validate/batch", persona, json=body, headers=headers)
    assert response.status_code == 202, response.text
    return response


def test_a_domain_is_verified_once_its_txt_record_is_published(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    domain = register(live_api, reseller, hostname.upper() + ".")
    challenge = f"_domain-challenge.{hostname}"  # a label naming nobody: customers may look it up
    assert (domain["hostname"], domain["status"], domain["verifiedAt"]) == (hostname, "pending", None)
    assert domain["verification"]["type"] == "TXT"
    assert domain["verification"]["name"] == challenge
    assert len(domain["verification"]["value"]) >= 32

    not_yet = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)
    lab.publish(DomainSpec(challenge, txt=("someone-elses-token",)))
    wrong = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)
    lab.publish(DomainSpec(challenge, txt=("someone-elses-token", domain["verification"]["value"])))
    right = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)

    assert not_yet.status_code == 422
    assert not_yet.json()["error"]["code"] == "DOMAIN_NOT_VERIFIED"
    assert not_yet.json()["error"]["record"] == domain["verification"]
    assert not_yet.json()["error"]["found"] == []
    assert wrong.status_code == 422
    assert wrong.json()["error"]["found"] == ["someone-elses-token"]
    assert right.status_code == 200
    assert right.json()["status"] == "verified"
    assert right.json()["verifiedAt"] is not None
    listed = live_api.call("get", "/api/custom-domains", reseller).json()["data"]
    assert [(item["id"], item["status"]) for item in listed] == [(domain["id"], "verified")]
    assert live_api.call("get", f"/api/custom-domains/{domain['id']}", reseller).json() == right.json()


def test_links_written_for_requests_through_the_domain_use_it(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    customer = create_sub_user(live_api, reseller)
    verified(live_api, lab, reseller, hostname)

    for persona in (customer, reseller):
        accepted = async_batch(live_api, persona, host=hostname)
        batch_id = accepted.json()["batchId"]
        assert accepted.json()["resultsUrl"] == f"https://{hostname}/batches/{batch_id}/results"
        assert accepted.headers["Location"] == accepted.json()["resultsUrl"]
    upload = live_api.call(
        "post",
        "/bulk/jobs?quickMode=true",
        customer,
        data="alice@mailbox.test\n",
        headers={"Content-Type": "text/csv", "Host": f"{hostname}:443"},
    ).json()
    assert upload["resultsUrl"] == f"https://{hostname}/batches/{upload['id']}/results"
    assert upload["downloadUrl"] == f"https://{hostname}/bulk/jobs/{upload['id']}/download"
    # Through the public address, links use PUBLIC_BASE_URL.
    plain = async_batch(live_api, customer)
    assert plain.json()["resultsUrl"].startswith(f"{get_settings().base_url}/batches/")


@pytest.mark.parametrize(
    ("forged", "name"),
    [
        ("evil.example", "evil.example"),
        ("evil.example:8443", "evil.example"),
        ("api.pending-brand.test", "pending-brand"),
        ("[2001:db8::7]:80", "2001:db8::7"),
    ],
)
def test_a_host_that_is_not_a_verified_domain_is_never_echoed(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str, forged: str, name: str
) -> None:
    customer = create_sub_user(live_api, reseller)
    verified(live_api, lab, reseller, hostname)
    register(live_api, reseller, "api.pending-brand.test")  # registered, never verified

    accepted = async_batch(live_api, customer, host=forged)

    expected = f"{get_settings().base_url}/batches/{accepted.json()['batchId']}/results"
    assert accepted.json()["resultsUrl"] == expected
    assert accepted.headers["Location"] == expected
    seen = accepted.text + " ".join(accepted.headers.values())
    assert name not in seen


def test_another_accounts_requests_through_the_domain_do_not_get_it(
    live_api: Api, lab: MailLab, reseller: Persona, other_reseller: Persona, owner: Persona, hostname: str
) -> None:
    verified(live_api, lab, reseller, hostname)
    outsider_customer = create_sub_user(live_api, other_reseller)

    for persona in (owner, other_reseller, outsider_customer):
        accepted = async_batch(live_api, persona, host=hostname)
        assert accepted.json()["resultsUrl"].startswith(f"{get_settings().base_url}/")


def test_one_hostname_belongs_to_one_reseller(
    live_api: Api, lab: MailLab, reseller: Persona, other_reseller: Persona, hostname: str
) -> None:
    claim = register(live_api, other_reseller, hostname)  # an early claim by someone who cannot prove it
    verified(live_api, lab, reseller, hostname)

    again = live_api.call("post", "/api/custom-domains", reseller, json={"hostname": hostname})
    taken = live_api.call("post", "/api/custom-domains", other_reseller, json={"hostname": hostname})
    late = live_api.call("post", f"/api/custom-domains/{claim['id']}/verify", other_reseller)

    assert (again.status_code, again.json()["error"]["code"]) == (409, "DOMAIN_TAKEN")
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "DOMAIN_TAKEN")
    assert late.status_code in (409, 422)  # its challenge is not the published one, and the name is taken
    assert live_api.call("get", f"/api/custom-domains/{claim['id']}", reseller).status_code == 404


def test_deleting_a_domain_stops_its_use_at_once(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    customer = create_sub_user(live_api, reseller)
    domain = verified(live_api, lab, reseller, hostname)
    assert (
        async_batch(live_api, customer, host=hostname).json()["resultsUrl"].startswith(f"https://{hostname}/")
    )

    deleted = live_api.call("delete", f"/api/custom-domains/{domain['id']}", reseller)

    assert deleted.json() == {"id": domain["id"], "deleted": True}
    assert (
        async_batch(live_api, customer, host=hostname)
        .json()["resultsUrl"]
        .startswith(get_settings().base_url)
    )
    assert live_api.call("get", f"/api/custom-domains/{domain['id']}", reseller).status_code == 404


def test_requests_through_the_domain_wear_the_resellers_saved_brand_even_when_switched_off(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    customer = create_sub_user(live_api, reseller)
    verified(live_api, lab, reseller, hostname)
    live_api.call("put", "/api/white-label", reseller, json={"enabled": False, **BRAND})
    body = {"email": "alice@mailbox.test", **QUICK}

    through_domain = live_api.call(
        "post", "/validate", customer, json=body, headers={"Host": hostname}
    ).json()
    through_us = live_api.call("post", "/validate", customer, json=body).json()

    assert brand_of(through_domain["metadata"]) == BRAND
    assert brand_of(through_us["metadata"]) == service_brand()


def test_emails_to_sub_users_link_to_the_resellers_domain(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str, mailbox: Mailbox
) -> None:
    customer = create_sub_user(live_api, reseller)
    verified(live_api, lab, reseller, hostname)
    with transaction() as session:
        issued = session.scalars(
            select(ApiKey.secret_issued_at).where(ApiKey.id == customer.persona.key_id)
        ).one()
    with transaction() as session:
        rotation.advance(session, customer.persona.key_id, issued + timedelta(days=83))
    outbox.send_due()

    [mail] = mailbox.to(customer.body["email"])

    assert f"https://{hostname}/api/keys/{customer.persona.key_id}/refresh" in mail.text()
    assert get_settings().base_url not in mail.message.as_string()


@pytest.mark.parametrize(
    "hostname",
    ["localhost", "127.0.0.1", "bad_host.example", "-dash.example", "", "a..example", "x" * 64 + ".example"],
)
def test_hostnames_that_are_not_names_are_400(live_api: Api, reseller: Persona, hostname: str) -> None:
    response = live_api.call("post", "/api/custom-domains", reseller, json={"hostname": hostname})

    assert response.status_code == 400
    assert response.json()["field"] == "hostname"


def test_another_resellers_domain_ids_are_not_found(
    live_api: Api, reseller: Persona, other_reseller: Persona, hostname: str
) -> None:
    theirs = register(live_api, other_reseller, hostname)

    for method, suffix in (("get", ""), ("delete", ""), ("post", "/verify")):
        response = live_api.call(method, f"/api/custom-domains/{theirs['id']}{suffix}", reseller)
        assert response.status_code == 404
    assert live_api.call("get", f"/api/custom-domains/{theirs['id']}", other_reseller).status_code == 200
