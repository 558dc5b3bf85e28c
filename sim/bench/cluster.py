"""Scaling on a Dask cluster: one search-level study cell on a local cluster of 1 and of 2
workers (the speed-up), and many small tasks on many workers (that they give the same
bytes as one process, and what a task costs the cluster beyond its games).

Every cluster is started and warmed (each worker loads the compiled engine by playing a
few games) before the clock starts, so the figures are the steady state a long study sees,
not the start-up. The per-task overhead is measured on one worker, where it is not hidden
by parallelism: (the tiny tasks' time on the cluster - the same tasks' time in this
process) / tasks. Both runs write the same shards, so it is the cost of scheduling a task,
sending it and bringing its result back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.runner import Run
from sim.run.runner import RunConfig


def _config(agent: str, players: int, games: int, shard_size: int, seed: int) -> RunConfig:
    return RunConfig(board=load_board("standard"), board_ref="standard",
                     rules=Rules(players=players), agents=(agent,) * players, games=games,
                     seed=seed, shard_size=shard_size)


def _tables(out: Path) -> list[str]:
    """The SHA-256 of every table file of a run, in path order."""
    files = sorted(p for t in ("games", "players") for p in (out / t).glob("part-*"))
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]


def _timed(config: RunConfig, out: Path, pool: Pool) -> float:
    """Seconds to play `config` into `out` on `pool`, warmed first by a few games of the
    same agents in another folder (every worker loads the compiled engine)."""
    warm = dataclasses.replace(config, games=config.shard_size * pool.workers * 2,
                               seed=config.seed + 1)
    Run(warm, out.with_name(out.name + "-warm")).execute(quiet=True, pool=pool)
    start = time.perf_counter()
    Run(config, out).execute(quiet=True, pool=pool)
    return time.perf_counter() - start


def bench_cluster(agent: str, players: int, games: int, shard_size: int, seed: int,
                  many: int, tiny: int) -> dict[str, Any]:
    """The figures of `portobello bench cluster --json`."""
    cell = _config(agent, players, games, shard_size, seed)
    small = _config("random", players, tiny, 1, seed)  # one game a task
    with tempfile.TemporaryDirectory(prefix="portobello-bench-") as tmp:
        root = Path(tmp)
        scaling = []
        for workers in (1, 2):
            with Pool(Execution(workers, "dask")) as pool:
                seconds = _timed(cell, root / f"cell-{workers}", pool)
            scaling.append({"workers": workers, "seconds": round(seconds, 2),
                            "games_per_second": round(games / seconds, 3)})
        same_cell = _tables(root / "cell-1") == _tables(root / "cell-2")
        with Pool(Execution(1)) as pool:
            local = _timed(small, root / "tiny-local", pool)
        with Pool(Execution(1, "dask")) as pool:
            one = _timed(small, root / "tiny-1", pool)
        with Pool(Execution(many, "dask")) as pool:
            spread = _timed(small, root / f"tiny-{many}", pool)
        reference = _tables(root / "tiny-local")
        same_tiny = reference == _tables(root / "tiny-1") == _tables(root / f"tiny-{many}")
    return {
        "agent": agent, "players": players, "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 2),
        "cell": {"games": games, "shard_size": shard_size, "tasks": cell.n_shards,
                 "runs": scaling, "speedup": round(scaling[0]["seconds"]
                                                   / scaling[1]["seconds"], 3),
                 "identical": same_cell},
        "tiny": {"tasks": tiny, "local_seconds": round(local, 3),
                 "one_worker_seconds": round(one, 3),
                 "overhead_ms_per_task": round(1000 * (one - local) / tiny, 2),
                 "many_workers": many, "many_seconds": round(spread, 3),
                 "tasks_per_second": round(tiny / spread, 1), "identical": same_tiny},
    }
