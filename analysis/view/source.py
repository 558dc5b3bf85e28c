"""Where a game to view comes from: a record file, or one game of a run kept with
`--records` (docs/run-format.md). Either way the result is the record and a fresh engine
game set up as it says, ready to be replayed step by step.

A run's game is replayed on the board the run was played on (the manifest keeps its full
content), not on whatever file its board reference names today.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.draw import with_layout_of
from analysis.load import read_manifest
from sim.core.errors import PortobelloError
from sim.core.files import parse_json
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.game import Game
from sim.games.portobello.records import check_record_shape
from sim.games.portobello.records import game_for_record
from sim.games.portobello.records import game_on_board
from sim.games.portobello.records import load_record
from sim.run.store import shard_path
from sim.run.store import verify_shard


class ViewError(PortobelloError):
    """A game that cannot be viewed (no such game in the run, a run without records)."""


@dataclass
class GameSource:
    """A record to view, where it came from (for the page's title) and its fresh game."""

    record: dict[str, Any]
    label: str
    game: Game


def from_record_file(path: str | Path) -> GameSource:
    """The game of a record file (its board resolved beside the file, as `replay` does)."""
    p = Path(path)
    record = load_record(p)
    game = game_for_record(record, base_dir=p.resolve().parent, source=str(p))
    return GameSource(record=record, label=p.name, game=game)


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


def from_run(run_dir: str | Path, game_id: int) -> GameSource:
    """Game `game_id` of a run folder written with `--records`."""
    out = Path(run_dir)
    manifest = read_manifest(out)
    mpath = str(out / "manifest.json")
    try:
        tables = [str(t) for t in manifest["tables"]]
        run_id, games = str(manifest["run_id"]), int(manifest["games"])
        shard_size = int(manifest["shard_size"])
        board_info = manifest["board"]
        content = board_info["content"]
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
    source = f"{path} game {game_id}"
    check_record_shape(record, source)
    try:
        board = board_from_dict(content, source=mpath)
    except PortobelloError as exc:
        raise ViewError(f"the board in manifest.json is not valid: {exc.reason}",
                        source=mpath, field="board") from None
    board = with_layout_of(board, board_info.get("ref") if isinstance(board_info, dict)
                           else None)
    label = f"{out.name} game {game_id}"
    return GameSource(record=record, label=label, game=game_on_board(record, board, source))


def game_source(target: str | Path, game_id: int | None) -> GameSource:
    """A record file, or with `game_id` a run folder's game; a folder without `game_id` or
    a file with one is refused with what to give instead."""
    p = Path(target)
    if p.is_dir():
        if game_id is None:
            raise ViewError("is a run folder: name the game with --game ID", source=str(p))
        return from_run(p, game_id)
    if game_id is not None:
        if not p.exists():
            raise ViewError("no such record file or run folder", source=str(p))
        raise ViewError(f"--game {game_id} is for a run folder; this is a record file "
                        "(leave --game out)", source=str(p))
    return from_record_file(p)
