"""Queues and routing.

Two queues keep slow network probes from starving bookkeeping work: ``probes`` (SMTP/DNS, I/O bound,
served by a gevent pool where every socket call carries its own timeout because that pool enforces no
task time limit) and ``default`` (database work: assembling results, progress, events, sweeps).
"""

from kombu import Queue

TASK_QUEUES = (Queue("default"), Queue("probes"))

TASK_ROUTES = {
    "tasks.probes.*": {"queue": "probes"},
}
