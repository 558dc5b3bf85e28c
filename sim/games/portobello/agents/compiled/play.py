"""Whole games in compiled code: many games per call, one row of results per game.

`play_batch` is `sim.games.portobello.loop.play_game` for a batch of seeds: the same chance
generator, the same per-seat agent generators (`sim.core.rng`), the same agents.
Agents are given as a small table (kind, parameters, restrictions) and each game says which
table row plays each seat, so rotating seats and mixed line-ups cost nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.core import rng as R
from sim.games.portobello.agents.compiled.expert import choose_expert
from sim.games.portobello.agents.compiled.expert import expert_work
from sim.games.portobello.agents.compiled.features import input_count
from sim.games.portobello.agents.compiled.network import ENTRY
from sim.games.portobello.agents.compiled.params import N_PARAMS as PLANNER_PARAMS
from sim.games.portobello.agents.compiled.plan_work import new_work
from sim.games.portobello.agents.compiled.planner import M_ACTED
from sim.games.portobello.agents.compiled.planner import M_QTURN
from sim.games.portobello.agents.compiled.planner import board_fits
from sim.games.portobello.agents.compiled.planner import choose_planner
from sim.games.portobello.agents.compiled.planner import memory_size
from sim.games.portobello.agents.compiled.random_agent import M_TURN
from sim.games.portobello.agents.compiled.random_agent import choose_random
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.codes import OVER
from sim.games.portobello.compiled import fields as F
from sim.games.portobello.compiled.engine import apply
from sim.games.portobello.compiled.engine import sample_chance
from sim.games.portobello.compiled.engine import start_game
from sim.games.portobello.compiled.layout import ACTION_ROOM
from sim.games.portobello.compiled.layout import BARON_SQUARE
from sim.games.portobello.compiled.layout import END_REASON
from sim.games.portobello.compiled.layout import LOG_LEN
from sim.games.portobello.compiled.layout import LOG_OVERFLOW
from sim.games.portobello.compiled.layout import N_DISTRICTS
from sim.games.portobello.compiled.layout import N_PLAYERS
from sim.games.portobello.compiled.layout import PHASE
from sim.games.portobello.compiled.layout import ROUND
from sim.games.portobello.compiled.layout import S_SIZE
from sim.games.portobello.compiled.layout import SEAT
from sim.games.portobello.compiled.layout import TURN

KIND_RANDOM, KIND_GREEDY, KIND_HEURISTIC, KIND_EXPERT = 0, 1, 2, 3
N_PARAMS = PLANNER_PARAMS  # 64: the planner's row (weights, switches, power tables)
N_MEMORY = 8  # per-seat memory slots, plus the planner's queue (see `play_batch`)

# Columns of a result row: then scores[n], stalls_left[n], stats[n * N_STATS].
R_END, R_ROUNDS, R_TURNS, R_BARON_SQ, R_DECISIONS, R_LOG_LEN, R_OVERFLOW = range(7)
R_HEAD = 7


@njit(cache=True, _nrt=False)
def seed_game(gens: np.ndarray, game_seed: int, seat_seeds: np.ndarray) -> None:
    """Start a game's generators: seat p's agent in row p (stream 0 of its seat's seed),
    the chance player in row n (the chance stream of the game's seed)."""
    n = seat_seeds.shape[0]
    for seat in range(n):
        R.start(gens[seat], np.uint64(seat_seeds[seat]), R.AGENT_STREAM)
    R.start(gens[n], np.uint64(game_seed), R.CHANCE_STREAM)


def play_batch(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
               seat_agent: np.ndarray, agent_kind: np.ndarray, agent_params: np.ndarray,
               agent_restrict: np.ndarray, log_cap: int,
               nets: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Play `len(game_seeds)` games; returns (results, logs): one result row per game (see
    the R_* columns) and, when `log_cap` > 0, each game's record actions (first
    `results[g, R_LOG_LEN]` entries of `logs[g]`). `nets` holds the networks of the table's
    learned agents (`sim.games.portobello.agents.compiled.expert.pack_networks`); without it the
    batch is compiled without them."""
    if (agent_kind != KIND_RANDOM).any() and not board_fits(B):
        raise ValueError("a lane is longer than the planner's power table (44 spots)")
    return _games(B, game_seeds, seat_seeds, seat_agent, agent_kind, agent_params,
                  agent_restrict, log_cap, *new_work(B), nets)


def play_batch_random(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
                      seat_agent: np.ndarray, agent_kind: np.ndarray, agent_params: np.ndarray,
                      agent_restrict: np.ndarray, log_cap: int) -> tuple[np.ndarray, np.ndarray]:
    """`play_batch` for line-ups of random agents only (every `agent_kind` KIND_RANDOM): the
    same games, compiled without the planner, so that a first run of random games compiles
    in a fraction of the time."""
    return _games(B, game_seeds, seat_seeds, seat_agent, agent_kind, agent_params,
                  agent_restrict, log_cap, None, None)


def _games(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
           seat_agent: np.ndarray, agent_kind: np.ndarray, agent_params: np.ndarray,
           agent_restrict: np.ndarray, log_cap: int, WF: np.ndarray | None,
           WI: np.ndarray | None,
           nets: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Everything a batch needs, allocated once, then its games in compiled code (`_play`,
    which allocates nothing and counts no references); no planner work space (WF and WI
    None) plays the version compiled without the planner, no networks (`nets` None) the
    version without the learned agent. This layer is Python because each compiled layer
    above the planner would compile the whole planner again (`sim.games.portobello.compiled`)."""
    n = int(B[N_PLAYERS])
    g_count = game_seeds.shape[0]
    results = np.zeros((g_count, R_HEAD + n * (2 + N_STATS)), np.int64)
    logs = np.zeros((g_count if log_cap > 0 else 0, max(log_cap, 0)), np.int64)
    gens = np.zeros((n + 1, R.WORDS), np.uint64)  # see `seed_game`
    memory = np.zeros((n, _memory_len(B)), np.int64)
    NW = NL = NO = EW = None
    if nets is not None and WF is not None and WI is not None:
        NW, NL, NO = nets
        inputs = int(input_count(B))
        widest = max([inputs, *(int(v) for v in NL[:, 1:][:, 1::ENTRY].ravel())])
        EW = expert_work(B, int(B[S_SIZE]), inputs, widest, WF, WI)
    _play(B, game_seeds, seat_seeds, seat_agent, agent_kind, agent_params, agent_restrict,
          results, logs, WF, WI, gens, memory, np.zeros(int(B[S_SIZE]), np.int64),
          np.zeros(int(B[ACTION_ROOM]), np.int64), np.zeros(int(B[ACTION_ROOM]), np.int64),
          np.zeros(0, np.int64), NW, NL, NO, EW)
    return results, logs


def _memory_len(B: np.ndarray) -> int:
    """Slots of one seat's memory: the random agent's and the planner's."""
    return max(N_MEMORY, int(memory_size(B[N_DISTRICTS])))


@njit(cache=True, _nrt=False)
def _play(B: np.ndarray, game_seeds: np.ndarray, seat_seeds: np.ndarray,
          seat_agent: np.ndarray, agent_kind: np.ndarray, agent_params: np.ndarray,
          agent_restrict: np.ndarray, results: np.ndarray, logs: np.ndarray,
          WF: np.ndarray | None, WI: np.ndarray | None, gens: np.ndarray, memory: np.ndarray,
          S: np.ndarray, buf: np.ndarray, buf2: np.ndarray, no_log: np.ndarray,
          NW: np.ndarray | None, NL: np.ndarray | None, NO: np.ndarray | None,
          EW: tuple | None) -> None:
    """The games of a batch, in the arrays `_games` made (one state `S`, reset per game);
    without a planner work space (`WF` None) every seat is a random agent; without
    networks (`NW` None) no seat is a learned agent (`pack_networks`, `expert_work`)."""
    n = B[N_PLAYERS]
    for g in range(game_seeds.shape[0]):
        seed_game(gens, game_seeds[g], seat_seeds[g])
        chance = gens[n]
        start_game(B, S, chance)
        for seat in range(n):
            memory[seat, :] = 0
            memory[seat, M_TURN] = -1  # the random agent's turn / the planner's queue turn
            memory[seat, M_QTURN] = -1
            memory[seat, M_ACTED] = -1
        log = logs[g] if logs.shape[0] else no_log
        decisions = 0
        while S[PHASE] != OVER:
            if S[PHASE] == CHANCE:
                apply(B, S, sample_chance(S, chance), log)
                continue
            seat = S[SEAT]
            a = seat_agent[g, seat]
            # `WF is None` stands alone so that numba prunes the planner out of a
            # random-only batch while compiling (it cannot prune an `or`).
            if WF is None:  # noqa: SIM114
                action = choose_random(B, S, gens[seat], agent_params[a], agent_restrict[a],
                                       memory[seat], buf, buf2)
            elif agent_kind[a] == KIND_RANDOM:
                action = choose_random(B, S, gens[seat], agent_params[a], agent_restrict[a],
                                       memory[seat], buf, buf2)
            else:
                action = -1
                # `NW is None` stands alone, as `WF is None` above, to be pruned when no
                # seat is a learned agent.
                if NW is not None:  # noqa: SIM102
                    if agent_kind[a] == KIND_EXPERT:
                        action = choose_expert(B, S, gens[seat], agent_params[a],
                                               agent_restrict[a], memory[seat], buf, WF, WI,
                                               NW, NL[a, 1:1 + NL[a, 0]], np.int64(NO[a, 0]),
                                               NO[a, 1], EW)
                if action < 0:
                    action = choose_planner(B, S, gens[seat], agent_params[a],
                                            agent_restrict[a], memory[seat], buf, WF, WI)
            apply(B, S, action, log)
            decisions += 1
        row = results[g]
        row[R_END] = S[END_REASON]
        row[R_ROUNDS] = S[ROUND]
        row[R_TURNS] = S[TURN]
        row[R_BARON_SQ] = S[BARON_SQUARE]
        row[R_DECISIONS] = decisions
        row[R_LOG_LEN] = S[LOG_LEN]
        row[R_OVERFLOW] = S[LOG_OVERFLOW]
        for p in range(n):
            row[R_HEAD + p] = F.score(B, S, p)
            row[R_HEAD + n + p] = F.stalls_left(B, S, p)
            for k in range(N_STATS):
                row[R_HEAD + 2 * n + p * N_STATS + k] = F.stat(B, S, p, k)


def random_params(move_chance: float, max_moves: int) -> tuple[float, ...]:
    """The parameter row of the compiled random agent."""
    row = [0.0] * N_PARAMS
    row[0], row[1] = float(move_chance), float(max_moves)
    return tuple(row)


@njit(cache=True, _nrt=False)
def decide_random(B: np.ndarray, S: np.ndarray, rng: np.ndarray, params: np.ndarray,
                  restrict: np.ndarray, memory: np.ndarray, buf: np.ndarray,
                  buf2: np.ndarray) -> int:
    """One decision of a random agent for the seat to move, from Python: how it plays
    through `sim.games.portobello.game.Game`, the very code the batches run."""
    return choose_random(B, S, rng, params, restrict, memory, buf, buf2)


@njit(cache=True, _nrt=False)
def decide_planner(B: np.ndarray, S: np.ndarray, rng: np.ndarray, params: np.ndarray,
                   restrict: np.ndarray, memory: np.ndarray, buf: np.ndarray,
                   WF: np.ndarray, WI: np.ndarray) -> int:
    """One decision of a planner (greedy, heuristic) for the seat to move, from Python."""
    return choose_planner(B, S, rng, params, restrict, memory, buf, WF, WI)


def new_memory(B: np.ndarray) -> np.ndarray:
    """One seat's memory for a new game (what `_play` sets before each game)."""
    memory = np.zeros(_memory_len(B), np.int64)
    memory[M_TURN] = memory[M_QTURN] = memory[M_ACTED] = -1
    return memory

