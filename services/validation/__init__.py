"""Validation as the API and the dashboard use it: every validation (single, batch, bulk list) is a job.

- ``answers``: ``validate_one``, ``validate_batch`` (one answer per request: settled, or accepted with
  where the results will be), ``single_of``
- ``submit``: ``submit``, ``wait``, ``find``, ``results``, ``cancel``
- ``quick``: ``validate_quick`` (quickMode, answered in the web process)
- ``bulk``: ``upload``, ``progress``, ``download``; ``bulk_readers`` streams an uploaded list (bounded by
  ``upload_guards`` and ``allowance``), ``bulk_download`` writes it back (``csv_safe`` cells),
  ``bulk_dry_run`` counts and prices it, ``list_names`` names it
- ``idempotency``: a client's ``Idempotency-Key``; ``history``: an account's recent jobs
- ``errors``: what a caller may be refused

The work itself (planning, lanes, probing, saving) is ``services.probing``.
"""
