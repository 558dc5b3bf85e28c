"""Where a game to view comes from, whatever the game: a record file, or one game of a run
kept with `--records` (docs/run-format.md). This module finds the record (and checks what
is asked: a run folder needs a game id, a record file takes none); the game's view facet
(`analysis.view.viewer`) replays it and draws its page.

A run's game is replayed on the material the run was played on (the manifest keeps its
full content), not on whatever file its reference names today.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.load import read_manifest
from sim.core.errors import PortobelloError
from sim.core.files import parse_json
from sim.run.store import shard_path
from sim.run.store import verify_shard


class ViewError(PortobelloError):
    """A game that cannot be viewed (no such game in the run, a run without records)."""


@dataclass(frozen=True)
class RunRecord:
    """One game's record from a run folder: the record (its `game_id` taken out), the run
    folder, its manifest and its material (`board`: reference and full content), where the
    record came from (for messages) and the page's title."""

    record: dict[str, Any]
    folder: Path
    manifest: dict[str, Any]
    material: dict[str, Any]
    source: str
    label: str


def _find_record(path: Path, game_id: int) -> dict[str, Any]:
    """The record of game `game_id` in the run's records shard (checked whole first)."""
    for line_no, line in enumerate(_shard_lines(path), start=1):
        if not line.strip():
            continue
        try:
            record = parse_json(line)
        except (ValueError, RecursionError):
            raise ViewError(f"line {line_no} is not valid JSON", source=str(path)) from None
        if isinstance(record, dict) and record.get("game_id") == game_id:
            record.pop("game_id")
            return record
    raise ViewError(f"game {game_id} is not in this records shard", source=str(path))


def _shard_lines(path: Path) -> list[str]:
    try:
        return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    except FileNotFoundError:
        raise ViewError("no such records shard", source=str(path)) from None
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise ViewError(f"cannot read the records shard ({exc})", source=str(path)) from None


def run_record(run_dir: str | Path, game_id: int) -> RunRecord:
    """Game `game_id`'s record in a run folder written with `--records` (its shard checked
    whole first)."""
    out = Path(run_dir)
    manifest = read_manifest(out)
    mpath = str(out / "manifest.json")
    try:
        tables = [str(t) for t in manifest["tables"]]
        run_id, games = str(manifest["run_id"]), int(manifest["games"])
        shard_size = int(manifest["shard_size"])
        material = manifest["board"]
        material["content"]  # checked here: the material the game is replayed on
    except (KeyError, TypeError, ValueError):
        raise ViewError("manifest.json lacks tables, run_id, games, shard_size or board",
                        source=mpath) from None
    if "records" not in tables:
        raise ViewError("this run kept no records (run simulate with --records to view its "
                        "games)", source=str(out))
    if not 0 <= game_id < games:
        raise ViewError(f"no game {game_id} in this run (its games are 0 to {games - 1})",
                        source=str(out), field="--game")
    shard = game_id // shard_size
    problem = verify_shard(out, shard, tables, run_id)
    if problem is not None:
        raise ViewError(f"the shard of game {game_id} cannot be used: {problem}",
                        source=str(out))
    path = shard_path(out, "records", shard)
    record = _find_record(path, game_id)
    return RunRecord(record=record, folder=out, manifest=manifest, material=material,
                     source=f"{path} game {game_id}", label=f"{out.name} game {game_id}")


def check_target(target: str | Path, game_id: int | None) -> Path:
    """A record file, or with `game_id` a run folder: a folder without `game_id` or a file
    with one is refused with what to give instead."""
    p = Path(target)
    if p.is_dir():
        if game_id is None:
            raise ViewError("is a run folder: name the game with --game ID", source=str(p))
        return p
    if game_id is not None:
        if not p.exists():
            raise ViewError("no such record file or run folder", source=str(p))
        raise ViewError(f"--game {game_id} is for a run folder; this is a record file "
                        "(leave --game out)", source=str(p))
    return p
