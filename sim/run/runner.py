"""Mass simulation: many games in parallel, stored as Parquet shards, resumable.

A run folder holds `manifest.json` and the tables `games/`, `players/` (and optionally
`events/`, `records/`) as one file per shard. Every game's seed comes from the run seed and
the game's index, so the tables do not depend on the number of jobs, the shard size, the
backend or the engine. Workers play whole shards (`sim.run.shard`) and send back encoded
files; only this process writes, each file under a temporary name and then renamed
(`sim.run.store`), so a killed run leaves only whole shards and the same command resumes it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.outputs import atomic_write
from sim.games.registry import default_game
from sim.run.config import RunConfig
from sim.run.config import RunError
from sim.run.config import play_code
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.execution import progress_bar
from sim.run.game_runs import ENGINES
from sim.run.game_runs import compile_notice
from sim.run.game_runs import engine_name
from sim.run.interrupts import raise_if_interrupted
from sim.run.shard import assemble_shard
from sim.run.shard import play_part
from sim.run.store import CHECKSUMS
from sim.run.store import LOCK_NAME
from sim.run.store import RUN_FORMAT
from sim.run.store import TABLES
from sim.run.store import check_shard
from sim.run.store import checksum_path
from sim.run.store import code_version
from sim.run.store import file_entry
from sim.run.store import git_commit
from sim.run.store import library_versions
from sim.run.store import manifest_cost
from sim.run.store import run_lock
from sim.run.store import shard_path
from sim.run.store import verify_shard
from sim.run.store import write_checksums
from sim.run.store import write_json_atomic

__all__ = ["ENGINES", "Run", "RunConfig", "RunError", "play_code", "run_lock",
           "write_json_atomic"]


class Run:
    """A run folder bound to a configuration.

    `extra` holds blocks the manifest records beside its own fields, for a driver that
    plays the run in several `execute` calls and says why it stopped where it did (the
    `precision` block of precision on demand, `analysis.study.precision`); they decide no
    game and are not part of the identity."""

    def __init__(self, config: RunConfig, out: Path,
                 extra: Mapping[str, Any] | None = None) -> None:
        self.config = config
        self.out = Path(out)
        self.tables = [t for t in TABLES
                       if t in ("games", "players") or getattr(config, t)]
        self.extra = dict(extra or {})

    # The manifest --------------------------------------------------------------------------
    def manifest(self, status: str, timings: dict[str, Any] | None = None,
                 cost: dict[str, Any] | None = None) -> dict[str, Any]:
        c = self.config
        return {
            "format": RUN_FORMAT,
            "run_id": c.run_id,
            "status": status,
            **({"game": c.game} if c.game != default_game() else {}),
            # The game's material (a board, a card set...) under one key for every game.
            "board": {"name": c.board.name, "ref": c.board_ref, "hash": c.board.content_hash,
                      "content": c.kind.material_dict(c.board)},
            "rules": c.rules.to_dict(),
            "agents": list(c.agents),
            "seed": c.seed,
            "games": c.games,
            "shard_size": c.shard_size,
            "shards": c.n_shards,
            "tables": self.tables,
            "identity": c.identity(),
            "code_version": code_version(),
            "git_commit": git_commit(),
            "libraries": library_versions(),
            "timings": timings or {},
            "cost": cost if cost is not None else self.cost_so_far(),
            **self.extra,
        }

    def cost_so_far(self) -> dict[str, Any]:
        """What playing this folder's games has cost over every command that played some
        (`timings` say what the last command did; a resumed run played nothing):
        `seconds`, `games_played` and the `jobs` used."""
        try:
            old = json.loads((self.out / "manifest.json").read_text())
        except (OSError, ValueError):
            old = None
        return manifest_cost(old)

    def _check_folder(self) -> None:
        """Refuse a folder that holds another run or something that is not a run."""
        path = self.out / "manifest.json"
        if path.exists():
            try:
                old = json.loads(path.read_text())
                identity = old["identity"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise RunError("manifest.json is not a portobello run manifest",
                               source=str(path)) from None
            if old.get("format") != RUN_FORMAT:
                raise RunError(f"this folder holds a {old.get('format')} run, whose games the "
                               f"same seeds no longer give ({RUN_FORMAT} plays with another "
                               "generator): it loads and reports as it is, but cannot be "
                               "resumed or topped up; use another --out", source=str(self.out))
            mine = self.config.identity()
            identity = {k: v for k, v in identity.items() if k != "games"}  # older manifests
            diff = [k for k in sorted(set(mine) | set(identity)) if mine.get(k) != identity.get(k)]
            if diff:
                details = "; ".join(f"{k}: folder has {identity.get(k)!r}, asked {mine.get(k)!r}"
                                    for k in diff[:3])
                raise RunError(f"this folder holds a run with a different configuration "
                               f"({details}); use another --out", source=str(self.out))
            held = old.get("games")
            if isinstance(held, int) and held > self.config.games:
                raise RunError(f"this folder holds {held} games of this configuration, more "
                               f"than the {self.config.games} asked; ask for {held} or more "
                               "(more tops the run up), or use another --out",
                               source=str(self.out))
        elif self.out.exists() and any(p.name != LOCK_NAME for p in self.out.iterdir()):
            raise RunError("folder is not empty and holds no run manifest; use an empty or new "
                           "folder", source=str(self.out))

    def _clean_temporaries(self) -> None:
        for table in (*TABLES, CHECKSUMS):
            folder = self.out / table
            if folder.exists():
                for tmp in folder.glob(".*.tmp-*"):
                    tmp.unlink(missing_ok=True)

    def finished_shards(self, notes: list[str] | None = None) -> set[int]:
        """Shards recorded as finished whose files all match their checksums and hold their
        whole range of games. A shard that is missing, damaged (a file whose checksum does
        not match) or shorter than its range (the last shard of a shorter run of this
        configuration, before a top-up) is not finished: it is played again whole, its
        games keeping their seeds. What was found wrong is appended to `notes`. A file of
        another run is refused, not overwritten."""
        done = set()
        c = self.config
        for shard in self._shards_on_disk():
            paths = [shard_path(self.out, t, shard) for t in self.tables]
            for t, p in zip(self.tables, paths, strict=True):
                if t != "records" and p.exists():
                    check_shard(p, c.run_id, t, -1, damaged_ok=True)
            problem = verify_shard(self.out, shard, self.tables, c.run_id)
            if problem is not None:
                if notes is not None and "never finished" not in problem:
                    notes.append(problem)
                continue
            sums = json.loads(checksum_path(self.out, shard).read_text())
            if sums.get("games") == len(c.shard_range(shard)):
                done.add(shard)
        return done

    def _shards_on_disk(self) -> list[int]:
        """The shards of this run that have any file in the folder, found by listing each
        table's folder once (a huge run's plan is never walked shard by shard)."""
        found: set[int] = set()
        for folder in (*self.tables, CHECKSUMS):
            try:
                names = [e.name for e in os.scandir(self.out / folder)]
            except (FileNotFoundError, NotADirectoryError):
                continue
            for name in names:
                stem = name.split(".", 1)[0]
                if stem.startswith("part-") and stem[5:].isdigit():
                    found.add(int(stem[5:]))
        return sorted(s for s in found if s < self.config.n_shards)

    def _write_shard(self, result: dict[str, Any]) -> None:
        """Every table file, then the shard's checksum file: only that marks it finished."""
        shard = result["shard"]
        files = {}
        for table in self.tables:
            atomic_write(shard_path(self.out, table, shard), result[table])
            files[table] = file_entry(result[table], result["rows"].get(table, -1))
        write_checksums(self.out, shard, self.config.run_id, result["n"], files)

    def compile_notice(self, engine: str = "auto") -> str | None:
        """The line to show before `execute` when it will first compile its game's code (the
        game's `compile_notice`, `sim.run.game_runs`): games are left to play, on compiled
        code not in this machine's cache yet. None otherwise, and for a folder `execute`
        refuses (it says why)."""
        c = self.config
        notice = compile_notice(c.game, c.agents, engine, c.board)
        if notice is None:
            return None
        try:
            if len(self.finished_shards()) == self.config.n_shards:
                return None
        except PortobelloError:
            return None
        return notice

    # Execution -----------------------------------------------------------------------------
    def parts(self, shards: list[int], workers: int) -> int:
        """Pieces per shard, so that a run of few, dear shards (a search-level cell) still
        gives every worker tasks: about four tasks per worker in all, never a piece of
        less than one game; 1 (whole shards) on one worker, or with shards enough. The
        files do not depend on it (`sim.run.shard.assemble_shard`)."""
        if not shards or workers == 1 or len(shards) >= 4 * workers:
            return 1
        shortest = min(len(self.config.shard_range(s)) for s in shards)
        return max(1, min(shortest, -(-4 * workers // len(shards))))


    def execute(self, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                quiet: bool = False, progress: Callable[[int], None] | None = None,
                engine: str = "auto", pool: Pool | None = None, bar: Any = None,
                scheduler_timeout: float | None = None) -> dict[str, Any]:
        """Play every missing shard; returns the manifest's timings. `engine` picks the
        compiled batches or games played decision by decision, as the game offers
        (`sim.run.game_runs.engine_name`); the tables are the same. The shards go to `pool`
        (a command's open `sim.run.execution.Pool`) or to one opened for this call from
        `jobs`, `backend`, `scheduler` and `scheduler_timeout`; `bar` is a command's own
        progress bar, counted in games, else the run shows its own."""
        used = engine_name(self.config.game, self.config.agents, engine, self.config.board)
        execution = pool.execution if pool is not None else \
            Execution(jobs, backend, scheduler, scheduler_timeout)
        self.out.mkdir(parents=True, exist_ok=True)
        with run_lock(self.out):  # first: a second writer must learn of the first one
            self._check_folder()
            for table in (*self.tables, CHECKSUMS):
                (self.out / table).mkdir(exist_ok=True)
            self._clean_temporaries()
            notes: list[str] = []
            done = self.finished_shards(notes)
            for note in notes:
                print(f"portobello: {note}; playing its shard again", file=sys.stderr)
            todo = [s for s in range(self.config.n_shards) if s not in done]
            cost = self.cost_so_far()
            if not (self.out / "manifest.json").exists() or todo:
                write_json_atomic(self.out / "manifest.json", self.manifest("running", cost=cost))
            already = sum(len(self.config.shard_range(s)) for s in done)
            start = time.perf_counter()
            played = decisions = 0
            own_bar = bar is None
            try:
                payload = self.config.payload() | {"engine": engine}
                with pool_for(pool, execution if todo else Execution()) as workers:
                    if own_bar:
                        bar = progress_bar(self.config.games, already, quiet,
                                           workers=workers.workers)
                    parts = self.parts(todo, workers.workers)
                    tasks = [(payload, s, k, parts) for s in todo for k in range(parts)]
                    pieces: dict[int, dict[int, dict[str, Any]]] = {}
                    for _, result in workers.unordered(play_part, tasks):
                        shard = result["shard"]
                        played += result["n"]
                        decisions += result["decisions"]
                        bar.update(result["n"])
                        if progress:
                            progress(result["n"])
                        if parts > 1:  # a piece: the shard is written once it is whole
                            pieces.setdefault(shard, {})[result["part"]] = result
                            if len(pieces[shard]) < parts:
                                continue
                            got = pieces.pop(shard)
                            result = assemble_shard(self.config, shard,
                                                    [got[k] for k in range(parts)])
                        self._write_shard(result)
                        raise_if_interrupted()  # a Ctrl-C that a lazy import dropped
            finally:
                if own_bar and bar is not None:
                    bar.close()
            seconds = time.perf_counter() - start
            timings = {
                "seconds": round(seconds, 3),
                "games_played": played,
                "games_resumed": already,
                "games_per_second": round(played / seconds, 2) if played and seconds else None,
                "decisions": decisions,
                "jobs": execution.jobs,
                "backend": execution.label(),
                "engine": used,
                "shards_repaired": len(notes),
            }
            if played:
                cost = {"seconds": round(cost["seconds"] + seconds, 3),
                        "games_played": cost["games_played"] + played,
                        "jobs": sorted({*cost["jobs"], execution.jobs})}
            write_json_atomic(self.out / "manifest.json",
                              self.manifest("complete", timings, cost))
            return timings

    def finish(self, timings: Mapping[str, Any]) -> None:
        """Rewrite the manifest of a run every shard of which is finished, with this run's
        `extra` blocks and `timings`: for a driver that plays a run in rounds (several
        `execute` calls) and knows only after the last one why it stopped and what the
        whole command cost. A folder `execute` would refuse is refused alike."""
        with run_lock(self.out):
            self._check_folder()
            missing = self.config.n_shards - len(self.finished_shards())
            if missing:
                raise RunError(f"{missing} shard(s) of this run are not finished; run the "
                               "same command again", source=str(self.out))
            write_json_atomic(self.out / "manifest.json",
                              self.manifest("complete", dict(timings)))
