"""The TCP connection of one SMTP session, opened over its egress (``verifier/egress.py``).

- ``direct://``: a plain connect to the MX's IP literal, bound to the egress's source address if it has one;
- ``socks5://``: through the proxy (python-socks, RFC 1928/1929), asking it for the MX's IP address, never
  a name, so the proxy's resolver decides nothing.

Whatever fails on the way out rather than at the MX is an ``EgressFault``: the proxy refusing us, wrong
credentials, a proxy that does not answer in time, a source address this host does not have. It says
nothing about the mailbox, and the evidence says so (``EGRESS_FAULT``), so the caller can ask again over
another egress. The proxy's own "connection refused" (SOCKS reply 5) is the MX refusing, and stays that.
Every step is bounded by the connect timeout the session gives.

Trade-off accepted: a proxy that answers its handshake but not, in time, our CONNECT is "too slow", and
so is a proxy whose own connection to a silent MX (a firewall dropping port 25) hangs: SOCKS5 cannot tell
them apart. Either way no verdict is drawn, and the next egress finds out which it was.
"""

from __future__ import annotations

import ipaddress
import socket

from python_socks import ProxyConnectionError, ProxyError, ProxyTimeoutError, ProxyType
from python_socks.sync import Proxy

from verifier.egress import Egress, Socks5Proxy
from verifier.smtp.evidence import EGRESS_FAULT

__all__ = ["EGRESS_FAULT", "ConnectTimeout", "EgressFault", "open_connection", "proxy_answers"]

SOCKS_CONNECTION_REFUSED = 5  # RFC 1928 reply: the MX refused the proxy's connection
_GREETING = bytes([5, 2, 0, 2])  # RFC 1928 method selection: version 5, offering "none" and "password"


class ConnectTimeout(TimeoutError):
    """No answer to the TCP handshake (a firewall dropping port 25), as opposed to a silent banner."""


class EgressFault(OSError):
    """The egress failed (proxy unreachable, refusing, too slow, wrong credentials; source address not
    ours): no word from the MX, and no verdict may be drawn."""


def open_connection(egress: Egress, ip: str, port: int, timeout: float) -> socket.socket:
    """A connected socket to ``ip:port`` over ``egress``, its timeout still ``timeout``."""
    if egress.proxy is not None:
        return _through_proxy(egress.proxy, ip, port, timeout)
    return _direct(egress.source, ip, port, timeout)


def _direct(source: str | None, ip: str, port: int, timeout: float) -> socket.socket:
    # A plain connect to the IP literal: ``create_connection`` would call getaddrinfo, which gevent
    # runs on a thread pool (ten more threads, each with a malloc arena, in a probes process).
    family = socket.AF_INET6 if ipaddress.ip_address(ip).version == 6 else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        _bind(sock, source)
        sock.connect((ip, port))
    except TimeoutError as error:
        sock.close()
        raise ConnectTimeout("connect timeout") from error
    except OSError:
        sock.close()
        raise
    return sock


def _bind(sock: socket.socket, source: str | None) -> None:
    if source is None:
        return
    try:
        sock.bind((source, 0))
    except OSError as error:  # not an address of this host, or of the MX address's family
        raise EgressFault(f"source address not available ({error.strerror or error})") from error


def _through_proxy(proxy: Socks5Proxy, ip: str, port: int, timeout: float) -> socket.socket:
    client = Proxy(ProxyType.SOCKS5, proxy.host, proxy.port, proxy.username, proxy.password, rdns=False)
    try:
        return client.connect(dest_host=ip, dest_port=port, timeout=timeout)
    except ProxyTimeoutError as error:
        raise EgressFault("proxy too slow") from error
    except ProxyConnectionError as error:
        raise EgressFault("proxy unreachable") from error
    except ProxyError as error:
        if error.error_code == SOCKS_CONNECTION_REFUSED:
            raise ConnectionRefusedError("connection refused") from error
        raise EgressFault(f"proxy failed: {error}") from error
    except OSError as error:  # the proxy hung up or reset during its handshake
        raise EgressFault(f"proxy failed: {error.strerror or error}") from error


def proxy_answers(proxy: Socks5Proxy, timeout: float) -> bool:
    """Does the proxy still answer a SOCKS5 greeting? Asked after a proxied session lost its connection
    without a reply, to tell a proxy that died from a server that hung up. A TCP connect alone would not
    do: the kernel completes handshakes on a listening socket while the processes holding it are dying."""
    try:
        with socket.create_connection((proxy.host, proxy.port), timeout) as sock:
            sock.sendall(_GREETING)
            return sock.recv(2)[:1] == b"\x05"
    except OSError:
        return False
