"""Run folders to polars LazyFrames or pandas DataFrames, with the run's manifest attached.

A folder that is not a run, or a damaged or foreign shard, is refused with a clear message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow.parquet as pq

from sim.engine.board import Board, board_from_dict
from sim.engine.errors import PortobelloError
from sim.engine.rules import Rules, rules_from_dict

RUN_FORMAT = "portobello-run/1"


class LoadError(PortobelloError):
    """A folder that is not a readable run."""


@dataclass
class RunData:
    """One run (or several with the same board): lazy tables and their manifests."""

    paths: list[Path]
    manifests: list[dict[str, Any]]
    _frames: dict[str, pl.LazyFrame] = field(default_factory=dict)

    @property
    def manifest(self) -> dict[str, Any]:
        """The first run's manifest (the one a single run has)."""
        return self.manifests[0]

    def lazy(self, table: str) -> pl.LazyFrame:
        """A polars LazyFrame over a table (`games`, `players`, `events`)."""
        if table not in self._frames:
            frames = []
            for path, manifest in zip(self.paths, self.manifests, strict=True):
                files = _table_files(path, table, manifest)
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

    def board(self) -> Board:
        """The board the run was played on, rebuilt from the manifest's full content."""
        b = self.manifest["board"]
        return board_from_dict(b["content"], source=str(b.get("ref", b.get("name"))))

    def rules(self) -> Rules:
        """The run's rules configuration (every switch), from the manifest."""
        return rules_from_dict(self.manifest["rules"], source=str(self.paths[0]))


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
    if not isinstance(manifest, dict) or manifest.get("format") != RUN_FORMAT:
        raise LoadError(f"manifest.json is not a {RUN_FORMAT} manifest", source=str(mpath))
    return manifest


def _table_files(path: Path, table: str, manifest: dict[str, Any]) -> list[Path]:
    """A table's shard files, each checked to be readable and to belong to this run."""
    if table not in manifest.get("tables", []):
        raise LoadError(f"this run has no {table} table (tables: "
                        f"{', '.join(manifest.get('tables', []))})", source=str(path))
    files = sorted((path / table).glob("part-*.parquet"))
    if not files:
        raise LoadError(f"no {table} shards", source=str(path / table))
    for f in files:
        try:
            meta = pq.read_metadata(f)
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise LoadError(f"shard is damaged ({exc})", source=str(f)) from None
        owner = (meta.metadata or {}).get(b"portobello_run_id", b"").decode()
        if owner != manifest["run_id"]:
            raise LoadError(f"shard belongs to another run ({owner or 'not a portobello shard'})"
                            f", not {manifest['run_id']}", source=str(f))
    return files


def load_run(path: str | Path) -> RunData:
    """Open one run folder."""
    return load_runs([path])


def load_runs(paths: Sequence[str | Path], same_board: bool = True) -> RunData:
    """Open several run folders as one (refused when their boards differ)."""
    ps = [Path(p) for p in paths]
    if not ps:
        raise LoadError("no run folders given")
    manifests = [_read_manifest(p) for p in ps]
    for p, m in zip(ps, manifests, strict=True):
        if m.get("status") != "complete":
            raise LoadError(f"run is not complete (status {m.get('status')!r}); run the same "
                            "simulate command again to finish it", source=str(p))
    if same_board:
        hashes = {m["board"]["hash"] for m in manifests}
        if len(hashes) > 1:
            names = ", ".join(f"{p}: {m['board']['name']} ({m['board']['hash']})"
                              for p, m in zip(ps, manifests, strict=True))
            raise LoadError(f"runs are on different boards ({names})")
    return RunData(paths=ps, manifests=manifests)
