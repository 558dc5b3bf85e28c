"""Run folders to polars LazyFrames or pandas DataFrames, with the run's manifest attached.

What is on disk is checked against the run: every shard the manifest counts must be there,
every file must match the checksum recorded when it was written. A folder that is not a
run, an unfinished run, or a missing, damaged or foreign shard is refused with a message
naming the file and what to do, unless a partial run is asked for (`allow_partial`): then
only the whole shards are read and `games_held` says how many games they hold.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl

from sim.core.errors import PortobelloError
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.run.store import READABLE_FORMATS
from sim.run.store import shard_path
from sim.run.store import verify_shard


class LoadError(PortobelloError):
    """A folder that is not a readable run."""


@dataclass
class RunData:
    """One run (or several with the same board): lazy tables and their manifests."""

    paths: list[Path]
    manifests: list[dict[str, Any]]
    shards: list[list[int]] = field(default_factory=list)  # the whole shards of each run
    problems: list[str] = field(default_factory=list)  # what was missing or damaged
    _frames: dict[str, pl.LazyFrame] = field(default_factory=dict)

    @property
    def games_expected(self) -> int:
        return sum(int(m.get("games", 0)) for m in self.manifests)

    @property
    def games_held(self) -> int:
        """Games in the shards read (all of them unless a partial run was allowed)."""
        total = 0
        for manifest, shards in zip(self.manifests, self.shards, strict=True):
            size, games = int(manifest["shard_size"]), int(manifest["games"])
            total += sum(min(size, games - s * size) for s in shards)
        return total

    @property
    def partial(self) -> bool:
        return self.games_held < self.games_expected

    @property
    def manifest(self) -> dict[str, Any]:
        """The first run's manifest (the one a single run has)."""
        return self.manifests[0]

    def lazy(self, table: str) -> pl.LazyFrame:
        """A polars LazyFrame over a table (`games`, `players`, `events`)."""
        if table not in self._frames:
            frames = []
            for path, manifest, shards in zip(self.paths, self.manifests, self.shards,
                                              strict=True):
                files = _table_files(path, table, manifest, shards)
                lf = pl.scan_parquet([str(f) for f in files])
                if table != "games" and len(self.paths) > 1:
                    lf = lf.with_columns(pl.lit(manifest["run_id"]).alias("run_id"))
                frames.append(lf)
            self._frames[table] = pl.concat(frames, how="vertical_relaxed") \
                if len(frames) > 1 else frames[0]
        return self._frames[table]

    def games(self) -> pl.LazyFrame:
        """One row per game."""
        return self.lazy("games")

    def players(self) -> pl.LazyFrame:
        """One row per game and seat."""
        return self.lazy("players")

    def events(self) -> pl.LazyFrame:
        """One row per scoring, placement or draw (runs written with events)."""
        return self.lazy("events")

    def pandas(self, table: str) -> pd.DataFrame:
        """A table as a pandas DataFrame (categorical strings kept as categories)."""
        return self.lazy(table).collect().to_pandas()

    @property
    def game(self) -> str:
        """The game the run played (`sim.games.registry`): the default game unless it says
        (runs of the default game name none)."""
        return str(self.manifest.get("game", default_game()))

    def board(self) -> Any:
        """The board the run was played on (its game's material: River Market's card set),
        rebuilt from the manifest's full content."""
        b = self.manifest["board"]
        return kind(self.game).material_from_dict(b["content"],
                                                  str(b.get("ref", b.get("name"))))

    def rules(self) -> Any:
        """The run's rules configuration (every switch, its game's rules), from the
        manifest."""
        return kind(self.game).rules_from_dict(self.manifest["rules"],
                                               source=str(self.paths[0]))


def _read_manifest(path: Path) -> dict[str, Any]:
    """A run folder's manifest, refused with the reason when the folder is not a run."""
    if not path.exists():
        raise LoadError("no such folder", source=str(path))
    if not path.is_dir():
        raise LoadError("not a run folder (a run is a folder with manifest.json)",
                        source=str(path))
    mpath = path / "manifest.json"
    if not mpath.exists():
        raise LoadError("not a run folder: no manifest.json", source=str(path))
    try:
        manifest = json.loads(mpath.read_text())
    except json.JSONDecodeError as exc:
        raise LoadError(f"manifest.json is not valid JSON: {exc}", source=str(mpath)) from None
    if not isinstance(manifest, dict) or manifest.get("format") not in READABLE_FORMATS:
        raise LoadError(f"manifest.json is not a portobello run manifest (format "
                        f"{' or '.join(READABLE_FORMATS)})", source=str(mpath))
    return manifest


def read_manifest(path: str | Path) -> dict[str, Any]:
    """A run folder's manifest, without reading its tables (refused, with the reason, when
    the folder is not a run)."""
    return _read_manifest(Path(path))


def _table_files(path: Path, table: str, manifest: dict[str, Any],
                 shards: Sequence[int]) -> list[Path]:
    """A table's files of the whole shards. Each was checked when the run was opened
    (`_whole_shards`): its bytes match the checksum its shard recorded for this run, so
    it is readable and this run's without opening it again."""
    if table not in manifest.get("tables", []):
        raise LoadError(f"this run has no {table} table (tables: "
                        f"{', '.join(manifest.get('tables', []))})", source=str(path))
    files = [shard_path(path, table, s) for s in shards]
    if not files:
        raise LoadError(f"no {table} shards", source=str(path / table))
    return files


def _whole_shards(path: Path, manifest: dict[str, Any],
                  allow_partial: bool) -> tuple[list[int], list[str]]:
    """The shards whose files all match their checksums, and what is wrong with the rest."""
    try:
        count, run_id = int(manifest["shards"]), str(manifest["run_id"])
        tables = [str(t) for t in manifest["tables"]]
    except (KeyError, TypeError, ValueError):
        raise LoadError("manifest.json lacks shards, run_id or tables",
                        source=str(path / "manifest.json")) from None
    good, problems = [], []
    for shard in range(count):
        problem = verify_shard(path, shard, tables, run_id)
        if problem is None:
            good.append(shard)
        else:
            problems.append(problem)
    if problems and not allow_partial:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LoadError(f"{len(problems)} of {count} shards are missing or damaged: "
                        f"{problems[0]}{more}; run the same simulate command again to play "
                        "them again, or read the run as partial (report --allow-partial)",
                        source=str(path))
    return good, problems


def load_run(path: str | Path, allow_partial: bool = False) -> RunData:
    """Open one run folder."""
    return load_runs([path], allow_partial=allow_partial)


def load_runs(paths: Sequence[str | Path], same_board: bool = True,
              allow_partial: bool = False) -> RunData:
    """Open several run folders as one (refused when their boards differ). With
    `allow_partial`, unfinished runs and runs with missing or damaged shards are read from
    their whole shards only (`RunData.partial`, `games_held`, `problems` say so)."""
    ps = [Path(p) for p in paths]
    if not ps:
        raise LoadError("no run folders given")
    manifests = [_read_manifest(p) for p in ps]
    for p, m in zip(ps, manifests, strict=True):
        if m.get("status") != "complete" and not allow_partial:
            raise LoadError(f"run is not complete (status {m.get('status')!r}); run the same "
                            "simulate command again to finish it", source=str(p))
    if same_board:
        hashes = {m["board"]["hash"] for m in manifests}
        if len(hashes) > 1:
            names = ", ".join(f"{p}: {m['board']['name']} ({m['board']['hash']})"
                              for p, m in zip(ps, manifests, strict=True))
            raise LoadError(f"runs are on different boards ({names})")
    shards, problems = [], []
    for p, m in zip(ps, manifests, strict=True):
        good, bad = _whole_shards(p, m, allow_partial)
        shards.append(good)
        problems.extend(bad)
    return RunData(paths=ps, manifests=manifests, shards=shards, problems=problems)
