"""A mail host where nothing answers the SYN, as behind a firewall that drops port 25.

A closed port on loopback answers at once with a reset ("connection refused"), so it cannot test the
connect timeout. Linux, however, *drops* a SYN for a listening socket whose accept queue is full (it sends
neither SYN-ACK nor RST), and the client's ``connect()`` then waits for its own timeout. The blackhole is a
listener with a backlog of 0 that never accepts, its one queue slot taken by a connection the lab opens
itself; no firewall rule or privilege is needed. (This is Linux behaviour; other kernels may reset.)
"""

from __future__ import annotations

import socket

FILL_TIMEOUT = 5.0


class Blackhole:
    """A listener on ``ip:port`` that leaves every later connection attempt unanswered."""

    def __init__(self, ip: str) -> None:
        self.ip = ip
        self._listener: socket.socket | None = None
        self._filler: socket.socket | None = None

    def start(self, port: int) -> None:
        """Bind and fill the accept queue; ``OSError`` if the port is taken on this IP."""
        listener = socket.socket()
        try:
            listener.bind((self.ip, port))
            listener.listen(0)  # Linux queues backlog + 1 = one connection
            self._filler = socket.create_connection((self.ip, port), FILL_TIMEOUT)
        except OSError:
            listener.close()
            raise
        self._listener = listener

    def stop(self) -> None:
        for sock in (self._filler, self._listener):
            if sock is not None:
                sock.close()
        self._filler = self._listener = None
