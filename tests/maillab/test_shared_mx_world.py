"""The shared-MX benchmark world: many domains behind a few MX addresses, as real lists are."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from maillab import MailLab
from maillab.world import bench_domain, bench_ip, provider_world, shared_mx_host, shared_mx_world
from verifier.dns import MailResolver
from verifier.smtp import SmtpVerdict, probe_domain_group

DOMAINS, ADDRESSES = 20, 3


@pytest.fixture(scope="module")
def shared_lab() -> Iterator[MailLab]:
    with MailLab(shared_mx_world(DOMAINS, ADDRESSES)) as lab:
        yield lab


def test_every_domain_resolves_through_the_lab_dns_to_one_of_the_few_shared_addresses(shared_lab):
    resolver = MailResolver(shared_lab.engine_config())
    resolved = {bench_domain(i): resolver.resolve(bench_domain(i)) for i in range(DOMAINS)}
    by_address: dict[str, list[str]] = {}
    for name, domain in resolved.items():
        assert domain.accepts_mail
        (record,) = domain.mx_records
        by_address.setdefault(record.addresses[0], []).append(name)
    assert sorted(by_address) == sorted(bench_ip(k) for k in range(ADDRESSES))
    assert by_address[bench_ip(1)] == [bench_domain(i) for i in range(1, DOMAINS, ADDRESSES)]
    assert resolved[bench_domain(4)].mx_records[0].host == shared_mx_host(1)  # the host name is shared too


def test_the_server_at_a_shared_address_answers_for_every_domain_it_serves(shared_lab):
    config = shared_lab.engine_config()
    resolver = MailResolver(config)
    served = [bench_domain(i) for i in range(0, DOMAINS, ADDRESSES)]  # 7 domains on bench0
    for name in served:
        result = probe_domain_group(
            resolver.resolve(name), [f"user07@{name}", f"nobody00@{name}"], config=config
        )
        verdicts = {item.address: item.verdict for item in result.results}
        assert verdicts == {
            f"user07@{name}": SmtpVerdict.DELIVERABLE,
            f"nobody00@{name}": SmtpVerdict.UNDELIVERABLE,
        }
    server = shared_lab.servers["bench0"]
    rcpts = {
        command.split("@")[1].rstrip(">")
        for session in server.transcripts()
        for command in session
        if command.startswith("RCPT")
    }
    assert rcpts == set(served)
    assert all(shared_lab.servers[f"bench{k}"].sessions_opened == 0 for k in (1, 2))


def test_the_provider_world_has_an_address_that_takes_only_20_recipients_a_session():
    with MailLab(provider_world(8)) as lab:
        config = lab.engine_config()
        capped = MailResolver(config).resolve(bench_domain(1))  # domains 1 and 5 are on bench1
        addresses = [f"user{j:02d}@{bench_domain(1)}" for j in range(30)]
        result = probe_domain_group(capped, addresses, config=config)
        assert {item.verdict for item in result.results} == {SmtpVerdict.DELIVERABLE}
        assert result.catch_all is False
        # 20 recipients, then "452 4.5.3 too many recipients": the other 10 and the catch-all probe go on a
        # second session
        assert lab.servers["bench1"].sessions_opened == 2
        assert lab.servers["bench0"].sessions_opened == 0
