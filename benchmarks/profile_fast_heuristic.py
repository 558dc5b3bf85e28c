"""Where a compiled heuristic game spends its time: `python
benchmarks/profile_fast_heuristic.py [PLAYERS] [GAMES]` (defaults 3 and 2,000), one core.

The games of `sim.games.portobello.agents.compiled.play` are played again by a copy of its loop that
reads the monotonic clock around every part, so each decision's cost goes to the kind of decision it
was:

- `queued`: the next Bobby move of an option chosen earlier (only checked to be legal);
- `turn start`: the plan of a turn (each token play priced by playing the turn out);
- `actions (planned)` / `place (planned)`: a position the turn's plan has seen, decided
  from its slot;
- `actions (fresh)` / `place (fresh)`: a position it has not, priced from scratch;
- `end of turn`: an actions-phase position without actions left, which the plan never
  reaches (only ending the turn, perhaps after a last Bobby move, is priced);
- `apply`, `chance`, `seeding`: the engine's part.

The choices are the very ones of `portobello simulate` (the same seeds and agents; the
scores are checked against `play_batch`). Reading the clock costs a few tens of
nanoseconds a part; the figures are a breakdown, not a benchmark target: `portobello
bench simulate` is the rate.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import time

import numpy as np
from numba import njit

from sim.bench.agents import game_seeds
from sim.games.portobello.agents.compiled import play as FP
from sim.games.portobello.agents.compiled.plan_turn import find_slot
from sim.games.portobello.agents.compiled.plan_work import new_work
from sim.games.portobello.agents.compiled.plan_work import uncounted_level
from sim.games.portobello.agents.compiled.planner import M_ACTED
from sim.games.portobello.agents.compiled.planner import M_QLEN
from sim.games.portobello.agents.compiled.planner import M_QPOS
from sim.games.portobello.agents.compiled.planner import M_QTURN
from sim.games.portobello.agents.compiled.planner import choose_planner
from sim.games.portobello.agents.compiled.planner import memory_size
from sim.games.portobello.board import load_board
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.engine import sample_chance
from sim.games.portobello.compiled.engine import start_game
from sim.games.portobello.compiled.layout import ACTION_ROOM
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import S_SCORES
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TURN
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.rules import Rules

PARTS = ("queued", "turn start", "actions (planned)", "actions (fresh)", "end of turn",
         "place (planned)", "place (fresh)", "apply", "chance", "seeding")
_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_clock_gettime = _libc.clock_gettime
_clock_gettime.argtypes = (ctypes.c_int, ctypes.c_void_p)
_clock_gettime.restype = ctypes.c_int
_MONOTONIC = 1  # CLOCK_MONOTONIC on Linux


@njit(cache=False, _nrt=False)
def _now(ts: np.ndarray) -> int:
    """Nanoseconds of the monotonic clock (libc's `clock_gettime` into `ts`)."""
    _clock_gettime(_MONOTONIC, ts.ctypes.data)
    return ts[0] * 1_000_000_000 + ts[1]


@njit(cache=False, _nrt=False)
def new_game(B: np.ndarray, g: int, game_seeds: np.ndarray, seat_seeds: np.ndarray,
             gens: np.ndarray, S: np.ndarray, memory: np.ndarray) -> None:
    """Game g of the batch started as `sim.games.portobello.agents.compiled.play` starts it (its
    generators started, seat p's in row p and the chance one in row n, the state filled, the
    planners' memory cleared)."""
    n = B[N_PLAYERS]
    FP.seed_game(gens, game_seeds[g], seat_seeds[g])
    start_game(B, S, gens[n])
    for seat in range(n):
        memory[seat, :] = 0
        memory[seat, M_QTURN] = -1
        memory[seat, M_ACTED] = -1


@njit(cache=False)
def _profiled(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
              params: np.ndarray, restrict: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """Every game of one planner in every seat; (nanoseconds per part, decisions per part,
    final scores)."""
    n = B[N_PLAYERS]
    memory = np.zeros((n, max(FP.N_MEMORY, memory_size(B[N_DISTRICTS]))), np.int64)
    WF, WI = new_work(B)
    nanos = np.zeros(len(PARTS), np.int64)
    counts = np.zeros(len(PARTS), np.int64)
    scores = np.zeros((game_seeds.shape[0], n), np.int64)
    _games(B, game_seeds, seat_seeds, params, restrict, np.zeros((n + 1, 2), np.uint64),
           memory, WF, WI, np.zeros(B[S_SIZE], np.int64), np.zeros(B[ACTION_ROOM], np.int64),
           np.zeros(0, np.int64), nanos, counts, scores, np.zeros(2, np.int64))
    return nanos, counts, scores


@njit(cache=False, _nrt=False)
def _games(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray, params: np.ndarray,
           restrict: np.ndarray, gens: np.ndarray, memory: np.ndarray,
           WF: np.ndarray, WI: np.ndarray, S: np.ndarray, buf: np.ndarray,
           no_log: np.ndarray, nanos: np.ndarray, counts: np.ndarray,
           scores: np.ndarray, ts: np.ndarray) -> None:
    """The games of `_profiled`, in its arrays (without reference counts, as in
    `sim.games.portobello.agents.compiled.play`: the planner's work space views are uncounted)."""
    n = B[N_PLAYERS]
    L1 = uncounted_level(B, WF, WI, 1)
    for g in range(game_seeds.shape[0]):
        t0 = _now(ts)
        new_game(B, g, game_seeds, seat_seeds, gens, S, memory)
        chance = gens[n]
        nanos[9] += _now(ts) - t0
        counts[9] += 1
        while S[PHASE] != OVER:
            phase = S[PHASE]
            if phase == CHANCE:
                t0 = _now(ts)
                apply(B, S, sample_chance(S, chance), no_log)
                nanos[8] += _now(ts) - t0
                counts[8] += 1
                continue
            seat = S[SEAT]
            mem = memory[seat]
            if mem[M_QLEN] > mem[M_QPOS] and mem[M_QTURN] == S[TURN] and phase == ACTIONS:
                part = 0
            elif phase == TURN_START:
                part = 1
            elif phase in (ACTIONS, PLACE):
                hit = find_slot(B, S, L1, phase) >= 0
                if phase == ACTIONS:
                    part = 2 if hit else (3 if S[ACTIONS_LEFT] > 0 else 4)
                else:
                    part = 5 if hit else 6
            else:
                part = 3  # the Bobby's placement: priced from scratch
            t0 = _now(ts)
            action = choose_planner(B, S, gens[seat], params, restrict, mem, buf, WF, WI)
            t1 = _now(ts)
            apply(B, S, action, no_log)
            nanos[7] += _now(ts) - t1
            counts[7] += 1
            nanos[part] += t1 - t0
            counts[part] += 1
        for p in range(n):
            scores[g, p] = S[B[S_SCORES] + p]


def heuristic_games(default_games: int) -> tuple[int, int, CompiledEngine, list[int],
                                                 np.ndarray, np.ndarray]:
    """The heuristic games the command line asks for (PLAYERS, GAMES; `portobello
    simulate`'s seeds on the standard board): (players, games, the engine, the seeds, the
    games' and the seats' generator seeds)."""
    players = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    games = int(sys.argv[2]) if len(sys.argv) > 2 else default_games
    specs = ["heuristic"] * players
    fast = CompiledEngine(load_board("standard"), Rules(players=players), specs)
    seeds = game_seeds(0, games)
    gs, ps, _ = fast.prepare(seeds, [specs] * games)
    return players, games, fast, seeds, gs, ps


def main() -> None:
    players, games, fast, seeds, gs, ps = heuristic_games(2_000)
    specs = ["heuristic"] * players
    params, restrict = fast.params[0], fast.restrict[0]
    _profiled(fast.B, gs[:2], ps[:2], params, restrict)  # compile
    start = time.perf_counter()
    nanos, counts, scores = _profiled(fast.B, gs, ps, params, restrict)
    seconds = time.perf_counter() - start
    expected = np.asarray(fast.play(seeds, [specs] * games).scores)
    if not np.array_equal(scores, expected):
        raise SystemExit("the profiled games differ from play_batch's")
    total = nanos.sum()
    print(f"{games:,} heuristic games, {players} players, one core: {seconds:.2f} s, "
          f"{games / seconds:,.0f} games/s (with the clock read)")
    print(f"  {'part':18} {'share':>6} {'calls/game':>11} {'us/call':>8}")
    for name, c, k in zip(PARTS, nanos, counts, strict=True):
        print(f"  {name:18} {100 * c / total:5.1f}% {k / games:11.1f} {c / max(k, 1) / 1e3:8.2f}")


if __name__ == "__main__":
    main()
