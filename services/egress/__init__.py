"""The egress pool: where the service's SMTP sessions leave from (``SMTP_EGRESS``, ``verifier/egress.py``).

Public API: ``pool.pool_status`` (what ``flask --app web egress status`` prints).
"""
