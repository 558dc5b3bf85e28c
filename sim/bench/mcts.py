"""Playouts (search iterations) per second of an MCTS agent on one core, over decision
points of real (heuristic) games. The first search, which loads or compiles the code, is
timed apart; a decision with a single option is not searched and counts no playouts."""

from __future__ import annotations

import time
from typing import Any

from sim.bench.common import BenchError
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules


def mcts_positions(board: Board, rules: Rules, count: int, seed: int) -> list[Any]:
    """`count` decision points of heuristic games (every 23rd action from the 11th, past
    the setup), spread over whole games; copies of the games at those points."""
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.codes import SETUP
    from sim.games.portobello.game import Game
    from sim.games.portobello.loop import play_game
    from sim.run.loop import derive_seed

    out: list[Any] = []
    g = 0
    while len(out) < count:
        seed_g = derive_seed(seed, "bench-mcts", g)
        game, _ = play_game(board, rules, [make_agent("heuristic") for _ in
                                           range(rules.players)], seed_g)
        assert game.log is not None
        replay = Game(board, rules, seed=seed_g)
        for i, action in enumerate(game.log):
            if i % 23 == 11 and replay.phase != SETUP and len(out) < count:
                out.append(replay.copy(keep_log=True))
            replay.apply(action)
        g += 1
    return out


def bench_mcts(board: Board, rules: Rules, spec: str, positions: int,
               seed: int = 0) -> dict[str, Any]:
    """The search agent `spec` on `positions` positions (`mcts_positions`), reseeded with
    the position's index before each; the figures of `portobello bench mcts --json`."""
    from sim.games.portobello.agents.registry import make_agent

    agent = make_agent(spec)
    if not hasattr(agent, "last_iterations"):
        raise BenchError(f"{spec} is not a search agent (mcts, fastmcts, openspiel-mcts or "
                         f"openspiel-ismcts)")
    games = mcts_positions(board, rules, positions, seed)
    start = time.perf_counter()
    agent.reseed(0)
    agent.choose(games[0])
    warm = time.perf_counter() - start
    iterations, seconds, slowest = 0, 0.0, 0.0
    for i, game in enumerate(games):
        agent.reseed(i)
        start = time.perf_counter()
        agent.choose(game)
        took = time.perf_counter() - start
        seconds += took
        slowest = max(slowest, took)
        iterations += agent.last_iterations
    return {"agent": spec, "players": rules.players, "positions": len(games),
            "playouts": iterations, "seconds": round(seconds, 4),
            "playouts_per_second": round(iterations / seconds, 1) if seconds else None,
            "mean_playouts_per_decision": round(iterations / len(games), 1),
            "slowest_decision_ms": round(1000 * slowest, 2),
            "first_decision_seconds": round(warm, 3)}
