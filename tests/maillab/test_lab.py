"""The mail lab itself: real DNS packets over UDP and TCP, scripted SMTP, isolation, standalone start."""

from __future__ import annotations

import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path

import dns.flags
import dns.message
import dns.query
import dns.rcode
import pytest

from maillab import MailLab
from maillab.model import DomainSpec
from maillab.world import BLACKHOLE_IP, DEAD_IP, bench_domain, bench_world


def _ask(lab: MailLab, name: str, rdtype: str, *, tcp: bool = False) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    host, port = lab.nameserver.split(":")
    send = dns.query.tcp if tcp else dns.query.udp
    return send(query, host, port=int(port), timeout=2)


def test_dns_answers_mx_over_udp_and_tcp(lab):
    for tcp in (False, True):
        answer = _ask(lab, "backup.test", "MX", tcp=tcp)
        assert sorted(rdata.to_text() for rdata in answer.answer[0]) == [
            "10 mx1.backup.test.",
            "20 mx2.backup.test.",
        ]


def test_dns_truncates_large_udp_answers_and_serves_them_whole_over_tcp(lab):
    assert _ask(lab, "big.test", "MX").flags & dns.flags.TC
    assert len(_ask(lab, "big.test", "MX", tcp=True).answer[0]) == 80


def test_dns_unknown_name_is_nxdomain_with_soa(lab):
    answer = _ask(lab, "no-such-domain.test", "MX")
    assert answer.rcode() == dns.rcode.NXDOMAIN
    assert answer.authority


def test_dns_scripted_servfail(lab):
    assert _ask(lab, "servfail.test", "MX").rcode() == dns.rcode.SERVFAIL


def test_records_published_while_running_are_served_until_withdrawn(lab):
    name = "_challenge.published.test"
    assert _ask(lab, name, "TXT").rcode() == dns.rcode.NXDOMAIN
    lab.publish(DomainSpec(name, txt=("token-1",)))
    assert [rdata.to_text() for rdata in _ask(lab, name, "TXT").answer[0]] == ['"token-1"']
    lab.publish(DomainSpec(name, txt=("token-2",)))  # a name's records are replaced, not added to
    assert [rdata.to_text() for rdata in _ask(lab, name, "TXT", tcp=True).answer[0]] == ['"token-2"']
    lab.withdraw(name)
    assert _ask(lab, name, "TXT").rcode() == dns.rcode.NXDOMAIN


def test_dead_ip_refuses_at_once_and_blackhole_ip_never_answers_the_connection(lab):
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((DEAD_IP, lab.smtp_port), 2)
    with pytest.raises(TimeoutError):
        socket.create_connection((BLACKHOLE_IP, lab.smtp_port), 0.2)


def test_smtp_server_records_every_command_of_a_session(lab):
    client = smtplib.SMTP("127.0.0.11", lab.smtp_port, local_hostname="client.test", timeout=5)
    client.ehlo()
    client.docmd("MAIL", "FROM:<a@client.test>")
    code, _ = client.docmd("RCPT", "TO:<alice@mailbox.test>")
    client.quit()
    assert code == 250
    assert lab.servers["mailbox"].transcripts() == [
        ["ehlo client.test", "MAIL FROM:<a@client.test>", "RCPT TO:<alice@mailbox.test>", "quit"]  # verbatim
    ]


def test_two_labs_run_side_by_side_on_their_own_ports(lab):
    with MailLab(bench_world(1)) as other:
        assert other.nameserver != lab.nameserver
        assert other.smtp_port != lab.smtp_port
        client = smtplib.SMTP("127.0.0.101", other.smtp_port, local_hostname="client.test", timeout=5)
        client.quit()
        assert other.servers["bench0"].sessions_opened == 1
    assert lab.servers["bench0"].sessions_opened == 0


def test_reset_forgets_sessions(lab):
    smtplib.SMTP("127.0.0.11", lab.smtp_port, local_hostname="client.test", timeout=5).quit()
    lab.reset()
    assert lab.servers["mailbox"].sessions_opened == 0


def test_standalone_lab_writes_its_environment_and_serves_it(tmp_path: Path):
    env_file = tmp_path / "lab.env"
    process = subprocess.Popen(
        [sys.executable, "-m", "maillab", "--bench-domains", "3", "--env-file", str(env_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if env_file.exists() and env_file.read_text().endswith("\n"):
                break
            time.sleep(0.1)
        env = dict(line.split("=", 1) for line in env_file.read_text().split())
        host, port = env["DNS_NAMESERVERS"].split(":")
        answer = dns.query.udp(dns.message.make_query(bench_domain(2), "MX"), host, port=int(port), timeout=2)
        assert answer.answer[0][0].to_text() == f"10 mx.{bench_domain(2)}."
        smtplib.SMTP("127.0.0.11", int(env["SMTP_PROBE_PORT"]), local_hostname="c.test", timeout=5).quit()
    finally:
        process.terminate()
        process.wait(10)
    assert process.returncode == 0


def _read_replies(sock: socket.socket, count: int) -> list[str]:
    """``count`` final reply lines (multi-line replies collapsed to their last line)."""
    buffer, finals = b"", list[str]()
    while len(finals) < count:
        chunk = sock.recv(4096)
        assert chunk, "the server closed early"
        buffer += chunk
        *lines, buffer = buffer.split(b"\r\n")
        finals += [line.decode() for line in lines if line[3:4] == b" "]
    return finals


def test_smtp_server_answers_commands_pipelined_in_one_packet_in_order(lab):
    with socket.create_connection(("127.0.0.11", lab.smtp_port), timeout=5) as sock:
        assert _read_replies(sock, 1)[0].startswith("220")
        sock.sendall(
            b"EHLO client.test\r\nMAIL FROM:<a@client.test>\r\nRCPT TO:<alice@mailbox.test>\r\n"
            b"RCPT TO:<zed@mailbox.test>\r\nQUIT\r\n"
        )
        codes = [line[:3] for line in _read_replies(sock, 5)]
    assert codes == ["250", "250", "250", "550", "221"]
    assert [arrival.replies_before for arrival in lab.servers["mailbox"].arrivals()[0]] == [1] * 5


def test_smtp_server_advertises_pipelining_unless_told_not_to(lab):
    for ip, offered in (("127.0.0.11", True), ("127.0.0.33", False)):
        with smtplib.SMTP(ip, lab.smtp_port, local_hostname="client.test", timeout=5) as client:
            client.ehlo()
            assert client.has_extn("pipelining") is offered
