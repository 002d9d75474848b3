"""``bin/demo``: the service against the mail lab, a sample list cleaned as a bulk job, a summary table.

Not part of the service: it drives the real processes (gunicorn, a Celery worker, beat) over HTTP the way a
customer would, with a database and Redis prefix of its own that it removes on exit.
"""
