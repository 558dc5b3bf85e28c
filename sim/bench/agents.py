"""Games and decisions per second between agents on one core.

On the compiled engine (every agent has a compiled version, `engine` auto or compiled) the
games are played in one batch with seats rotating as in a run, and the first game, which
loads or compiles the code, is timed apart. Otherwise (`engine` python, or an agent without
a compiled version) the games are played decision by decision through `Game`, each agent
wrapped in `TimedAgent`, so the result also gives each agent's own decisions per second
(decisions over the seconds spent inside its `choose`, engine time excluded); those games are
played without validating the actions, as the agents' own speed is the point.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sim.core.errors import PortobelloError
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of every game an agents bench plays: `derive_seed(seed, i)`."""
    return [derive_seed(seed, i) for i in range(games)]


def rotated_lineups(specs: Sequence[str], games: int) -> list[list[str]]:
    """Seats of game i on the compiled engine: the specs rotated by i, as in a run."""
    n = len(specs)
    return [[specs[(s + i) % n] for s in range(n)] for i in range(games)]


def bench_agents(board: Board, rules: Rules, specs: Sequence[str], games: int, seed: int = 0,
                 engine: str = "auto") -> dict[str, Any]:
    """`games` games of `specs` (one per seat) on one core; the figures of
    `portobello bench agents --json`."""
    from sim.games.portobello.engines import supports

    if engine != "python":
        if supports(specs):
            return _bench_compiled(board, rules, list(specs), games, seed)
        if engine == "compiled":
            raise PortobelloError(f"no compiled version of {', '.join(specs)} (compiled: "
                                  "random, greedy, heuristic, restricted or not)",
                                  field="--engine")
    return _bench_stepwise(board, rules, list(specs), games, seed)


def _bench_stepwise(board: Board, rules: Rules, specs: list[str], games: int,
                    seed: int) -> dict[str, Any]:
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.agents.timing import TimedAgent
    from sim.games.portobello.loop import play_game

    agents = [TimedAgent(make_agent(s, seed=seat)) for seat, s in enumerate(specs)]
    decisions = played = 0
    seeds = game_seeds(seed, games)
    start = time.perf_counter()
    for game_seed in seeds:
        _, d = play_game(board, rules, agents, game_seed, keep_log=False, validate=False)
        decisions += d
        played += 1
    seconds = time.perf_counter() - start
    per_agent: dict[str, dict[str, float]] = {}
    for agent in agents:
        entry = per_agent.setdefault(agent.spec, {"decisions": 0, "seconds": 0.0,
                                                  "slowest": 0.0})
        entry["decisions"] += agent.decisions
        entry["seconds"] += agent.seconds
        entry["slowest"] = max(entry["slowest"], agent.slowest)
    return _rates(specs, rules, "python", played, decisions, seconds) | {
        "per_agent": {
            spec: {"decisions": int(e["decisions"]), "seconds": round(e["seconds"], 4),
                   "decisions_per_second": round(e["decisions"] / e["seconds"], 1)
                   if e["seconds"] > 0 else None,
                   "slowest_decision_ms": round(1000 * e["slowest"], 2)}
            for spec, e in per_agent.items()},
    }


def _bench_compiled(board: Board, rules: Rules, specs: list[str], games: int,
                    seed: int) -> dict[str, Any]:
    from sim.games.portobello.engines import CompiledEngine

    fast = CompiledEngine(board, rules, specs)
    lineups = rotated_lineups(specs, games)
    seeds = game_seeds(seed, games)
    start = time.perf_counter()
    fast.play(seeds[:1], lineups[:1])  # loads (or compiles) the compiled code
    warm = time.perf_counter() - start
    start = time.perf_counter()
    res = fast.play(seeds, lineups)
    seconds = time.perf_counter() - start
    decisions = int(res.decisions.sum())
    played = len(res.decisions)
    return _rates(specs, rules, "compiled", played, decisions, seconds) | {
        "first_game_seconds": round(warm, 3)}


def _rates(specs: list[str], rules: Rules, engine: str, played: int, decisions: int,
           seconds: float) -> dict[str, Any]:
    """The fields both engines' agent benches report: what was played and how fast."""
    return {"agents": specs, "players": rules.players, "games": played, "engine": engine,
            "seconds": round(seconds, 4), "games_per_second": round(played / seconds, 2),
            "decisions": decisions, "decisions_per_second": round(decisions / seconds, 1)}
