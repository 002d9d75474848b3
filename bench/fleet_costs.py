"""Unit costs of the fleet simulation (``bench/fleet_sim.py``): measured figures, counts read off the code.

Measured figures cite ``docs/benchmarks.md`` (the line is quoted, so a reader finds it whatever the line
number has become). Counts of statements and Redis commands are read off the modules named beside each; a
Lua script costs its inner commands plus one for the EVALSHA itself. The capacities of the shared servers
are assumptions of the scenario (the issue's figures), not measurements: every table prints them.
"""

from __future__ import annotations

# -- CPU of the web and worker processes per address (docs/benchmarks.md, "Throughput: lanes against one
# session set per group", table rows "lanes: POST /bulk/jobs | 413 | ... | 0.87 ms" and "lanes: 100 batches
# of 100, 10 in flight | 149 | ... | 4.80 ms"). Both are web + worker; the simulation charges all of it to
# the probe worker's one core, which overstates the worker's share (the web scales on its own).
CPU_PER_BULK_ADDRESS = 0.87e-3
CPU_PER_BATCH_ADDRESS = 4.80e-3

# -- Postgres. One multi-row statement costs one "simple write"; each row it touches beyond that costs
# ROW_COST of one. docs/benchmarks.md, "Streaming proof": "stored in 9.2 s (109,000 rows/s with COPY)" on
# the 2-core container; against the scenario's 20,000 simple writes/s that is 20,000 / 109,000 = 0.18.
ROW_COST = 0.18
# services/jobs/runs.claim_groups: one UPDATE ... RETURNING for the round (in its own transaction: +BEGIN,
# COMMIT).
PG_CLAIM = 3
# services/jobs/saving.save_round in one transaction: BEGIN, the jobs' row lock, _SETTLE, _COUNT,
# _GROUPS_DONE, _complete's UPDATE, _waiting's SELECT, COMMIT.
PG_SAVE = 8
# services/jobs/runs.fill_window per job still waiting: the in-flight count and dispatch's UPDATE.
PG_REFILL = 2
# settling.wake_if_answered, once per job of the round (lane_runs.run_round): one read.
PG_WAKE_CHECK = 1
# A batch accepted by the web (services/jobs/submit + plan): BEGIN, charge, job row, items, groups, the
# first window's dispatch, COMMIT; its item and group rows are charged at ROW_COST each.
PG_BATCH_SUBMIT = 7

# -- Redis commands (one Redis for the fleet: lanes, politeness, caches and the Celery broker).
# services/jobs/lanes._PUSH per (lane, account) of a dispatch: EXPIRE, LPOS, RPUSH, EXPIRE + one RPUSH per
# ref, + EVALSHA; then SET NX for the lane's mark (lanes.mark_sent).
REDIS_PUSH = 6
REDIS_PUSH_PER_REF = 1
# lanes._POP: LPOP ring, LPOP queue, LLEN, RPUSH per ref taken, one last LPOP, + EVALSHA.
REDIS_POP = 2
REDIS_POP_PER_REF = 4
# lanes.take (lease_sets._ACQUIRE: TIME, ZREMRANGEBYSCORE, ZCARD, ZADD, EXPIRE + EVALSHA) at a turn's
# start; clear_sent (DEL), give_back (ZREM), waiting (EXISTS) at its end.
REDIS_TAKE = 6
REDIS_TURN_END = 3
# lanes.keep (lease_sets._RENEW: TIME, ZADD + EVALSHA) before every round.
REDIS_KEEP = 3
# Per round probed: the catch-all cache GET (services/jobs/engine.CatchAllCache) and the DNS cache GET
# (memoized per process for a few seconds: counted once per round, an upper bound).
REDIS_ROUND_CACHES = 2
# politeness._ACQUIRE per look: TIME, PTTL, ZREMRANGEBYSCORE, ZCARD, GET, ZADD, EXPIRE, SET + EVALSHA;
# politeness.close: ZREM; politeness._BACK_OFF: INCR, PEXPIRE, SET + EVALSHA.
REDIS_TRY_OPEN = 9
REDIS_CLOSE = 1
REDIS_BACK_OFF = 4
# One Celery message on the Redis transport (kombu): LPUSH and the task-sent event's PUBLISH by the sender;
# BRPOP, the unacked HSET and ZADD by the worker; HDEL and ZREM at the late ack.
REDIS_PER_MESSAGE = 7
# A batch at the web: rate-limit script (about 4 commands), snapshot generation GET.
REDIS_BATCH_SUBMIT = 5
