"""Webhooks: endpoints, the transactional event outbox, signed delivery with retries, and its log.

Public API, by module:
- ``endpoints``: create, list, read, change, delete, rotate the secret
- ``events``: ``emit`` inside the transaction of the change; ``payloads`` builds the ``data`` of each type
- ``delivery``: ``deliver_due`` (attempts and retries, spec 6.4; schedule in ``retry_schedule``)
- ``delivery_log``: the log of an endpoint (by delivery, or by event with its redeliveries), ``redeliver``,
  ``send_test``
- ``outbound`` and ``addresses``: the one outbound HTTP client and the address rules it enforces
- ``dispatch``: the after-commit nudge; ``errors``
"""
