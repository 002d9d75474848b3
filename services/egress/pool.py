"""The configured egress pool as operators see it: per egress its identity, HELO name and sender, and what
the fleet counted over it (``services.probing.egress.counters``): sessions open and in total, RCPTs,
blocks by MX address, until when it is out of use, its last error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from services.probing.egress import counters
from verifier.config import EngineConfig
from verifier.egress import Egress
from verifier.results import JsonValue


@dataclass(frozen=True)
class EgressStatus:
    """One egress of the pool; ``in_use``: new sessions leave over it (it is neither out of the pool after
    blocks nor put last after a fault)."""

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
    """Every configured egress in ``SMTP_EGRESS`` order, with the HELO name and sender it probes with and
    its counters."""
    config = config if config is not None else EngineConfig.from_env()
    counted = counters.read([egress.id for egress in config.smtp_egress])
    return [
        EgressStatus(
            egress,
            (own := config.over(egress)).helo_host,
            own.mail_from,
            in_use=count.backoff_until is None,
            sessions_open=count.sessions_open,
            sessions_total=count.sessions_total,
            rcpts=count.rcpts,
            blocks=count.blocks,
            backoff_until=count.backoff_until,
            last_error=count.last_error,
        )
        for egress, count in zip(config.smtp_egress, counted, strict=True)
    ]
