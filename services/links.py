"""Every URL the service writes (results, downloads, links in emails and events), built in one place.

They all start from the public base URL (``PUBLIC_BASE_URL``), never from a request's ``Host`` header, so
a forged host can never end up in a link a customer follows.
"""

from __future__ import annotations

from settings import get_settings


def base_url() -> str:
    """The service's public address, without a trailing slash."""
    return get_settings().base_url


def results_url(public_id: str) -> str:
    """Where a batch's or list's results are paged through (spec 4.11)."""
    return f"{base_url()}/batches/{public_id}/results"


def bulk_job_url(public_id: str) -> str:
    return f"{base_url()}/bulk/jobs/{public_id}"


def download_url(public_id: str) -> str:
    return f"{bulk_job_url(public_id)}/download"
