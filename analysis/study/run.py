"""Running a study: every cell through `sim.run.runner.Run`, and the folder's study.json.

Each cell is an ordinary run folder `DIR/runs/<variant>-<players>p`, so a study resumes like
any run (finished shards are kept) and tops up like one: the same spec with more games per
cell adds the missing games to every cell (game i keeps its seed). `DIR/study.json` records
the resolved spec, its TOML text, its identity (what a top-up must share) and every cell's
status, and is what `analysis.study.open_study` reads back.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import textwrap
import time
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from analysis.study.precision import play_to_precision
from analysis.study.spec import STUDY_FILE
from analysis.study.spec import STUDY_FORMAT
from analysis.study.spec import Cell
from analysis.study.spec import StudyError
from analysis.study.spec import StudySpec
from analysis.study.spec import cell_limit
from analysis.study.spec import cell_plan
from sim.core.errors import PortobelloError
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import progress_bar
from sim.run.loop import AgentError
from sim.run.runner import Run
from sim.run.runner import write_json_atomic


@dataclass
class CellResult:
    """What happened to one cell: its folder, and an error if its run stopped."""

    key: str
    variant: str
    players: int
    path: Path
    error: str | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    precision: dict[str, Any] | None = None  # where a cell played to precision stopped


def run_study(spec: StudySpec, out: str | Path, jobs: int = 1, quiet: bool = False,
              log: Callable[[str], None] | None = None,
              execution: Execution | None = None) -> list[CellResult]:
    """Run every cell into `out/runs/<variant>-<players>p` and write `out/study.json`.

    Finished shards are kept, so running again resumes. A cell whose run stops on an agent
    error (an agent that raises or breaks the rules) is recorded and the other cells still
    run; the report lists it under anomalies. Any other error (a folder holding another
    configuration, a damaged shard, a lost Dask scheduler) stops the study. `log`, when
    given, receives one line per cell started and per cell stopped. The cells' shards go to
    one pool for the whole study (`execution`, else `jobs` local processes), under one
    progress bar counted in games; unless `quiet`, each cell's lines are printed above that
    bar (`above_bar`), never glued to its end.
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    _check_study_folder(root, spec)
    earlier = _earlier_cells(root)
    results: list[CellResult] = []
    _write_study_json(root, spec, results, status="running", earlier=earlier)
    cells = list(spec.cells())
    with Pool(execution or Execution(jobs)) as pool:
        limits = [cell_limit(spec, c) for c in cells]
        bar = progress_bar(sum(limits), sum(_games_done(spec, c, root) for c in cells), quiet,
                           workers=pool.workers)
        if log is not None and not quiet:
            log = above_bar(bar, log)
        try:
            for cell, limit in zip(cells, limits, strict=True):
                results.append(_run_cell(spec, cell, root, pool, bar, quiet, log))
                _write_study_json(root, spec, results, status="running", earlier=earlier)
                held = results[-1].precision
                games = cell.config.games if held is None else held.get("games")
                if isinstance(games, int) and games < limit:  # stopped at its target
                    bar.total -= limit - games
                    bar.refresh()
        finally:
            bar.close()
    _write_study_json(root, spec, results, status="complete", earlier=earlier)
    return results


LINE_LIMIT = 100  # columns a cell's line may take, also on a wider terminal


def above_bar(bar: Any, log: Callable[[str], None]) -> Callable[[str], None]:
    """`log` made to print above a live progress bar: the bar is cleared while the message
    is written and drawn again below it, and each message is wrapped (its continuation
    lines indented) to fit the terminal and `LINE_LIMIT`. Without this a message lands at
    the end of the bar's line and runs past the terminal's width."""
    def say(msg: str) -> None:
        width = min(shutil.get_terminal_size((LINE_LIMIT, 24)).columns, LINE_LIMIT) - 1
        text = "\n".join(textwrap.fill(line, width=max(width, 20), subsequent_indent="    ",
                                        break_long_words=False, break_on_hyphens=False)
                         for line in msg.splitlines())
        with bar.external_write_mode(file=bar.fp):
            log(text)
    return say


def _run_cell(spec: StudySpec, cell: Cell, root: Path, pool: Pool, bar: Any, quiet: bool,
              log: Callable[[str], None] | None) -> CellResult:
    """Play one cell, saying what it plays; an agent error is recorded, not raised."""
    path = root / "runs" / cell.key
    res = CellResult(cell.key, cell.variant.name, cell.players, path)
    if log:
        agents = cell.config.agents
        who = (f"{agents[0]} in every seat" if len(set(agents)) == 1
               else ", ".join(agents))
        plan = cell_plan(spec, cell)
        if plan is None:
            size = f"{cell.config.games} games"
        elif plan.first == plan.maximum:  # a level capped at its own games: one look
            size = (f"{plan.maximum} games (its level's own count; the ±"
                    f"{100 * plan.target:.2f} pp target is checked, not chased)")
        else:
            size = (f"rounds from {plan.first} up to {plan.maximum} games until every "
                    f"seat is within ±{100 * plan.target:.2f} pp")
        log(f"{cell.key}: {size}, agents {who}")
    try:
        res.timings, res.precision = _play_cell(spec, cell, path, pool, bar, quiet, log)
    except AgentError as exc:
        res.error = exc.message
        if log:
            log(f"{cell.key}: stopped: {exc.message}")
    return res


def _games_done(spec: StudySpec, cell: Cell, root: Path) -> int:
    """The games a cell's folder already holds in finished shards (a resumed study's bar
    starts there); 0 for a folder the cell's run will refuse (it says why)."""
    path = root / "runs" / cell.key
    if not (path / "manifest.json").exists():
        return 0
    config = dataclasses.replace(cell.config, games=cell_limit(spec, cell))
    try:
        done = Run(config, path).finished_shards()
    except PortobelloError:
        return 0
    return sum(len(config.shard_range(s)) for s in done)


def _play_cell(spec: StudySpec, cell: Cell, path: Path, pool: Pool, bar: Any, quiet: bool,
               log: Callable[[str], None] | None
               ) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Play one cell: its fixed games, or in rounds to the spec's precision (then its
    `precision` block too)."""
    plan = cell_plan(spec, cell)
    if plan is None:
        return Run(cell.config, path).execute(quiet=quiet, pool=pool, bar=bar), None
    say = (lambda msg: log(f"{cell.key}: {msg}")) if log else None
    outcome = play_to_precision(cell.config, plan, path, quiet=quiet, log=say, pool=pool,
                                bar=bar)
    return outcome.timings, outcome.block()


def _check_study_folder(root: Path, spec: StudySpec) -> None:
    """Refuse, before anything is written, a folder that holds another study, the same
    study in another configuration (other variants, rules, agents, seed, board, shard size
    or tables), more games in a cell than the spec asks, or a plain run. The same
    configuration with more games is accepted: the runner tops every cell up."""
    path = root / STUDY_FILE
    if path.exists():
        try:
            old = json.loads(path.read_text())
            old_name = old["spec"]["name"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise StudyError(f"{STUDY_FILE} is not a portobello study file",
                             source=str(path)) from None
        if old_name != spec.name:
            raise StudyError(f"this folder holds study {old_name!r}, not {spec.name!r}; use "
                             "another --out", source=str(root))
        if isinstance(old.get("identity"), dict):  # older study folders: the runner checks
            diff = _identity_diff(old["identity"], spec.identity())
            if diff:
                raise StudyError(f"this folder holds study {spec.name!r} in another "
                                 f"configuration ({'; '.join(diff[:3])}); run the spec it "
                                 "was made with (more games top it up), or use another --out",
                                 source=str(root))
        for cell in spec.cells():
            held, limit = games_held(root / "runs" / cell.key), cell_limit(spec, cell)
            if held > limit:
                raise StudyError(f"this folder holds {held} games of this configuration in "
                                 f"cell {cell.key}, more than the {limit} asked; "
                                 f"ask for {held} or more (more tops the study up), or use "
                                 "another --out", source=str(root))
    elif (root / "manifest.json").exists():
        raise StudyError("this folder is a run, not a study folder; use another --out",
                         source=str(root))


def games_held(run_dir: Path) -> int:
    """The games a cell's run folder was asked for (0 when it has no readable manifest)."""
    try:
        games = json.loads((run_dir / "manifest.json").read_text()).get("games", 0)
    except (OSError, json.JSONDecodeError, AttributeError):
        return 0
    return games if isinstance(games, int) else 0


def _identity_diff(held: dict[str, Any], asked: dict[str, Any]) -> list[str]:
    """What differs between a study folder's identity and a spec's, readably: the study
    fields, the cells present, then each common cell's rules and agents."""
    out = [f"{k}: folder has {held.get(k)!r}, asked {asked.get(k)!r}"
           for k in ("board", "seed", "shard_size", "events") if held.get(k) != asked.get(k)]
    old_cells, new_cells = held.get("cells", {}), asked.get("cells", {})
    if list(old_cells) != list(new_cells):
        out.append(f"cells: folder has {', '.join(old_cells)}, asked {', '.join(new_cells)}")
    for key in (k for k in new_cells if k in old_cells):
        old_rules, new_rules = old_cells[key]["rules"], new_cells[key]["rules"]
        for switch in sorted(set(old_rules) | set(new_rules)):
            if old_rules.get(switch) != new_rules.get(switch):
                out.append(f"{key} {switch}: folder has {old_rules.get(switch)!r}, asked "
                           f"{new_rules.get(switch)!r}")
        if old_cells[key]["agents"] != new_cells[key]["agents"]:
            out.append(f"{key} agents: folder has {', '.join(old_cells[key]['agents'])}, "
                       f"asked {', '.join(new_cells[key]['agents'])}")
    return out


def _earlier_cells(root: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The cells a study folder's study.json already records, by key and run id (none for a
    new folder): a study run again keeps what they say until it has played them again."""
    try:
        old = json.loads((root / STUDY_FILE).read_text())
        return {(c["key"], c["run_id"]): c for c in old["cells"]}
    except (OSError, json.JSONDecodeError, KeyError, TypeError):
        return {}


def _played_none(timings: dict[str, Any]) -> bool:
    """Whether a cell's run played no game (it found every shard finished)."""
    return timings.get("games_played") == 0 and not timings.get("rounds_played")


def _write_study_json(root: Path, spec: StudySpec, results: Sequence[CellResult],
                      status: str,
                      earlier: dict[tuple[str, str], dict[str, Any]] | None = None) -> None:
    """Record the spec and every cell's state so far (pending, complete or failed). A cell
    not yet reached keeps its `earlier` record (so a study stopped early, or refused at
    its first cell, loses nothing of what its folder said), and a cell whose run found
    every game played keeps the timings of the run that played them."""
    done = {r.key: r for r in results}
    cells = []
    for cell in spec.cells():
        r = done.get(cell.key)
        before = (earlier or {}).get((cell.key, cell.config.run_id))
        if before is not None and (r is None or (not r.error and _played_none(r.timings)
                                                 and before.get("status") == "complete")):
            cells.append(before)
            continue
        cells.append({"key": cell.key, "variant": cell.variant.name, "players": cell.players,
                      **({"level": cell.level} if cell.level else {}),  # skill studies only
                      **({"check": cell.check} if cell.check else {}),  # saturation check
                      "run": f"runs/{cell.key}", "run_id": cell.config.run_id,
                      "games": cell.config.games, "agents": list(cell.config.agents),
                      "status": ("pending" if r is None else "failed" if r.error
                                 else "complete"),
                      "error": r.error if r else None,
                      "timings": r.timings if r else {},
                      "precision": r.precision if r else None})
    write_json_atomic(root / STUDY_FILE, {
        "format": STUDY_FORMAT, "status": status, "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "spec": spec.to_dict(), "spec_text": spec.text, "identity": spec.identity(),
        "cells": cells})
