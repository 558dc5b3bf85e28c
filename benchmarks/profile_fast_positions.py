"""What pricing one position costs the compiled heuristic, part by part: `python
benchmarks/profile_fast_positions.py [PLAYERS] [GAMES]` (defaults 3 and 500), one core.

The positions are those of the heuristic's own games (the seeds of `portobello
simulate`): every actions-phase position with actions left, and every turn's start. Each
part is then timed on its own over all of them, on a position already evaluated (so a
part's cost is its own, not its inputs'), and the fastest of five passes is given:

- `evaluate`: the whole position (`sim.games.portobello.agents.compiled.evaluate.state`);
- `Bobby paths`: the cheapest paths to every district (`plan_bobby.paths`);
- `stall options`: every stall the seat can reach, priced (`plan_options.stall_options`);
- `draw`: a customer draw's expected value (`plan_options.draw_value`);
- at a turn's start, `plan`: the turn played out for the largest token
  (`plan_turn.plan_values`), and `district scorings` (`plan_options.district_options`).

A breakdown for finding what to speed up; `portobello bench simulate` is the rate.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from profile_fast_heuristic import _now
from profile_fast_heuristic import heuristic_games
from profile_fast_heuristic import new_game

from sim.games.portobello.agents.compiled import play as FP
from sim.games.portobello.agents.compiled.evaluate import state
from sim.games.portobello.agents.compiled.plan_bobby import paths
from sim.games.portobello.agents.compiled.plan_options import district_options
from sim.games.portobello.agents.compiled.plan_options import draw_value
from sim.games.portobello.agents.compiled.plan_options import stall_options
from sim.games.portobello.agents.compiled.plan_options import token_actions
from sim.games.portobello.agents.compiled.plan_turn import plan_values
from sim.games.portobello.agents.compiled.plan_work import new_work
from sim.games.portobello.agents.compiled.plan_work import plan_size
from sim.games.portobello.agents.compiled.plan_work import uncounted_level
from sim.games.portobello.agents.compiled.plan_work import xf_plan
from sim.games.portobello.agents.compiled.plan_work import xi_tokens
from sim.games.portobello.agents.compiled.planner import choose_planner
from sim.games.portobello.agents.compiled.planner import memory_size
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.engine import sample_chance
from sim.games.portobello.compiled.layout import ACTION_ROOM
from sim.games.portobello.compiled.layout import ACTIONS_LEFT
from sim.games.portobello.compiled.layout import CUSTOMERS_LEFT
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import S_STALLS_LEFT
from sim.games.portobello.compiled.layout import SEAT

ACTION_PARTS = ("evaluate", "Bobby paths", "stall options", "draw")
START_PARTS = ("plan", "district scorings")


@njit(cache=False)
def _collect(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
             params: np.ndarray, restrict: np.ndarray, actions: np.ndarray,
             starts: np.ndarray) -> tuple[int, int]:
    """The heuristic's games (as `sim.games.portobello.agents.compiled.play`): its actions positions
    with actions left
    into `actions`, its turn starts into `starts`, as many as fit; returns both counts."""
    n = B[N_PLAYERS]
    memory = np.zeros((n, max(FP.N_MEMORY, memory_size(B[N_DISTRICTS]))), np.int64)
    WF, WI = new_work(B)
    gens = np.zeros((n + 1, 2), np.uint64)
    S = np.zeros(B[S_SIZE], np.int64)
    buf = np.zeros(B[ACTION_ROOM], np.int64)
    no_log = np.zeros(0, np.int64)
    na = ns = 0
    for g in range(game_seeds.shape[0]):
        new_game(B, g, game_seeds, seat_seeds, gens, S, memory)
        chance = gens[n]
        while S[PHASE] != OVER:
            if S[PHASE] == CHANCE:
                apply(B, S, sample_chance(S, chance), no_log)
                continue
            if S[PHASE] == ACTIONS and S[ACTIONS_LEFT] > 0 and na < actions.shape[0]:
                actions[na, :] = S
                na += 1
            elif S[PHASE] == TURN_START and ns < starts.shape[0]:
                starts[ns, :] = S
                ns += 1
            seat = S[SEAT]
            action = choose_planner(B, S, gens[seat], params, restrict, memory[seat],
                                    buf, WF, WI)
            apply(B, S, action, no_log)
    return na, ns


@njit(cache=False, _nrt=False)
def _time_action_part(B: np.ndarray, X: np.ndarray, params: np.ndarray,
                      restrict: np.ndarray, WF: np.ndarray, WI: np.ndarray, ts: np.ndarray,
                      part: int) -> tuple[int, int]:
    """Nanoseconds of one part over the positions X, and the options the stalls gave."""
    L = uncounted_level(B, WF, WI, 0)
    total = 0
    options = 0
    for i in range(X.shape[0]):
        S = X[i]
        seat = S[SEAT]
        state(B, S, params, L[0], L[1])
        if part == 2:
            paths(B, S, params, restrict, seat, L[2], L[3])
        t0 = _now(ts)
        if part == 0:
            state(B, S, params, L[0], L[1])
        elif part == 1:
            paths(B, S, params, restrict, seat, L[2], L[3])
        elif part == 2:
            if S[B[S_STALLS_LEFT] + seat] > 0:
                options += stall_options(B, S, params, restrict, seat, L, 0)
        elif S[CUSTOMERS_LEFT] > 0:
            draw_value(B, S, params, seat, L)
        total += _now(ts) - t0
    return total, options


@njit(cache=False, _nrt=False)
def _time_start_part(B: np.ndarray, X: np.ndarray, params: np.ndarray,
                     restrict: np.ndarray, WF: np.ndarray, WI: np.ndarray, ts: np.ndarray,
                     rng: np.ndarray, part: int) -> int:
    """Nanoseconds of one turn-start part over the positions X."""
    L0 = uncounted_level(B, WF, WI, 0)
    L1 = uncounted_level(B, WF, WI, 1)
    total = 0
    for i in range(X.shape[0]):
        S = X[i]
        seat = S[SEAT]
        state(B, S, params, L0[0], L0[1])
        m = token_actions(B, S, seat, L0[7])
        t0 = _now(ts)
        if part == 0:
            if m:
                tv = xi_tokens(B)
                top = L0[7][tv]
                for j in range(1, m):
                    top = max(top, L0[7][tv + j])
                p0 = xf_plan(B)
                plan_values(B, S, params, restrict, seat, top, L1,
                            L0[6][p0:p0 + plan_size(B)], rng, L0[0], L0[1])
        else:
            district_options(B, S, params, seat, L0, 0)
        total += _now(ts) - t0
    return total


def main() -> None:
    players, games, fast, _, gs, ps = heuristic_games(500)
    params, restrict = fast.params[0], fast.restrict[0]
    B = fast.B
    actions = np.zeros((games * 80, B[S_SIZE]), np.int64)
    starts = np.zeros((games * 40, B[S_SIZE]), np.int64)
    na, ns = _collect(B, gs, ps, params, restrict, actions, starts)
    actions, starts = actions[:na].copy(), starts[:ns].copy()
    WF, WI = new_work(B)
    ts = np.zeros(2, np.int64)
    rng = np.zeros(2, np.uint64)  # a plan takes the first of tied options: no draws
    print(f"{games:,} heuristic games, {players} players, one core: {na:,} actions "
          f"positions, {ns:,} turn starts (the fastest of 5 passes per part)")
    print(f"  {'part':20} {'per position':>12}")
    for part, name in enumerate(ACTION_PARTS):
        _time_action_part(B, actions[:5], params, restrict, WF, WI, ts, part)
        runs = [_time_action_part(B, actions, params, restrict, WF, WI, ts, part)
                for _ in range(5)]
        best = min(r[0] for r in runs)
        extra = f"  ({runs[0][1] / na:.1f} options a position)" if part == 2 else ""
        print(f"  {name:20} {best / na / 1e3:9.2f} us{extra}")
    for part, name in enumerate(START_PARTS):
        _time_start_part(B, starts[:5], params, restrict, WF, WI, ts, rng, part)
        best = min(_time_start_part(B, starts, params, restrict, WF, WI, ts, rng, part)
                   for _ in range(5))
        print(f"  {name:20} {best / ns / 1e3:9.2f} us  (a turn start)")


if __name__ == "__main__":
    main()
