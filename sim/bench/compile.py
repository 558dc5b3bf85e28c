"""What a first run costs on a machine that has never compiled this code: `portobello
simulate` timed in a child process with an empty cache, then again with the cache it left
(the same command into a new folder), for each line-up asked. The difference is the
compile; the child's CPU time says how much of the wait was work rather than a busy
machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.common import BenchError


def _timed_simulate(agents: str, players: int, games: int, out: Path,
                    cache: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `portobello simulate` child with its cache at `cache`."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--agents", agents,
                           "--players", str(players), "--games", str(games), "--jobs", "1",
                           "--quiet", "--out", str(out)], capture_output=True, text=True,
                          env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise BenchError(f"simulate --agents {agents} failed: "
                         f"{(done.stderr.strip().splitlines() or ['no message'])[-1]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def bench_compile(lineups: Sequence[str], players: int, games: int) -> dict[str, Any]:
    """For each agent spec (played in every seat): the cold and the warm run's wall and CPU
    seconds, and the compile (cold less warm); the figures of `portobello bench compile`."""
    entries = []
    for agents in lineups:
        with tempfile.TemporaryDirectory(prefix="portobello-compile-") as tmp:
            root = Path(tmp)
            cold = _timed_simulate(agents, players, games, root / "cold", root / "cache")
            warm = _timed_simulate(agents, players, games, root / "warm", root / "cache")
        entries.append({"agents": agents, "cold_seconds": round(cold[0], 2),
                        "cold_cpu_seconds": round(cold[1], 2),
                        "warm_seconds": round(warm[0], 2),
                        "warm_cpu_seconds": round(warm[1], 2),
                        "compile_seconds": round(cold[0] - warm[0], 2)})
    return {"players": players, "games": games, "load": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(), "runs": entries}
