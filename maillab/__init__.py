"""The mail lab: verimail's own DNS and SMTP world on loopback, for tests, benchmarks and offline demos.

``MailLab`` starts a DNS server (UDP+TCP, 127.0.0.1, random port) and scripted SMTP servers on 127.0.0.x
(one shared random port); ``maillab.world`` declares what they serve. ``python -m maillab`` runs it alone.
"""

from maillab.lab import MailLab
from maillab.model import Answer, Behaviour, DomainSpec, Greeting, SmtpServerSpec, Tls, World

__all__ = ["Answer", "Behaviour", "DomainSpec", "Greeting", "MailLab", "SmtpServerSpec", "Tls", "World"]
