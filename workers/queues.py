"""Queues and routing.

Two queues keep slow network probes from starving bookkeeping work: ``probes`` (SMTP/DNS, I/O bound,
served by a gevent pool where every socket call carries its own timeout because that pool enforces no
task time limit) and ``default`` (database work: assembling results, progress, events, sweeps).
"""

from kombu.entity import Queue

from services.jobs.dispatch import PROBE_GROUP_TASK

# kombu ships no type hints for Queue's constructor.
TASK_QUEUES = (Queue("default"), Queue("probes"))  # type: ignore[no-untyped-call]

TASK_ROUTES = {PROBE_GROUP_TASK: {"queue": "probes"}}
