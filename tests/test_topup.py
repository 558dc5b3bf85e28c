"""Topping a run up: asking an existing run folder for more games adds the missing ones.

Game i has the same seed and seats whatever the number of games, so a run of N games is
the first N games of a longer run; the folder's last, shorter shard is played again whole.
The result must equal a run made with the larger count from the start, file for file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli import main
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.runner import Run
from sim.run.runner import RunConfig
from sim.run.runner import RunError

BOARD = load_board("standard")


def conf(games: int, **kw: object) -> RunConfig:
    return RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=3),
                     agents=("heuristic", "greedy", "random"), games=games, seed=8,
                     shard_size=70, **kw)  # type: ignore[arg-type]


def tables(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*.*")
            if p.is_file() and p.name != "manifest.json"}


def test_a_topped_up_run_equals_a_run_of_the_larger_count(tmp_path: Path) -> None:
    grown, direct = tmp_path / "grown", tmp_path / "direct"
    Run(conf(300, events=True, records=True), grown).execute(quiet=True)
    timings = Run(conf(600, events=True, records=True), grown).execute(quiet=True)
    Run(conf(600, events=True, records=True), direct).execute(quiet=True)
    assert tables(grown) == tables(direct)
    # Shards 0-3 (280 games) were kept; shard 4 (games 280-299) was played again whole.
    assert timings["games_resumed"] == 280 and timings["games_played"] == 320
    manifest = json.loads((grown / "manifest.json").read_text())
    assert manifest["games"] == 600 and manifest["status"] == "complete"


def test_fewer_games_or_another_configuration_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r"
    Run(conf(140), out).execute(quiet=True)
    before = tables(out)
    with pytest.raises(RunError, match="holds 140 games of this configuration"):
        Run(conf(100), out).execute(quiet=True)
    other = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=3),
                      agents=("heuristic", "greedy", "random"), games=200, seed=9,
                      shard_size=70)
    with pytest.raises(RunError, match=r"different configuration.*seed"):
        Run(other, out).execute(quiet=True)
    assert tables(out) == before


def test_simulate_tops_up_from_the_command_line(tmp_path: Path) -> None:
    out, direct = tmp_path / "out", tmp_path / "direct"
    args = ["simulate", "--players", "2", "--agents", "greedy", "--seed", "3", "--quiet",
            "--shard-size", "50"]
    assert main([*args, "--games", "120", "--out", str(out)]) == 0
    assert main([*args, "--games", "260", "--out", str(out)]) == 0
    assert main([*args, "--games", "260", "--out", str(direct)]) == 0
    assert tables(out) == tables(direct)
