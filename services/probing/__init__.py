"""Probing: how the addresses of every job reach DNS and SMTP, and how their verdicts are saved.

One sub-package per purpose:

- ``jobs``: a job's course: ``plan`` (parse, settle syntax failures, cut into domain groups),
  ``dispatch`` (groups to their lanes, messages to workers and waiting requests), ``settling`` (interim
  answers, when a job counts as answered), ``completion`` (completed jobs and their event), ``degraded``
  (the "checker degraded" verdict)
- ``rounds``: a worker's rounds: ``lanes`` (the groups waiting for one mail server, in Redis) and
  ``routes`` (which lane a domain goes to), ``lane_runs`` (draining a lane in rounds over one kept
  session), ``probe`` (one group through the engine), ``saving`` (the rounds' verdicts),
  ``coalescer`` (many lanes' claims and saves in one statement)
- ``fleet``: the rules and state every process shares: ``policy`` (the rules as pure functions, also run
  by the fleet simulation in ``bench/``), ``politeness`` (those rules applied in Redis),
  ``fleet_engine`` and ``dns_memo`` (the engine's shared caches and limits)
- ``egress``: the egress pool as the fleet runs it: ``registry`` (every probes process's egresses, with a
  heartbeat), ``limiter`` (politeness per (egress, MX address); each new session's egress chosen)
- ``upkeep``: keeping the work alive: ``holds`` (what a live process keeps in Redis: seats, session
  slots), ``liveness`` (a dead worker's holds freed, a stopping one's handed over), ``sweep`` (the beat
  sweeper that re-sends what is owed), ``recovery`` (a sweep the moment the stores answer again)

Every write of the job tables goes through ``services.jobs.store``.
"""
