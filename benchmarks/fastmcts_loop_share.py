"""What share of a `fastmcts` game is the search's own compiled code, and what share is the
Python game loop around it (`sim.games.portobello.loop.play_game` through `Game`, the
position handed to the search, the plan's bookkeeping): the most a compiled game loop for
search line-ups could save.

    .venv/bin/python benchmarks/fastmcts_loop_share.py PLAYERS GAMES ITERATIONS

Plays GAMES games with `fastmcts:iterations=ITERATIONS` in every seat (after one warm-up
game that loads the compiled code) and times every call into
`sim.games.portobello.agents.compiled.mcts`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from sim.games.portobello.agents.compiled import mcts as M
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import preset

SEARCH_CALLS = ("iterate", "begin", "follow", "resume", "best", "after")
spent = [0.0]


def timed(f: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        t = time.perf_counter()
        try:
            return f(*args)
        finally:
            spent[0] += time.perf_counter() - t
    return call


def main(players: int, games: int, iterations: int) -> None:
    for name in SEARCH_CALLS:
        setattr(M, name, timed(getattr(M, name)))
    board = load_board("standard")
    rules = preset("standard", players=players)
    agents = [make_agent(f"fastmcts:iterations={iterations}") for _ in range(players)]
    play_game(board, rules, agents, 999)  # warm-up: loads the compiled code
    spent[0] = 0.0
    start, decisions = time.perf_counter(), 0
    for i in range(games):
        decisions += play_game(board, rules, agents, 1000 + i)[1]
    total = time.perf_counter() - start
    rest = total - spent[0]
    print(f"{players} players, {games} games, {decisions} decisions: {total:.2f} s, "
          f"search {spent[0]:.2f} s ({100 * spent[0] / total:.1f}%), loop and bookkeeping "
          f"{rest:.2f} s ({100 * rest / total:.1f}%, {1e6 * rest / decisions:.0f} us per "
          "decision)")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
