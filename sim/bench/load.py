"""A run loaded and summarised as a report does it, measured in a fresh child process: the
seconds for loading, for summarising (and for each summary), and the child's peak memory
(its own max RSS from `wait4`, so nothing the parent imported counts).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.common import TARGET_LOAD_MB
from sim.bench.common import TARGET_LOAD_SECONDS
from sim.bench.common import BenchError
from sim.core.errors import PortobelloError

LOAD_RUNS_DIR = Path("data/runs")  # where `ensure_load_run` keeps its runs
LOAD_RUN_AGENTS = ("random", "random", "random")
LOAD_RUN_JOBS = 2


def summary_steps() -> list[tuple[str, Callable[[Any, Any], Any]]]:
    """The summaries `analysis.report.analyse` computes for runs without events, as named
    steps taking the (games, players) pandas tables of `analysis.study.StudyData`."""
    from analysis import compare as C
    from analysis import metrics as M
    from analysis.metrics.calibration import Calibration

    def margins(games: Any, players: Any) -> Any:
        per_game = M.Margins()(players)
        summary = M.Describe(("margin",))(per_game)
        ties = per_game.groupby(list(M.BY), observed=True)["tied"].mean()
        return summary.merge(ties.rename("tie_share").reset_index(), on=list(M.BY))

    return [
        ("win_shares", lambda g, p: M.WinShare()(p)),
        ("balance", lambda g, p: C.Holm()(M.SeatBalance()(p))),
        ("first_player", lambda g, p: C.Holm()(M.FirstPlayerAdvantage()(p))),
        ("scores", lambda g, p: M.Describe(("score",))(p)),
        ("margins", margins),
        ("length", lambda g, p: M.Describe(("rounds", "turns"))(
            g[g["end_reason"].astype(str) != "round_limit"])),
        ("points", lambda g, p: M.PointsBySource()(p)),
        ("endings", lambda g, p: M.Proportions("end_reason")(g)),
        ("anomalies", lambda g, p: M.Anomalies()(g, p)),
        ("calibration", lambda g, p: Calibration()(g, p)),
    ]


def _self_rss_mb() -> float:
    import resource

    return _rss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _rss_mb(maxrss: float) -> float:
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def load_child(argv: Sequence[str] | None = None) -> int:
    """The measured child: import, load, summarise the run `argv[0]`; one JSON line out
    (or the loader's one-line error on stderr and status 2)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        start = time.perf_counter()
        from analysis.study import cells_from_runs

        steps = summary_steps()
        imports = time.perf_counter() - start
        rss_imports = _self_rss_mb()
        start = time.perf_counter()
        data = cells_from_runs([argv[0]])
        games, players = data.games(), data.players()
        load = time.perf_counter() - start
        rss_load = _self_rss_mb()
        step_seconds: dict[str, float] = {}
        for name, step in steps:
            t = time.perf_counter()
            step(games, players)
            step_seconds[name] = round(time.perf_counter() - t, 4)
        summarise = sum(step_seconds.values())
    except PortobelloError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(json.dumps({"games": len(games), "player_rows": len(players),
                      "import_seconds": round(imports, 4), "load_seconds": round(load, 4),
                      "summarise_seconds": round(summarise, 4), "steps": step_seconds,
                      "rss_after_imports_mb": round(rss_imports, 1),
                      "rss_after_load_mb": round(rss_load, 1)}))
    return 0


def measure_load(run_dir: str | Path) -> dict[str, Any]:
    """Run `load_child` on a run in a fresh process; its figures, its wall time as this
    process saw it and its peak memory; the figures of `portobello bench load --json`."""
    path = Path(run_dir).resolve()
    code = "import sys; from sim.bench.load import load_child; sys.exit(load_child())"
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)],
                                stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            text = err.read().decode(errors="replace").strip().splitlines()
            raise BenchError(f"the measuring process failed (status {proc.returncode}): "
                             f"{text[-1] if text else 'no message'}", source=str(run_dir))
    child = json.loads(stdout)
    total = child["load_seconds"] + child["summarise_seconds"]
    per_million = 1_000_000 / child["games"]
    return {"run": str(run_dir), **child, "total_seconds": round(total, 4),
            "child_wall_seconds": round(wall, 3), "peak_rss_mb": round(_rss_mb(
                usage.ru_maxrss), 1),
            "total_seconds_per_million_games": round(total * per_million, 2),
            "target_seconds_per_million_games": TARGET_LOAD_SECONDS,
            "target_peak_mb_at_million_games": TARGET_LOAD_MB}


def load_run_config(games: int) -> Any:
    """The run `ensure_load_run` makes: random agents, 3 players, the standard board and
    rules, seed 0, the runner's default shard size."""
    from sim.games.portobello.board import load_board
    from sim.games.portobello.rules import Rules
    from sim.run.runner import RunConfig

    return RunConfig(board=load_board("standard"), board_ref="standard",
                     rules=Rules(players=len(LOAD_RUN_AGENTS)), agents=LOAD_RUN_AGENTS,
                     games=games, seed=0)


def ensure_load_run(games: int, root: Path = LOAD_RUNS_DIR) -> Path:
    """`root/bench-load-N` (relative to the current folder): reused when complete, else
    made (or finished) by the runner with `LOAD_RUN_JOBS` jobs."""
    from sim.run.runner import Run

    out = root / f"bench-load-{games}"
    manifest = out / "manifest.json"
    if manifest.exists():
        try:
            complete = json.loads(manifest.read_text()).get("status") == "complete"
        except (json.JSONDecodeError, AttributeError):
            complete = False
        if complete:
            return out
    Run(load_run_config(games), out).execute(jobs=LOAD_RUN_JOBS, quiet=True)
    return out
