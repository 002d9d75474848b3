"""Raw evidence of one SMTP exchange, kept apart from any judgement of it.

Every reply the prober reads (or fails to read) becomes a ``ReplyEvidence``: which MX host and IP, the
command, the reply code, the RFC 3463 enhanced status code, the text, whether TLS was on, the latency.
Classification (``classify.py``) and verdicts (``result.py``) only ever read these records, so a
disputed verdict can always be traced back to what the server actually said.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

ENHANCED = re.compile(r"^([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)")
# How the text of a no-reply evidence begins when our way out failed, not the MX (``connect.py``); it
# reaches clients in ``smtpResponse``, so it never names the proxy or the source address.
EGRESS_FAULT = "egress fault"


@dataclass(frozen=True, slots=True)
class ReplyEvidence:
    """One command and its reply. ``code`` is None when no reply came (refused, timeout, hang-up)."""

    mx_host: str
    ip: str
    command: str
    code: int | None
    enhanced_code: str | None
    text: str
    tls: bool
    latency_ms: float

    @property
    def smtp_response(self) -> str:
        """Spec ``smtp.metadata.smtpResponse``: code, enhanced code and text of the reply."""
        if self.code is None:
            return f"no reply: {self.text}"
        return " ".join(str(part) for part in (self.code, self.enhanced_code, self.text) if part)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReplyEvidence:
        return cls(**dict(data))


def parse_reply(raw: bytes | str) -> tuple[str | None, str]:
    """Split smtplib's reply text (codes already removed, one line per ``\\n``) into enhanced code and text.

    Multi-line replies repeat the enhanced code on every line (``550-5.1.1 ...``); it is taken from the
    first line and stripped from all of them.
    """
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    enhanced = None
    if lines and (match := ENHANCED.match(lines[0])):
        enhanced = match.group(0)
    cleaned = [ENHANCED.sub("", line, count=1).strip() for line in lines]
    return enhanced, " ".join(line for line in cleaned if line)
