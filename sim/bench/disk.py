"""Bytes on disk per game for each table of a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.bench.common import TARGET_BYTES_PER_GAME
from sim.bench.common import BenchError


def open_run(path: str | Path) -> Any:
    """The complete run at `path` (`analysis.load.Run`), its games, players, events and
    records shards checked one by one; a bad folder raises the loader's error."""
    from analysis.load import load_run

    run = load_run(path)  # LoadError (a PortobelloError) names the folder and the problem
    for table in run.manifest.get("tables", []):
        if table != "records":
            run.lazy(table)  # checks every shard's metadata and owner
    return run


def disk_usage(run_dir: str | Path) -> dict[str, Any]:
    """Bytes on disk per table of a complete run (all its shard files), and per game; the
    games are counted from the games shards' Parquet metadata."""
    import pyarrow.parquet as pq

    path = Path(run_dir)
    run = open_run(path)
    tables = list(run.manifest.get("tables", []))
    shards = sorted((path / "games").glob("part-*.parquet"))
    games = sum(pq.read_metadata(f).num_rows for f in shards)
    if games < 1:
        raise BenchError("run has no games", source=str(path))
    out_tables: dict[str, dict[str, Any]] = {}
    for table in tables:
        files = sorted(f for f in (path / table).glob("part-*") if f.is_file())
        size = sum(f.stat().st_size for f in files)
        out_tables[table] = {"files": len(files), "bytes": size,
                             "bytes_per_game": round(size / games, 2)}
    both = sum(out_tables[t]["bytes"] for t in ("games", "players") if t in out_tables)
    every = sum(t["bytes"] for t in out_tables.values())
    return {
        "run": str(path),
        "run_id": run.manifest.get("run_id"),
        "agents": run.manifest.get("agents"),
        "players": run.manifest.get("rules", {}).get("players"),
        "games": games,
        "shards": len(shards),
        "tables": out_tables,
        "games_players_bytes": both,
        "games_players_bytes_per_game": round(both / games, 2),
        "all_tables_bytes_per_game": round(every / games, 2),
        "manifest_bytes": (path / "manifest.json").stat().st_size,
        "target_bytes_per_game": TARGET_BYTES_PER_GAME,
        "within_target": both / games <= TARGET_BYTES_PER_GAME,
    }
