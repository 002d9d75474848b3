"""White-label settings (spec 1, 2.3): the reseller's provider name, support contact, documentation URL."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, ConfigDict, JsonValue

from services.resellers.white_label import WhiteLabelSettings
from web.schemas.base import Body, Out, Timestamp
from web.schemas.inputs import WEB_URL_PATTERN, patterned, trimmed


def web_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("documentation must be an http(s) URL such as https://docs.example.com.")
    return value


Text = Annotated[str, *trimmed(1, 254)]
# services/resellers/white_label.py refuses ``enabled: true`` without the three values; the schema says so.
SWITCHING_ON: dict[str, JsonValue] = {
    "if": {"properties": {"enabled": {"const": True}}},
    "then": {"required": ["provider", "support", "documentation"]},
}
URL_PROBLEM = "{field} must be an http(s) URL such as https://docs.example.com."
Url = Annotated[str, *patterned(WEB_URL_PATTERN, URL_PROBLEM, max_length=2048), AfterValidator(web_url)]


class WhiteLabelBody(Body):
    """Replaces the settings; ``provider``, ``support`` and ``documentation`` are required to switch on."""

    model_config = ConfigDict(json_schema_extra=SWITCHING_ON)

    enabled: bool
    provider: Text | None = None
    support: Text | None = None
    documentation: Url | None = None

    def to_settings(self) -> WhiteLabelSettings:
        return WhiteLabelSettings(self.enabled, self.provider, self.support, self.documentation)


class WhiteLabelOut(Out):
    """While ``enabled``, results served to you and your sub-users carry these values in ``metadata``."""

    enabled: bool
    provider: str | None
    support: str | None
    documentation: str | None
    updated_at: Timestamp | None

    @classmethod
    def of(cls, settings: WhiteLabelSettings) -> WhiteLabelOut:
        return cls(
            enabled=settings.enabled,
            provider=settings.provider,
            support=settings.support,
            documentation=settings.documentation,
            updated_at=settings.updated_at,
        )
