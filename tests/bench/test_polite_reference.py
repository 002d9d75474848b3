"""The polite reference of bench/throughput.py against the lab: it obeys the policy it is the best of."""

from __future__ import annotations

from bench.fleet_world import Policy
from bench.polite_reference import PoliteLimiter, polite_probe
from bench.references import cut, resolved
from maillab import MailLab
from maillab.world import bench_domain, shared_mx_world
from settings import get_settings
from verifier.smtp import SmtpVerdict

DOMAINS = 12  # all behind one MX address


def test_the_polite_reference_shares_sessions_across_domains_and_never_passes_the_cap_per_address():
    emails = [
        f"{local}@{bench_domain(i)}" for i in range(DOMAINS) for local in ("user01", "user02", "nobody01")
    ]
    with MailLab(shared_mx_world(DOMAINS, 1), latency=0.05) as lab:  # sessions long enough to overlap
        config = lab.engine_config(smtp_deadline=60.0)
        policy = Policy.read(get_settings(), config).with_per_host(2)
        limiter = PoliteLimiter(policy)
        results = polite_probe(cut(resolved(config, emails), emails, 100), config, limiter)
        opened = lab.servers["bench0"].sessions_opened
    verdicts = {item.address: item.verdict for result in results for item in result.results}
    assert verdicts == {
        email: SmtpVerdict.DELIVERABLE if email.startswith("user") else SmtpVerdict.UNDELIVERABLE
        for email in emails
    }
    assert limiter.most_open() == 2  # the cap, reached and never passed
    assert opened < DOMAINS  # a session goes on from one domain's group to the next one's at the address
