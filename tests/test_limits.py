"""Boards at the limits of what loads: every accepted board plays identically on both
engines, or the engine that cannot play it is refused with its limit named.

The big board is a strip of 254 triangular districts (the encoding allows 255): 256 squares
in two rows, 509 lanes, each district bordered by three lanes; the compiled engine's action
lists are sized from the board, so nothing is written past their end (before, a board of a
few hundred lanes and more ways to start a turn than 1,024 crashed the compiled random
agent with a segmentation fault).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from differential import engines_agree

from sim.core.errors import BoardError
from sim.games.portobello.board import Board
from sim.games.portobello.board import board_from_dict
from sim.games.portobello.engines import EngineError
from sim.games.portobello.engines import engine_name
from sim.games.portobello.engines import select_engine
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed


def strip_board(quads: int, spots: int = 2) -> dict[str, Any]:
    """Two rows of squares T0..Tm and U0..Um; quad i split by the diagonal T(i)-U(i+1)."""
    m = quads
    squares = [f"T{i}" for i in range(m + 1)] + [f"U{i}" for i in range(m + 1)]
    lanes: list[dict[str, Any]] = []

    def lane(a: str, b: str) -> str:
        lid = f"{a}-{b}"
        values = [1 + (len(lanes) + k) % 3 for k in range(spots)]
        lanes.append({"id": lid, "ends": [a, b], "spots": values})
        return lid

    top = [lane(f"T{i}", f"T{i + 1}") for i in range(m)]
    bottom = [lane(f"U{i}", f"U{i + 1}") for i in range(m)]
    vertical = [lane(f"T{i}", f"U{i}") for i in range(m + 1)]
    diagonal = [lane(f"T{i}", f"U{i + 1}") for i in range(m)]
    districts = []
    for i in range(m):
        districts.append({"id": f"A{i}", "lanes": [top[i], vertical[i + 1], diagonal[i]]})
        districts.append({"id": f"B{i}", "lanes": [bottom[i], vertical[i], diagonal[i]]})
    return {"name": f"strip-{m}", "description": "a strip of triangles", "squares": squares,
            "lanes": lanes, "districts": districts}


def rules_for(board: Board, players: int, tokens: tuple[int, ...] = (2, 3, 4)) -> Rules:
    bag = board.n_squares - 1
    return Rules(players=players, player_tokens=tokens, district_tokens=tokens[::2],
                 customers=(("citizen", bag // 2), ("aristocrat", bag - bag // 2)))


@pytest.fixture(scope="module")
def big() -> Board:
    board = board_from_dict(strip_board(127), source="<strip>")
    assert (board.n_districts, board.n_lanes, board.n_squares) == (254, 509, 256)
    return board


@pytest.mark.parametrize("players", [2, 4])
def test_the_biggest_boards_play_alike_on_both_engines(big: Board, players: int) -> None:
    """Nine own tokens, five of them district tokens, 254 districts: a turn can start in
    over 1,270 ways (the compiled engine used to write them into 1,024 slots, and crashed)."""
    rules = rules_for(big, players, tokens=(1, 2, 3, 4, 5, 6, 7, 8, 9))
    lineup = ["random", "no-bobby(random)", "random:move_chance=0.9,max_moves=6",
              "first-end(random)"][:players]
    seeds = [derive_seed("limits", players, i) for i in range(3)]
    res = engines_agree(big, rules, [lineup] * 3, seeds)
    assert (res.end_code > 0).all()


def test_the_planners_play_the_big_board_alike(big: Board) -> None:
    rules = rules_for(big, 2)
    engines_agree(big, rules, [["greedy", "random"]], [derive_seed("limits", "greedy")])


def test_a_lane_longer_than_the_compiled_planner_handles(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    board = board_from_dict(strip_board(2, spots=45), source="<long lanes>")
    rules = rules_for(board, 2)
    assert engine_name(["random"], "compiled", board) == "compiled"
    assert engine_name(["greedy"], "auto", board) == "python"
    with pytest.raises(EngineError, match="lanes of up to 44 spots; board strip-2 has one "
                                          "of 45"):
        engine_name(["greedy"], "compiled", board)
    assert select_engine(board, rules, ["greedy", "random"]).name == "python"
    engines_agree(board, rules, [["random", "random"]], [5])


def test_more_districts_than_the_encoding_holds_are_refused() -> None:
    with pytest.raises(BoardError, match="256 districts, more than the 255 a board may have"):
        board_from_dict(strip_board(128), source="<too big>")


def test_large_scores_are_stored_as_played(tmp_path: Path) -> None:
    """A start score of 40,000 used to wrap to negative numbers in the 16-bit score column."""
    from analysis.load import load_run
    from sim.games.portobello.board import load_board
    from sim.run.runner import Run
    from sim.run.runner import RunConfig

    rules = Rules(players=3, start_score=40_000, multipliers=(
        ("citizen-citizen", 900), ("citizen-aristocrat", 900), ("aristocrat-aristocrat", 900),
        ("citizen-baron", 900), ("aristocrat-baron", 900)))
    conf = RunConfig(board=load_board("standard"), board_ref="standard", rules=rules,
                     agents=("random",) * 3, games=30, seed=2)
    Run(conf, tmp_path / "r").execute(quiet=True)
    players = load_run(tmp_path / "r").players().collect()
    assert players["score"].min() >= 40_000 - 200  # a few Bobby fees at most
    assert players["score"].max() > 70_000 and players["lane_points"].max() > 32_767


def test_a_dask_cluster_without_workers_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    from sim.games.portobello.board import load_board
    from sim.run import execution as backends
    from sim.run.config import RunError
    from sim.run.runner import Run
    from sim.run.runner import RunConfig

    monkeypatch.setattr(backends, "WORKER_WAIT", 2.0)
    conf = RunConfig(board=load_board("standard"), board_ref="standard", rules=Rules(),
                     agents=("random", "random"), games=10, seed=2)
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as cluster, \
            pytest.raises(RunError, match="no Dask worker joined"):
        Run(conf, tmp_path / "r").execute(quiet=True, scheduler=cluster.scheduler_address)


def test_a_dask_scheduler_lost_mid_run_is_one_clear_error_and_resumes(tmp_path: Path) -> None:
    """The cluster goes away after the first shards: the run stops with one line naming the
    scheduler and keeps what was finished; the same run then finishes with every game."""
    import threading
    import time

    from dask.distributed import LocalCluster

    from analysis.load import load_run
    from sim.games.portobello.board import load_board
    from sim.run import store
    from sim.run.config import RunError
    from sim.run.runner import Run
    from sim.run.runner import RunConfig

    conf = RunConfig(board=load_board("standard"), board_ref="standard", rules=Rules(),
                     agents=("greedy", "random"), games=400, seed=4, shard_size=10)
    out = tmp_path / "r"
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                           dashboard_address=None)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            Run(conf, out).execute(quiet=True, scheduler=cluster.scheduler_address,
                                   engine="python")
        except BaseException as exc:  # the test reads it below
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.time() + 120
    while time.time() < deadline and len(list((out / store.CHECKSUMS).glob("*.json"))) < 2:
        time.sleep(0.05)
    cluster.close()
    worker.join(120)
    assert not worker.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], RunError), errors
    assert "lost the Dask scheduler" in str(errors[0]) or "no Dask worker" in str(errors[0])
    kept = len(list((out / store.CHECKSUMS).glob("*.json")))
    assert 2 <= kept < 40
    Run(conf, out).execute(quiet=True)
    assert load_run(out).games().collect().height == 400
