"""The Procfile's process types as separate processes (web, worker, webhooks, probes, beat), each started,
stopped (SIGTERM, a warm shutdown) or killed (SIGKILL) on its own, as a supervisor or a deploy would.

Shared by the worker-loss tests and the fault benchmark (``bench.fault_stack``): one way to start them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.processes import Process, free_port, start_beat, start_gunicorn, start_worker

PROCESS_TYPES = ("web", "worker", "webhooks", "probes", "beat")


def starters(env: Mapping[str, str], folder: Path, name: str, port: int) -> dict[str, Callable[[], Any]]:
    """How each process type starts, with the Procfile's pools and sizes (gunicorn 2 workers on ``port``);
    a process started again keeps its port or node name, as a supervisor's restart on one host does."""
    return {
        "web": lambda: start_gunicorn(env, folder, port=port, WEB_CONCURRENCY="2"),
        "worker": lambda: start_worker(env, f"{name}-w", concurrency=8, queues="default", pool="threads"),
        "webhooks": lambda: start_worker(env, f"{name}-h", concurrency=16, queues="webhooks", pool="threads"),
        "probes": lambda: start_worker(env, f"{name}-p", concurrency=500, queues="probes"),
        "beat": lambda: start_beat(env, f"{name}-b"),
    }


class Processes:
    """The running process types by Procfile name."""

    def __init__(self, env: Mapping[str, str], folder: Path, name: str = f"pf{os.getpid()}") -> None:
        self.starters = starters(env, folder, name, free_port())
        self.running: dict[str, Any] = {}

    def start_all(self) -> None:
        """Every type at once (each takes seconds to import); on a failure the started ones are stopped."""
        with ThreadPoolExecutor(len(self.starters)) as pool:
            futures = {kind: pool.submit(start) for kind, start in self.starters.items()}
        self.running = {kind: f.result() for kind, f in futures.items() if f.exception() is None}
        if len(self.running) < len(self.starters):
            self.stop_all()
            raise next(error for f in futures.values() if (error := f.exception()) is not None)

    def kill(self, kind: str) -> None:
        """SIGKILL to the process group, and another started in its place; returns once it is ready."""
        process: Process = self.running[kind]
        process.kill()
        self.running[kind] = self.starters[kind]()

    def restart(self, kind: str) -> None:
        """SIGTERM (a warm shutdown, SIGKILL if it outlives its stop time), then another started."""
        process: Process = self.running[kind]
        process.stop()
        self.running[kind] = self.starters[kind]()

    def stop_all(self) -> None:
        with ThreadPoolExecutor(max(len(self.running), 1)) as pool:  # each waits for its warm shutdown
            list(pool.map(lambda process: process.stop(), self.running.values()))
