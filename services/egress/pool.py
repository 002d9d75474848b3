"""The configured egress pool as operators see it: per egress its identity, HELO name and sender.

The service's sessions all leave over the first egress for now (``services/probing/fleet/fleet_engine.py``):
its lanes and politeness count per MX address, not per egress. The counters an operator will want per
egress (sessions, RCPTs, blocks by MX address, backoff, last error) are in the answer already, at zero
and null, so its shape does not change when they are counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verifier.config import EngineConfig
from verifier.egress import Egress
from verifier.results import JsonValue


@dataclass(frozen=True)
class EgressStatus:
    """One egress of the pool; ``in_use`` says whether the service's sessions leave over it."""

    egress: Egress
    helo: str
    mail_from: str
    in_use: bool
    sessions_open: int = 0
    sessions_total: int = 0
    rcpts: int = 0
    blocks: dict[str, int] = field(default_factory=dict)  # MX address -> blocks seen there
    backoff_until: str | None = None
    last_error: str | None = None

    def to_dict(self) -> dict[str, JsonValue]:
        """camelCase JSON; the proxy's password never appears, its user does (it names the egress)."""
        egress, proxy = self.egress, self.egress.proxy
        return {
            "id": egress.id,
            "kind": egress.kind.value,
            "address": egress.source,
            "proxy": proxy.address if proxy else None,
            "proxyUser": proxy.username if proxy else None,
            "helo": self.helo,
            "mailFrom": self.mail_from,
            "inUse": self.in_use,
            "sessionsOpen": self.sessions_open,
            "sessionsTotal": self.sessions_total,
            "rcpts": self.rcpts,
            "blocks": dict(self.blocks),
            "backoffUntil": self.backoff_until,
            "lastError": self.last_error,
        }


def pool_status(config: EngineConfig | None = None) -> list[EgressStatus]:
    """Every configured egress in ``SMTP_EGRESS`` order, with the HELO name and sender it probes with."""
    config = config if config is not None else EngineConfig.from_env()
    return [
        EgressStatus(egress, (own := config.over(egress)).helo_host, own.mail_from, in_use=index == 0)
        for index, egress in enumerate(config.smtp_egress)
    ]
