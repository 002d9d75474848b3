"""Outbound email to account owners: queued in the caller's transaction, sent and retried by a sweeper.

Public API: ``outbox.queue`` and ``outbox.send_due``; ``relay`` speaks to ``MAIL_SMTP_URL``; ``templates/``
holds the messages; ``errors``.
"""
