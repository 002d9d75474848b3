"""Probing: how the addresses of every job reach DNS and SMTP, and how their verdicts are saved.

- ``plan``: parse a job's stored inputs, settle syntax failures, cut the rest into domain groups
- ``dispatch``: a job's window of groups to their domain's lane (``lanes``), messages to workers and to
  waiting requests
- ``lane_runs``: a worker drains a lane in rounds over one kept session, claiming its groups; ``probe``
  runs one group through the engine; ``saving`` writes the rounds' verdicts
- ``settling``: temporary failures (interim answers) and when a job counts as answered
- ``completion``: completing jobs, with their event; ``degraded``: the "checker degraded" verdict
- ``policy``: the rules as pure functions (politeness per MX address, a lane's turns), which
  ``politeness`` and ``lanes`` apply fleet-wide in Redis; ``fleet_engine`` and ``dns_memo``: the engine's
  shared caches and limits; ``coalescer``: many lanes' claims and saves in one statement
- ``sweep``: the beat sweeper that re-sends what is owed; ``holds``: what a live process keeps in Redis
  (seats, session slots); ``liveness``: a dead worker's holds freed and its work resumed at once, a
  stopping one's handed over; ``recovery``: a sweep the moment the stores answer again

Every write of the job tables goes through ``services.jobs.store``.
"""
