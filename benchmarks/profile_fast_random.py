"""Where the compiled random game spends its time: `python benchmarks/profile_fast_random.py
[PLAYERS] [GAMES]` (defaults 3 and 50,000), on one core.

Each part is timed on its own over the same games (compiled code loaded first; the
fastest of three runs of each):

- `prep`: `CompiledEngine.prepare`, the work before the compiled batch (the seats' seeds,
  the line-up table);
- `seeding`: starting the n + 1 generators of every game (`seed_game`);
- `new game`: allocating and filling a game's state array;
- `apply`: replaying every game's actions through `apply` (no agents, no generator);
- `agent + rest`: the whole batch minus the parts above: the random agent's choices (its
  legal actions, filtering, draws), chance draws and the results rows;
- `of which lists`: the engine's lists the random agent chooses from, once at every
  decision point of those games (in the actions phase the stalls and draw and the Bobby
  moves, `stall_and_draw_actions` and `bobby_moves`; otherwise `legal_actions`): the part
  of the agent's time the engine's legal-action generation takes (an upper bound: the
  agent lists the moves only while it may still move).

The figures are a breakdown, not a benchmark target: `portobello bench yardstick` is the
rate against plain C.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from sim.bench.agents import game_seeds
from sim.core import rng as R
from sim.games.portobello.agents.compiled import play as FP
from sim.games.portobello.board import load_board
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import OVER
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.engine import bobby_moves
from sim.games.portobello.compiled.engine import legal_actions
from sim.games.portobello.compiled.engine import new_game
from sim.games.portobello.compiled.engine import stall_and_draw_actions
from sim.games.portobello.compiled.layout import ACTION_ROOM
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.rules import Rules


@njit(cache=False)
def _seeding(game_seeds: np.ndarray, seat_seeds: np.ndarray) -> int:
    """Start every game's n + 1 generators as the compiled batch does (`seed_game`)."""
    n = seat_seeds.shape[1]
    gens = np.zeros((n + 1, 2), np.uint64)
    total = 0
    for g in range(game_seeds.shape[0]):
        FP.seed_game(gens, game_seeds[g], seat_seeds[g])
        total += gens[0, 0] & 1
    return total


@njit(cache=False)
def _new_games(B: np.ndarray, count: int) -> int:
    chance = np.zeros(2, np.uint64)
    R.start(chance, np.uint64(1), R.CHANCE_STREAM)
    total = 0
    for _ in range(count):
        S = new_game(B, chance)
        total += S[0]
    return total


@njit(cache=False)
def _replay(B: np.ndarray, logs: np.ndarray, lengths: np.ndarray, legal: bool) -> int:
    chance = np.zeros(2, np.uint64)
    R.start(chance, np.uint64(1), R.CHANCE_STREAM)
    buf = np.zeros(B[ACTION_ROOM], np.int64)
    no_log = np.zeros(0, np.int64)
    total = 0
    for g in range(logs.shape[0]):
        S = new_game(B, chance)
        for i in range(lengths[g]):
            phase = S[PHASE]
            if legal and phase == ACTIONS:  # the random agent's two lists
                total += stall_and_draw_actions(B, S, buf, 0) + bobby_moves(B, S, buf, 0)
            elif legal and phase != CHANCE and phase != OVER:
                total += legal_actions(B, S, buf)
            apply(B, S, logs[g, i], no_log)
    return total


def _timed(fn, *args) -> float:
    """Seconds of the fastest of three calls (the function is compiled by an earlier call):
    the machine is shared, and the fastest run is the one least disturbed."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def breakdown(players: int, games: int) -> dict[str, float]:
    """Seconds of every part (see the module docstring), `whole` and `actions_per_game`."""
    board, rules = load_board("standard"), Rules(players=players)
    specs = ["random"] * players
    fast = CompiledEngine(board, rules, specs)
    seeds = game_seeds(0, games)
    fast.play(seeds[:1], [specs])
    fast.prepare(seeds[:2], [specs] * 2)
    lineups = [specs] * games
    prep = _timed(fast.prepare, seeds, lineups)
    gs, per_seat, _ = fast.prepare(seeds, lineups)
    whole = _timed(fast.play, seeds, lineups)
    res = fast.play(seeds, [specs] * games, keep_log=True)
    width = max(len(x) for x in res.logs)
    logs = np.zeros((games, width), np.int64)
    lengths = np.array([len(x) for x in res.logs], np.int64)
    for i, x in enumerate(res.logs):
        logs[i, :len(x)] = x
    # Compile every part on two games first.
    _seeding(gs[:2], per_seat[:2])
    _new_games(fast.B, 2)
    _replay(fast.B, logs[:2], lengths[:2], False)
    _replay(fast.B, logs[:2], lengths[:2], True)
    parts = {
        "prep": prep,
        "seeding": _timed(_seeding, gs, per_seat),
        "new game": _timed(_new_games, fast.B, games),
    }
    replay = _timed(_replay, fast.B, logs, lengths, False)
    parts["apply"] = replay - parts["new game"]
    parts["agent + rest"] = whole - sum(parts.values())
    parts["of which lists"] = _timed(_replay, fast.B, logs, lengths, True) - replay
    return {"whole": whole, "actions_per_game": float(lengths.mean()), **parts}


def main() -> None:
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
    parts = breakdown(players, games)
    whole = parts.pop("whole")
    print(f"{games:,} random games, {players} players, one core: {whole:.2f} s, "
          f"{games / whole:,.0f} games/s, {parts.pop('actions_per_game'):.0f} actions "
          f"per game")
    for name, seconds in parts.items():
        print(f"  {name:15} {seconds:6.2f} s  {100 * seconds / whole:5.1f}%  "
              f"{1e6 * seconds / games:6.2f} us/game")


if __name__ == "__main__":
    main()
