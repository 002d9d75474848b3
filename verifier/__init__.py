"""verimail's verification engine: syntax, DNS, lists, typo suggestion, SMTP probing and scoring.

Pure library: it imports nothing from Flask, Celery, SQLAlchemy or the service folders, so the web tier, the
workers and the command line (``python -m verifier``) all call the same code.
"""
