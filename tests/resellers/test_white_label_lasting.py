"""White-label that is complete and lasting: on a reseller's verified domain the API description and the
dashboard carry the reseller's brand; a sub-user's audit trail shows its reseller as the reseller; a domain
whose DNS proof disappears stops being used after a day, and its reseller is told."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select

from core import clock
from maillab import MailLab
from maillab.model import DomainSpec
from models.accounts import Account
from models.audit import AuditEntry, AuditEvent
from models.resellers import SubUser
from models.session import transaction
from services.mail import outbox
from services.resellers import domain_checks
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.resellers.conftest import create_sub_user
from tests.resellers.test_custom_domains import async_batch, hostname, register, verified
from tests.resellers.test_white_label import BRAND, names_us
from tests.workers.harness import Api

__all__ = ["hostname"]


def test_the_api_description_and_the_pages_wear_the_resellers_brand_on_its_domain(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    verified(live_api, lab, reseller, hostname)
    live_api.call("put", "/api/white-label", reseller, json={"enabled": False, **BRAND})
    on_domain = {"Host": hostname}

    document = live_api.call("get", "/openapi.json", headers=on_domain)
    sign_in = live_api.call("get", "/dashboard/sign-in", headers=on_domain)

    assert document.json()["info"]["title"] == BRAND["provider"]
    assert document.json()["servers"] == [{"url": f"https://{hostname}"}]
    assert BRAND["provider"] in sign_in.text
    assert not names_us(document)
    assert not names_us(sign_in)
    assert names_us(live_api.call("get", "/openapi.json"))  # the public host is ours


def test_a_sub_users_trail_shows_its_reseller_not_the_resellers_staff(
    live_api: Api, reseller: Persona
) -> None:
    staff = {"User-Agent": "reseller-staff-browser/1.0"}
    body = {"email": f"customer-{secrets.token_hex(4)}@example.com", "name": "Customer", "tier": "pro"}
    created = live_api.call("post", "/api/sub-users", reseller, json=body, headers=staff).json()
    live_api.call("delete", f"/api/sub-users/{created['id']}", reseller, headers=staff)

    with transaction() as session:
        account_id = session.scalars(
            select(SubUser.account_id).where(SubUser.public_id == created["id"])
        ).one()
        trail = list(session.scalars(select(AuditEntry).where(AuditEntry.account_id == account_id)))

    assert {entry.event for entry in trail} >= {"key.created", "key.deactivated"}
    for entry in trail:
        assert (entry.ip, entry.user_agent, entry.details.get("actedBy")) == (None, None, "reseller"), (
            entry.event
        )


def test_a_domain_whose_record_is_gone_for_a_day_lapses_and_its_reseller_is_told(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str, mailbox: Mailbox
) -> None:
    customer = create_sub_user(live_api, reseller)
    domain = verified(live_api, lab, reseller, hostname)
    lab.withdraw(domain["verification"]["name"])
    start = clock.now()

    try:
        clock.freeze(start)
        first_miss = domain_checks.recheck_verified()
        still_used = async_batch(live_api, customer, host=hostname).json()["resultsUrl"]
        clock.freeze(start + domain_checks.LAPSE_AFTER + timedelta(minutes=1))
        lapsed = domain_checks.recheck_verified()
        outbox.send_due()  # the email was queued at the frozen instant, due from then
    finally:
        clock.unfreeze()

    assert first_miss == 0
    assert still_used.startswith(f"https://{hostname}/")
    assert lapsed >= 1
    assert (
        not async_batch(live_api, customer, host=hostname)
        .json()["resultsUrl"]
        .startswith(f"https://{hostname}")
    )
    after = live_api.call("get", f"/api/custom-domains/{domain['id']}", reseller).json()
    assert after["status"] == "pending"
    with transaction() as session:
        email = session.get_one(Account, reseller.account_id).owner_email
        lapse = session.scalars(
            select(AuditEntry).where(
                AuditEntry.account_id == reseller.account_id,
                AuditEntry.event == AuditEvent.CUSTOM_DOMAIN_LAPSED,
            )
        ).one()
    assert lapse.details["hostname"] == hostname
    [mail] = mailbox.to(email)
    assert hostname in mail.message["Subject"]
    assert domain["verification"]["value"] in mail.text()


def test_a_domain_proved_under_the_earlier_label_keeps_its_proof(
    live_api: Api, lab: MailLab, reseller: Persona, hostname: str
) -> None:
    domain = register(live_api, reseller, hostname)
    legacy = f"_verimail-challenge.{hostname}"
    lab.publish(DomainSpec(legacy, txt=(domain["verification"]["value"],)))
    try:
        verified_now = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)
        start = clock.now()
        clock.freeze(start)
        first = domain_checks.recheck_verified()
        clock.freeze(start + domain_checks.LAPSE_AFTER + timedelta(minutes=1))
        later = domain_checks.recheck_verified()
    finally:
        clock.unfreeze()
        lab.withdraw(legacy)

    assert verified_now.status_code == 200, verified_now.text
    assert (first, later) == (0, 0)
    assert (
        live_api.call("get", f"/api/custom-domains/{domain['id']}", reseller).json()["status"] == "verified"
    )
