"""The brand fields results and webhook payloads carry in ``metadata`` (spec 2.3, ``services.branding``)."""

from __future__ import annotations

from pydantic import Field

from web.schemas.base import Out


class BrandOut(Out):
    """Who provides this result: the service, or the reseller under white-label."""

    provider: str = Field(description="the provider's name")
    support: str = Field(description="where to get help")
    documentation: str = Field(description="documentation URL")
