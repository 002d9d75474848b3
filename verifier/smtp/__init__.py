"""SMTP mailbox probing: evidence first, classification second, verdict last.

Entry point: ``probe_domain_group(mail_domain, addresses, config=..., limiter=...) -> DomainProbeResult``,
over the config's first egress; ``probe_over_egresses`` (same arguments) asks what an egress fault or a
block left unsettled again over the next egresses.
"""

from verifier.smtp.classify import Classification, ProbeOutcome, classify
from verifier.smtp.egress_fallback import probe_over_egresses
from verifier.smtp.evidence import ReplyEvidence
from verifier.smtp.faults import INTERNAL_ERROR, ProberFault
from verifier.smtp.keeper import SessionKeeper
from verifier.smtp.limiter import LocalSessionLimiter, SessionLimiter, SessionObserver
from verifier.smtp.prober import not_probed, probe_domain_group
from verifier.smtp.providers import Provider, ProviderRules, rules_for
from verifier.smtp.relay import Relay
from verifier.smtp.result import AddressProbe, DomainProbeResult, SmtpVerdict

__all__ = [
    "INTERNAL_ERROR",
    "AddressProbe",
    "Classification",
    "DomainProbeResult",
    "LocalSessionLimiter",
    "ProbeOutcome",
    "ProberFault",
    "Provider",
    "ProviderRules",
    "Relay",
    "ReplyEvidence",
    "SessionKeeper",
    "SessionLimiter",
    "SessionObserver",
    "SmtpVerdict",
    "classify",
    "not_probed",
    "probe_domain_group",
    "probe_over_egresses",
    "rules_for",
]
