"""Verified custom domains are looked up again every hour: a domain whose TXT record has been gone for
``LAPSE_AFTER`` stops being used (links, brand) and its reseller is told by email.

The grace absorbs a DNS change in flight or a resolver blip: one missed lookup changes nothing, a day of
them does. The record is the proof of control; without it, whoever controls the name now (an expired
domain re-registered by someone else) must not keep receiving the reseller's customers' links.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.resellers import CustomDomain
from models.session import transaction
from services import audit, branding
from services.broker import SEND_DUE_MAIL_TASK, send_after_commit
from services.mail import outbox, render
from services.resellers.custom_domains import challenge, published

LAPSE_AFTER = timedelta(hours=24)
TEMPLATES = Path(__file__).parent / "templates"


def recheck_verified() -> int:
    """Look up every verified domain's record once; returns how many domains lapsed in this run."""
    with transaction() as session:
        domains = list(session.scalars(select(CustomDomain).where(CustomDomain.verified_at.is_not(None))))
    lapsed = 0
    for domain in domains:
        lapsed += _recheck(domain.id, published(domain))
    return lapsed


def _recheck(domain_id: int, found: bool) -> bool:
    """Record one lookup's outcome; True when the domain lapsed with it."""
    now = clock.now()
    with transaction() as session:
        domain = session.get(CustomDomain, domain_id, with_for_update=True)
        if domain is None or domain.verified_at is None:
            return False  # deleted or lapsed meanwhile
        if found:
            domain.missing_since = None
            return False
        domain.missing_since = domain.missing_since or now
        if now - domain.missing_since < LAPSE_AFTER:
            return False
        domain.verified_at = domain.missing_since = None
        _tell(session, domain)
        return True


def _tell(session: Session, domain: CustomDomain) -> None:
    """The reseller's audit entry and email: which domain, why, and the record that brings it back."""
    reseller = session.get_one(Account, domain.reseller_id)
    hours = int(LAPSE_AFTER.total_seconds() // 3600)
    details = {"domainId": domain.public_id, "hostname": domain.hostname, "missingForHours": hours}
    audit.record(AuditEvent.CUSTOM_DOMAIN_LAPSED, account_id=reseller.id, details=details, session=session)
    context = {
        "hostname": domain.hostname,
        "record": challenge(domain),
        "hours": hours,
        "provider": branding.service_brand().provider,  # the reseller is our customer: we speak to it
    }
    subject = f"{domain.hostname} is no longer used for your customers"
    draft = render.draft(TEMPLATES, "domain_lapsed", context, recipient=reseller.owner_email, subject=subject)
    outbox.queue(session, reseller.id, draft)
    send_after_commit(session, SEND_DUE_MAIL_TASK)
