"""The request's brand and link host, read once per request on first use (``g``) and only where needed.

``link_host()`` is the request's ``Host`` when it is a custom domain verified by the caller's reseller
(``services.links``), else None: URLs written in this request then use PUBLIC_BASE_URL. ``brand()`` is
who the results of this request name (``services.branding``).
"""

from __future__ import annotations

from flask import g, request

from services import branding, links
from services.branding import Brand
from web.auth import current_auth


def link_host() -> str | None:
    if "link_host" not in g:
        g.link_host = links.verified_host(current_auth().account, request.host)
    host: str | None = g.link_host
    return host


def host_brand() -> Brand:
    """The brand of the host this request came to, for what is served without a key (pages, documents):
    a reseller's on its verified custom domain, the service's own elsewhere."""
    if "host_brand" not in g:
        g.host_brand = branding.brand_of_reseller(links.reseller_of_host(request.host))
    found: Brand = g.host_brand
    return found


def brand() -> Brand:
    if "brand" not in g:
        g.brand = branding.brand_of(current_auth().account, via_custom_domain=link_host() is not None)
    found: Brand = g.brand
    return found
