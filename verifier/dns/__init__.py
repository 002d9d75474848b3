"""DNS for mail: MX lookup with our own resolver, implicit MX, null MX, TTL-honouring shared cache.

Entry point: ``MailResolver(config, cache).resolve(ascii_domain) -> MailDomain``.
"""

from verifier.dns.cache import MemoryCache, TtlCache
from verifier.dns.model import DomainStatus, MailDomain, MxRecord
from verifier.dns.resolver import MailResolver

__all__ = ["DomainStatus", "MailDomain", "MailResolver", "MemoryCache", "MxRecord", "TtlCache"]
