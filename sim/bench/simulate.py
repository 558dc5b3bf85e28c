"""A run end to end once per job count: games and decisions per second, each rate's ratio
to the first entry's, and bytes per game on disk.

Every entry runs the same configuration into a new folder through the runner's API
(`sim.run.runner.Run.execute`), timed as a whole: with more than one job the time includes
starting the worker processes (and loading a compiled engine in each).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.common import BenchError
from sim.bench.disk import disk_usage
from sim.run.runner import Run
from sim.run.runner import RunConfig


def entry_folders(root: Path, jobs_list: Sequence[int]) -> list[Path]:
    """`root/<i>-jobs-<n>`: the run folder of each entry."""
    return [root / f"{i}-jobs-{j}" for i, j in enumerate(jobs_list)]


def time_run(config: RunConfig, out: Path, jobs: int, backend: str = "loky",
             scheduler: str | None = None, engine: str = "auto",
             scheduler_timeout: float | None = None) -> dict[str, Any]:
    """One entry: the run into `out` with `jobs` workers, timed around `Run.execute`."""
    start = time.perf_counter()
    timings = Run(config, out).execute(jobs=jobs, backend=backend, scheduler=scheduler,
                                       quiet=True, engine=engine,
                                       scheduler_timeout=scheduler_timeout)
    seconds = time.perf_counter() - start
    played = timings["games_played"]
    return {"jobs": jobs, "seconds": round(seconds, 3),
            "games_per_second": round(played / seconds, 2),
            "decisions_per_second": round(timings["decisions"] / seconds, 1),
            "backend": timings["backend"], "engine": timings["engine"]}


def bench_simulate(config: RunConfig, jobs_list: Sequence[int], root: str | Path | None = None,
                   backend: str = "loky", scheduler: str | None = None,
                   engine: str = "auto", scheduler_timeout: float | None = None
                   ) -> dict[str, Any]:
    """Run `config` once per entry of `jobs_list`, each into a new folder under `root`
    (kept; default a temporary folder, deleted afterwards); the figures of
    `portobello bench simulate --json`. Bytes on disk are those of the first entry's run
    (every entry writes the same tables)."""
    if not jobs_list or min(jobs_list) < 1:
        raise BenchError(f"job counts must be at least 1, got {list(jobs_list)}")
    with tempfile.TemporaryDirectory(prefix="portobello-bench-") as tmp:
        base = Path(root) if root is not None else Path(tmp)
        outs = entry_folders(base, jobs_list)
        for out in outs:
            if out.exists() and any(out.iterdir()):
                raise BenchError("folder exists and is not empty; give a new --out",
                                 source=str(out))
        entries = []
        for jobs, out in zip(jobs_list, outs, strict=True):
            entry = time_run(config, out, jobs, backend, scheduler, engine, scheduler_timeout)
            entries.append({"jobs": jobs, "out": str(out) if root is not None else None,
                            **{k: v for k, v in entry.items() if k != "jobs"}})
        disk = disk_usage(outs[0])
        if root is None:
            disk["run"] = None  # the temporary folder is gone
    first = entries[0]["games_per_second"]
    for e in entries:
        e["ratio_to_first"] = round(e["games_per_second"] / first, 3)
    return {"agents": list(config.agents), "players": config.rules.players,
            "games": config.games, "shard_size": config.shard_size, "seed": config.seed,
            "cpus": os.cpu_count(), "runs": entries, "disk": disk}
