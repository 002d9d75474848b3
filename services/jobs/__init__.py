"""Validation jobs: every validation (single, batch, bulk list) is a job whose record is in Postgres.

Public API, by module:
- ``submit``: ``submit``, ``wait``, ``find``, ``results``, ``cancel`` (what the API calls)
- ``quick``: ``validate_quick`` (quickMode in the web process)
- ``bulk``: ``upload``, ``progress``, ``download``; ``bulk_readers`` streams an uploaded list,
  ``bulk_download`` writes it back (``csv_safe`` cells), ``bulk_dry_run`` counts and prices it
- ``list_rows``: duplicates (charged once) and each row's own answer (``index``, ``input``, ``email``)
- ``plan`` (parse and group), ``runs`` (claim, probe, save, complete), ``probe`` (one domain group through
  the engine), ``sweep`` (the beat sweeper), ``engine`` (the fleet-wide engine caches and limits),
  ``settling`` (temporary failures: interim answers, when a job counts as answered)
- ``errors``: what a caller may be refused
"""
