"""Every URL the service writes (results and download links, webhook payloads, emails) is built here.

The base is ``https://<hostname>`` for a custom domain that the caller's reseller verified, else
PUBLIC_BASE_URL. A request's ``Host`` header is client input and never becomes a base by itself: an
unverified, foreign or forged host is ignored, so host-header injection cannot plant someone else's host
in a results URL or an email. Work outside a request (webhook payloads, emails) uses the reseller's oldest
verified domain, so a white-labelled customer's links keep pointing at its reseller's domain.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.accounts import Account
from models.resellers import CustomDomain
from models.session import transaction
from services.branding import reseller_of
from settings import get_settings

HOSTNAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")


def base_url(host: str | None = None) -> str:
    """``https://<host>`` for a verified custom domain, else the service's public address (no trailing /)."""
    return f"https://{host}" if host else get_settings().base_url


def results_url(public_id: str, host: str | None = None) -> str:
    """Where a batch's or list's results are paged through (spec 4.11)."""
    return f"{base_url(host)}/batches/{public_id}/results"


def bulk_job_url(public_id: str, host: str | None = None) -> str:
    return f"{base_url(host)}/bulk/jobs/{public_id}"


def download_url(public_id: str, host: str | None = None) -> str:
    return f"{bulk_job_url(public_id, host)}/download"


def hostname_of(host_header: str) -> str | None:
    """``Brand.Example:443`` -> ``brand.example``; None for IP literals and anything that is not a name."""
    name = host_header.strip().lower()
    if name.startswith("["):
        return None
    name = name.partition(":")[0].rstrip(".")
    return name if HOSTNAME.fullmatch(name) and not name.replace(".", "").isdigit() else None


def verified_host(account: Account, host_header: str) -> str | None:
    """The request's host if it is a custom domain verified by ``account``'s reseller, else None."""
    reseller_id, hostname = reseller_of(account), hostname_of(host_header)
    if reseller_id is None or hostname is None or hostname == _hostname_of_url(base_url()):
        return None  # most requests: no custom domain is possible, no query
    stmt = select(CustomDomain.hostname).where(
        CustomDomain.reseller_id == reseller_id,
        CustomDomain.hostname == hostname,
        CustomDomain.verified_at.is_not(None),
    )
    with transaction() as session:
        return session.scalar(stmt)


def reseller_of_host(host_header: str) -> int | None:
    """The reseller that verified the request's host as its custom domain, for pages and documents served
    without a key (the dashboard, /openapi.json); None on the public host and on any other name."""
    hostname = hostname_of(host_header)
    if hostname is None or hostname == _hostname_of_url(base_url()):
        return None
    stmt = select(CustomDomain.reseller_id).where(
        CustomDomain.hostname == hostname, CustomDomain.verified_at.is_not(None)
    )
    with transaction() as session:
        return session.scalar(stmt)


@lru_cache(maxsize=8)
def _hostname_of_url(url: str) -> str | None:
    """By URL, not once: tests change PUBLIC_BASE_URL within a process."""
    return urlsplit(url).hostname


def account_host(session: Session, account_id: int) -> str | None:
    """The domain links for ``account_id`` use outside a request: its reseller's oldest verified one."""
    reseller_id = reseller_of(session.get_one(Account, account_id))
    if reseller_id is None:
        return None
    stmt = (
        select(CustomDomain.hostname)
        .where(CustomDomain.reseller_id == reseller_id, CustomDomain.verified_at.is_not(None))
        .order_by(CustomDomain.verified_at, CustomDomain.id)
        .limit(1)
    )
    return session.scalar(stmt)


def monitored_list_url(public_id: str, host: str | None = None) -> str:
    return f"{base_url(host)}/monitored-lists/{public_id}"


def diff_url(public_id: str, run: int, host: str | None = None) -> str:
    """A monitored list's run: only the rows that changed, both verdicts."""
    return f"{monitored_list_url(public_id, host)}/runs/{run}/diff"


def inbound_url(public_id: str, secret: str | None = None) -> str:
    """Where a sending service posts an inbound source's notifications; with ``secret``, the same URL with
    it as the basic-auth password (what the provider's webhook form takes: shown once)."""
    url = f"{base_url()}/inbound/{public_id}"
    if secret is None:
        return url
    scheme, _, rest = url.partition("://")
    return f"{scheme}://inbound:{secret}@{rest}"
