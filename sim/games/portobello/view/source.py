"""Where a Portobello Market game to view comes from: a record file, or one game of a run
kept with `--records` (docs/run-format.md). Either way the result is the record and a fresh
engine game set up as it says, ready to be replayed step by step.

A run's game is replayed on the board the run was played on (the manifest keeps its full
content, `analysis.view.source.run_record`), not on whatever file its board reference names
today; the board file's drawing layout is put back when it holds the same board.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.view.source import RunRecord
from analysis.view.source import ViewError
from analysis.view.source import check_target
from analysis.view.source import run_record
from sim.core.errors import PortobelloError
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.game import Game
from sim.games.portobello.records import check_record_shape
from sim.games.portobello.records import game_for_record
from sim.games.portobello.records import game_on_board
from sim.games.portobello.records import load_record
from sim.games.portobello.view.draw import with_layout_of


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


def from_run_record(run: RunRecord) -> GameSource:
    """The game of one record of a run, on the run's own board (with the drawing layout of
    the board file it names, when that file holds the same board)."""
    check_record_shape(run.record, run.source)
    mpath = str(run.folder / "manifest.json")
    try:
        board = board_from_dict(run.material["content"], source=mpath)
    except PortobelloError as exc:
        raise ViewError(f"the board in manifest.json is not valid: {exc.reason}",
                        source=mpath, field="board") from None
    info = run.material
    board = with_layout_of(board, info.get("ref") if isinstance(info, dict) else None)
    return GameSource(record=run.record, label=run.label,
                      game=game_on_board(run.record, board, run.source))


def from_run(run_dir: str | Path, game_id: int) -> GameSource:
    """Game `game_id` of a run folder written with `--records`."""
    return from_run_record(run_record(run_dir, game_id))


def game_source(target: str | Path, game_id: int | None) -> GameSource:
    """A record file, or with `game_id` a run folder's game; a folder without `game_id` or
    a file with one is refused with what to give instead."""
    p = check_target(target, game_id)
    return from_run(p, game_id) if game_id is not None else from_record_file(p)
