"""Whole games in compiled code: many games per call, one row of results per game.

`play_batch` is `sim.play.play_game` for a batch of seeds: the same game generator, the same
per-seat agent generators (seeded by the caller from `derive_seed`), the same agents.
Agents are given as a small table (kind, parameters, restrictions) and each game says which
table row plays each seat, so rotating seats and mixed line-ups cost nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.fast import rng as R
from sim.fast.engine import CHANCE, OVER, apply, new_game, sample_chance
from sim.fast.layout import (
    BSQ,
    ENDR,
    LOG_OVERFLOW,
    LOGN,
    PHASE,
    ROUND,
    S_SCORES,
    S_STALLS,
    S_STATS,
    SEAT,
    TURN,
    N,
)
from sim.fast.random_agent import M_TURN, choose_random

KIND_RANDOM, KIND_GREEDY, KIND_HEURISTIC = 0, 1, 2
N_PARAMS = 16
N_MEMORY = 8
BUF = 1024

# Columns of a result row: then scores[n], stalls_left[n], stats[n * 8].
R_END, R_ROUNDS, R_TURNS, R_BARON_SQ, R_DECISIONS, R_LOG_LEN, R_OVERFLOW = range(7)
R_HEAD = 7


def result_width(n: int) -> int:
    return R_HEAD + n * 10


@njit(cache=True)
def choose(kind: int, B: np.ndarray, S: np.ndarray, rng: np.ndarray, params: np.ndarray,
           restrict: np.ndarray, memory: np.ndarray, buf: np.ndarray,
           buf2: np.ndarray) -> int:
    """The action of an agent of `kind` for the seat to move."""
    return choose_random(B, S, rng, params, restrict, memory, buf, buf2)


@njit(cache=True)
def play_batch(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
               seat_agent: np.ndarray, agent_kind: np.ndarray, agent_params: np.ndarray,
               agent_restrict: np.ndarray, log_cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Play `len(game_seeds)` games; returns (results, logs): one result row per game (see
    the R_* columns) and, when `log_cap` > 0, each game's record actions (first
    `results[g, R_LOG_LEN]` entries of `logs[g]`)."""
    n = B[N]
    g_count = game_seeds.shape[0]
    results = np.zeros((g_count, R_HEAD + n * 10), np.int64)
    logs = np.zeros((g_count if log_cap > 0 else 0, max(log_cap, 0)), np.int64)
    no_log = np.zeros(0, np.int64)
    chance = np.zeros(625, np.uint32)
    rngs = np.zeros((n, 625), np.uint32)
    memory = np.zeros((n, N_MEMORY), np.int64)
    buf = np.zeros(BUF, np.int64)
    buf2 = np.zeros(BUF, np.int64)
    for g in range(g_count):
        R.seed(chance, game_seeds[g])
        S = new_game(B, chance)
        for seat in range(n):
            R.seed(rngs[seat], seat_seeds[g, seat])
            memory[seat, :] = 0
            memory[seat, M_TURN] = -1
        log = logs[g] if log_cap > 0 else no_log
        decisions = 0
        while S[PHASE] != OVER:
            if S[PHASE] == CHANCE:
                apply(B, S, sample_chance(S, chance), log)
                continue
            seat = S[SEAT]
            a = seat_agent[g, seat]
            action = choose(agent_kind[a], B, S, rngs[seat], agent_params[a],
                            agent_restrict[a], memory[seat], buf, buf2)
            apply(B, S, action, log)
            decisions += 1
        row = results[g]
        row[R_END] = S[ENDR]
        row[R_ROUNDS] = S[ROUND]
        row[R_TURNS] = S[TURN]
        row[R_BARON_SQ] = S[BSQ]
        row[R_DECISIONS] = decisions
        row[R_LOG_LEN] = S[LOGN]
        row[R_OVERFLOW] = S[LOG_OVERFLOW]
        for p in range(n):
            row[R_HEAD + p] = S[B[S_SCORES] + p]
            row[R_HEAD + n + p] = S[B[S_STALLS] + p]
            for k in range(8):
                row[R_HEAD + 2 * n + p * 8 + k] = S[B[S_STATS] + p * 8 + k]
    return results, logs


def planner_row(agent: object) -> tuple[int, np.ndarray] | None:
    """(kind, parameters) of a greedy or heuristic agent's compiled twin, or None."""
    return None
