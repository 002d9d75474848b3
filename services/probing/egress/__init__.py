"""The egress pool as the fleet runs it: which egresses are live (``registry``), and the session limiter
that counts politeness per (egress, MX address) and picks the egress of each new session (``limiter``).

Configuration (``SMTP_EGRESS``) is ``verifier/egress.py``; what operators see, ``services/egress``.
"""
