"""The in-process references of ``bench/throughput.py``: the same list against the same lab, probed by the
engine in the bench's own process (no HTTP, no database), each row with its sessions and wrong verdicts.

- ``polite``: the best a prober can do under the service's politeness policy (``bench/polite_reference.py``),
  the reference the service is reported as a fraction of;
- ``per-group``: the shape of probing before lanes, one session per domain group and never shared, 100
  groups at a time (the 100 greenlets it was measured with), on the groups the service would cut from
  (a) the batches (each batch's addresses of one domain) and (b) the list (up to
  ``SMTP_MAX_RCPT_PER_SESSION`` addresses of one domain);
- every domain's addresses through ``probe_domain_group`` at once, pipelined and lock-step: no
  politeness at all (behind shared MX addresses, 6 or 250 sessions at once to one address).
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from bench.fleet_world import Policy
from bench.lab_measure import Check, Row, measure, wrong_verdicts
from bench.polite_reference import Group, PoliteLimiter, polite_probe
from maillab import MailLab
from settings import get_settings
from verifier.config import EngineConfig
from verifier.dns import MailDomain, MailResolver
from verifier.smtp import DomainProbeResult, SmtpVerdict, probe_domain_group


def reference_config(lab: MailLab) -> EngineConfig:
    return lab.engine_config(smtp_timeout=10.0, smtp_deadline=120.0, smtp_banner_timeout=10.0)


def polite_rows(lab: MailLab, emails: list[str]) -> list[Row]:
    """The list through the polite reference, as the service plans it (``groups``)."""
    config = reference_config(lab)
    policy = Policy.read(get_settings(), config)
    groups = cut(resolved(config, emails), emails, config.smtp_max_rcpt_per_session)
    limiter = PoliteLimiter(policy)
    rules = policy.politeness
    name = (
        f"polite reference: {rules.per_host} sessions per MX address, {rules.interval_seconds * 1000:.0f} ms "
        f"apart, up to {config.smtp_max_rcpt_per_session} RCPTs and {config.smtp_session_max_rejections} "
        "refusals a session, pipelined"
    )
    row = measure(lab, name, [], len(emails), lambda: _checked(polite_probe(groups, config, limiter)))
    return [replace(row, name=f"{row.name} (at most {limiter.most_open()} open at once)")]


def per_group_rows(lab: MailLab, emails: list[str], size: int = 100, at_once: int = 100) -> list[Row]:
    """The per-group reference: every domain group on a session of its own, ``at_once`` groups at a time;
    the groups of the batches of ``size`` addresses, then those of the whole list."""
    config = reference_config(lab)
    domains = resolved(config, emails)
    batches = [emails[i : i + size] for i in range(0, len(emails), size)]
    most = config.smtp_max_rcpt_per_session
    as_batches = [group for batch in batches for group in cut(domains, batch, most)]
    as_list = cut(domains, emails, most)
    probe = functools.partial(_probe_all, config=config, at_once=at_once)
    name = "per-group reference"
    return [
        measure(
            lab,
            f"{name}: {len(batches)} batches of {size}, {at_once} groups at once",
            [],
            len(emails),
            functools.partial(probe, as_batches),
        ),
        measure(
            lab,
            f"{name}: the list, {at_once} groups at once",
            [],
            len(emails),
            functools.partial(probe, as_list),
        ),
    ]


def impolite_rows(lab: MailLab, emails: list[str]) -> list[Row]:
    """Every domain's addresses through ``probe_domain_group`` at once, in this process."""
    config = reference_config(lab)
    groups = cut(resolved(config, emails), emails, len(emails))
    rows = []
    for name, cfg in (
        ("reference: one session per domain, all parallel, pipelined", config),
        (
            "reference: one session per domain, all parallel, lock-step",
            replace(config, smtp_pipelining=False),
        ),
    ):
        rows.append(measure(lab, name, [], len(emails), functools.partial(_probe_all, groups, config=cfg)))
    return rows


def resolved(config: EngineConfig, emails: list[str]) -> dict[str, MailDomain]:
    resolver = MailResolver(config)
    return {
        domain: resolver.resolve(domain) for domain in dict.fromkeys(e.rpartition("@")[2] for e in emails)
    }


def cut(domains: dict[str, MailDomain], emails: list[str], most: int) -> list[Group]:
    """``emails`` cut as the service plans them: by domain, at most ``most`` addresses a group."""
    by_domain: dict[str, list[str]] = {}
    for email in emails:
        by_domain.setdefault(email.rpartition("@")[2], []).append(email)
    return [
        (domains[domain], addresses[i : i + most])
        for domain, addresses in by_domain.items()
        for i in range(0, len(addresses), most)
    ]


def _probe_all(groups: list[Group], *, config: EngineConfig, at_once: int | None = None) -> Check:
    """Every group through ``probe_domain_group`` on sessions of its own, ``at_once`` (all) at a time."""

    def probe(group: Group) -> DomainProbeResult:
        return probe_domain_group(group[0], group[1], config=config)

    with ThreadPoolExecutor(at_once or len(groups)) as pool:
        return _checked(list(pool.map(probe, groups)))


def _checked(results: list[DomainProbeResult]) -> Check:
    """The wrong verdicts among ``results``: deliverable (and not at a catch-all) is valid."""
    judged = [
        (item.address, item.verdict is SmtpVerdict.DELIVERABLE and not result.catch_all)
        for result in results
        for item in result.results
    ]
    wrong = wrong_verdicts(judged)
    return lambda: wrong
