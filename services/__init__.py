"""Business rules and transactions: views and tasks call these, these call ``models/``; nothing knows HTTP.

One package per capability (``jobs``, ``webhooks``, ``usage``, ``keys``, ``mail``), each with its own
``errors``; beside them the few modules every capability shares: ``accounts``, ``audit``, ``auth``,
``errors`` (the base classes), ``broker`` (messages to workers after commit), ``links`` (every URL the
service writes), ``redis_client``, ``due_work``, ``once_a_minute``, ``retention``, ``health``.
"""

# Registered in every process that imports a service, so any of them that commits a change to an API key,
# an account or a brand tells the web processes to drop their snapshots (``services.snapshots``).
from services import snapshots as _snapshots  # noqa: F401
