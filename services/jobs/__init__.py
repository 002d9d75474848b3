"""The records of validation jobs (``models.jobs``: jobs, their items and their domain groups).

- ``options``: what a job asked for, stored with it as JSON, and the row shapes every layer shares
- ``list_rows``: duplicates (charged once) and each row's own answer (``index``, ``input``, ``email``)
- ``store``: the SQL that writes the job tables (probing's writes of items, groups, counters, completion)
"""
