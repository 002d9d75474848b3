"""Unit costs of the fleet simulation (``bench/fleet_sim.py``): measured figures, counts read off the code.

Measured figures cite ``docs/benchmarks.md`` (the figures are quoted, so a reader finds them whatever the
line number has become). Counts of statements and Redis commands are read off the modules named beside
each; a Lua script costs its inner commands plus one for the EVALSHA itself, a transactional pipeline
its commands plus MULTI and EXEC. The capacities of the shared servers are assumptions of the scenario
(the issue's figures), not measurements: every table prints them.
"""

from __future__ import annotations

from services.jobs import store

# -- CPU of the probes worker per address (docs/benchmarks.md, throughput Round 3, `bench.throughput
# --only lanes`: "batches (100 batches of 100, 10 in flight) 0.95-0.98 ms (0.62-0.66 ms workers)" and
# "POST /bulk/jobs 0.31-0.35 ms (0.29-0.32 ms workers)", web + workers per address with the workers'
# share in brackets). Only the workers' share is charged to the simulated worker's core: the web runs in
# its own processes on its own cores (gunicorn scales apart from the probes workers), and charging it
# here made the worker look busier than it is. The upper end of each range; the bulk figure also holds
# the planning by the threads `worker` process, which in a fleet runs beside the probes worker.
CPU_PER_BULK_ADDRESS = 0.32e-3
CPU_PER_BATCH_ADDRESS = 0.66e-3

# -- Postgres. One multi-row statement costs one "simple write"; each row it touches beyond that costs
# ROW_COST of one. docs/benchmarks.md, "Streaming proof": "stored in 9.2 s (109,000 rows/s with COPY)" on
# the 2-core container; against the scenario's 20,000 simple writes/s that is 20,000 / 109,000 = 0.18.
ROW_COST = 0.18
# Claims and saves are coalesced per probes process (services/probing/lane_runs.CLAIMS and SAVES on
# services/probing/coalescer.Coalescer): a run starts `gather` seconds after its first request, takes requests
# up to `most` by weight (always at least one), and the next run starts when it is done. Claims weigh
# their groups, saves their addresses.
CLAIM_GATHER, CLAIM_MOST = 0.005, 1000
SAVE_GATHER, SAVE_MOST = 0.02, 3000
# lane_runs.claim_rounds -> store.claim_groups, once per claim run: one UPDATE ... RETURNING over every
# round's groups in its own transaction (+BEGIN, COMMIT); each group claimed is a row.
PG_CLAIM_RUN = 3
# lane_runs.save_rounds -> saving.save_round, once per save run, one transaction: BEGIN, the jobs' row
# lock, the store's _SETTLE (one per SETTLE_CHUNK results), _COUNT, _GROUPS_DONE, complete's UPDATE,
# _waiting's SELECT, COMMIT. Rows: every address settled, every group marked done, every job locked.
PG_SAVE_RUN = 8
SETTLE_CHUNK = store.SETTLE_CHUNK
# dispatch.fill_window per job of the run still waiting: the in-flight count and queue_due_groups'
# UPDATE; each group it queues is a row. (settling.wake_if_answered runs only for jobs that asked for
# retries of temporary failures, which the simulated jobs do not.)
PG_REFILL = 2
# A batch accepted by the web (services/validation/submit.submit and plan.plan): store (BEGIN, job row, items,
# COMMIT), the charge (one prepared statement in its transaction), admit (BEGIN, UPDATE, COMMIT), two
# parse chunks (the second finds nothing), make_groups (BEGIN, unparsed check, job UPDATE, groups
# INSERT, completion.complete, fill_window's two, COMMIT): about 25. Rows: each item is inserted and then
# marked parsed, each group inserted and then queued.
PG_BATCH_SUBMIT = 25
PG_BATCH_ROWS_PER_ITEM = 2
PG_BATCH_ROWS_PER_GROUP = 2

# -- Redis commands (one Redis for the fleet: lanes, politeness, caches and the Celery broker).
# services/probing/lanes._PUSH, one script per dispatch (a job's refill) whatever its lanes: the EVALSHA;
# per lane and account: EXISTS queue, EXPIRE queue, LPOS, RPUSH turns (counted always), EXPIRE turns; a
# GET owner per seat; for a lane of several seats (an MX address's), LRANGE turns and one LLEN per account
# waiting, to count the refs the seats could take; SET owner "sent" per seat woken; one RPUSH on the
# wake-up list per owner (up to the refs pushed) and its EXPIRE; one RPUSH per ref.
REDIS_PUSH = 1
REDIS_PUSH_PER_LANE = 5
REDIS_PUSH_PER_SEAT = 1
REDIS_PUSH_COUNT = 1
REDIS_PUSH_COUNT_PER_ACCOUNT = 1
REDIS_PUSH_WAKE = 1
REDIS_PUSH_WAKEUP = 1
REDIS_PUSH_WAKEUP_EXPIRE = 1
REDIS_PUSH_PER_REF = 1
# lanes._POP: per ref taken LMOVE turns, LPOP queue, LLEN, RPOP turns (counted always); one last LMOVE of
# the emptied turns and the EVALSHA.
REDIS_POP = 2
REDIS_POP_PER_REF = 4
# In a lane of several seats, first LRANGE turns and one LLEN per account waiting, to cap the round at
# its seat's share of the refs.
REDIS_POP_COUNT = 1
REDIS_POP_COUNT_PER_ACCOUNT = 1
# lanes._TAKE at a seat's turn's start: GET, SET + EVALSHA. lanes._LET_GO at its end: GET, EXISTS turns,
# SET or DEL + EVALSHA. The owners' holds are renewed by one script per process every few seconds for all
# its seats (services/probing/upkeep/holds.py), not per turn: not charged here.
REDIS_TAKE = 3
REDIS_LET_GO = 4
# lanes.wait_for_push: one BLPOP on the lane's wake-up list, answered by a wake-up (one left from before
# the turn too: the next pop finds the lane empty and waits again) or its timeout.
REDIS_WAKEUP_WAIT = 1
# Per round probed, the DNS answer and the catch-all verdict (services/probing/fleet_engine.RedisTtlCache and
# CatchAllCache): each read through services/probing/dns_memo.DnsMemo, a GET and PTTL pipeline memoized in
# the process for MEMO_SECONDS.
REDIS_CACHE_KEYS_PER_ROUND = 2
REDIS_CACHE_READ = 2
MEMO_SECONDS = 5.0  # services/probing/dns_memo.MEMO_SECONDS
# politeness._ACQUIRE per look, by its answer, each + EVALSHA: granted TIME, PTTL, ZREMRANGEBYSCORE,
# ZCARD, GET, ZADD, EXPIRE, SET; full after ZCARD; too soon after GET; backing off after PTTL.
REDIS_TRY_OPEN = 9
REDIS_TRY_FULL = 5
REDIS_TRY_SPACING = 6
REDIS_TRY_BACKING_OFF = 3
# politeness.close: ZREM; politeness._BACK_OFF: INCR, PEXPIRE, SET + EVALSHA.
REDIS_CLOSE = 1
REDIS_BACK_OFF = 4
# One Celery message on the Redis transport (kombu; workers/celery_app and services/broker turn task
# events on): the sender's LPUSH and task-sent PUBLISH; the worker's BRPOP, the unacked ZADD and HSET
# (MULTI/EXEC pipeline), its task-received, task-started and task-succeeded PUBLISHes, and at the late
# ack ZREM and HDEL (MULTI/EXEC pipeline).
REDIS_PER_MESSAGE = 14
# A batch at the web: rate-limit script (about 4 commands), snapshot generation GET.
REDIS_BATCH_SUBMIT = 5
