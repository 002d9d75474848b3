"""Probing: how the addresses of every job reach DNS and SMTP, and how their verdicts are saved.

- ``plan``: parse a job's stored inputs, settle syntax failures, cut the rest into domain groups
- ``dispatch``: groups to their domain's lane (``lanes``), messages to workers and to waiting requests
- ``lane_runs``: a worker drains a lane in rounds over one kept session; ``probe`` runs one group through
  the engine; ``saving`` writes a round's verdicts; ``runs`` claims groups and completes jobs
- ``settling``: temporary failures (interim answers) and when a job counts as answered
- ``completion``: a finished job's event; ``degraded``: the "checker degraded" verdict
- ``politeness``: sessions per MX address, fleet-wide; ``fleet_engine`` and ``dns_memo``: the engine's
  shared caches and limits; ``coalescer``: many lanes' claims and saves in one statement
- ``sweep``: the beat sweeper that re-sends what is owed
"""
