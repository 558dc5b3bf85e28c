"""The door from Python to the compiled path: agents by spec, games by seed, results as
arrays.

`FastGames(board, rules, specs)` packs the board and rules once and turns each agent spec
into a row of the compiled agent table; `supports(spec)` says whether an agent has a
compiled twin (random, greedy and heuristic, restricted or not). Games then play in batches
with exactly the seeds `sim.play.play_game` would use, so a run gives the same games on
either path; the differential tests hold the two to that.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sim.agents.base import BaseAgent
from sim.agents.random_agent import RandomAgent
from sim.agents.registry import make_agent
from sim.board import Board
from sim.errors import PortobelloError
from sim.fast import play as FP
from sim.fast.layout import pack
from sim.play import seat_seeds
from sim.rules import Rules
from sim.tables import Results

LOG_START = 2048  # record actions kept per game at first; a longer game is replayed with more


def _restrict_row(agent: BaseAgent) -> np.ndarray:
    return np.array(agent.restrict.flags(), np.int64)


def _playing_agent(agent: BaseAgent) -> BaseAgent:
    """The agent under any restriction wrappers (the wrappers' restriction is on it)."""
    inner = getattr(agent, "inner", None)
    return agent if inner is None else _playing_agent(inner)


def compiled_agent(spec: str) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(kind, parameters, restrictions) of the compiled twin of an agent, or None."""
    try:
        agent = make_agent(spec)
    except (ValueError, TypeError, KeyError, PortobelloError):
        return None
    playing = _playing_agent(agent)
    params = np.zeros(FP.N_PARAMS, np.float64)
    if type(playing) is RandomAgent:
        params[0], params[1] = playing.move_chance, playing.max_moves
        return FP.KIND_RANDOM, params, _restrict_row(playing)
    planner = FP.planner_row(playing)
    if planner is not None:
        kind, row = planner
        return kind, row, _restrict_row(playing)
    return None


def supports(specs: Sequence[str]) -> bool:
    """Whether every agent of a line-up can play on the compiled path."""
    return all(compiled_agent(s) is not None for s in specs)


class FastGames:
    """Compiled play of one board and rules with a fixed set of agent specs."""

    def __init__(self, board: Board, rules: Rules, specs: Sequence[str]) -> None:
        self.board = board
        self.rules = rules
        self.B = pack(board, rules)
        self.specs = list(dict.fromkeys(specs))
        self.index = {s: i for i, s in enumerate(self.specs)}
        k = len(self.specs)
        self.kinds = np.zeros(k, np.int64)
        self.params = np.zeros((k, FP.N_PARAMS), np.float64)
        self.restrict = np.zeros((k, 4), np.int64)
        for i, spec in enumerate(self.specs):
            row = compiled_agent(spec)
            if row is None:
                raise ValueError(f"agent {spec} has no compiled version")
            self.kinds[i], self.params[i], self.restrict[i] = row

    def play(self, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
             keep_log: bool = False) -> Results:
        """Play one game per seed; `lineups[g][seat]` is the spec at each seat."""
        n = self.rules.players
        g = len(seeds)
        game_seeds = np.array(seeds, np.int64)
        per_seat = np.array([seat_seeds(s, n) for s in seeds], np.int64).reshape(g, n)
        seat_agent = np.array([[self.index[s] for s in lineup] for lineup in lineups],
                              np.int64).reshape(g, n)
        res, logs = FP.play_batch(self.B, game_seeds, per_seat, seat_agent, self.kinds,
                                  self.params, self.restrict, LOG_START if keep_log else 0)
        h = FP.R_HEAD
        out_logs = None
        if keep_log:
            out_logs = [logs[i, :res[i, FP.R_LOG_LEN]].tolist() for i in range(g)]
            cap = LOG_START
            long = np.flatnonzero(res[:, FP.R_OVERFLOW])
            while long.size:  # the same games again (same seeds, same play) with more room
                cap *= 4
                res2, more = FP.play_batch(self.B, game_seeds[long], per_seat[long],
                                           seat_agent[long], self.kinds, self.params,
                                           self.restrict, cap)
                for j, i in enumerate(long):
                    out_logs[i] = more[j, :res2[j, FP.R_LOG_LEN]].tolist()
                long = long[res2[:, FP.R_OVERFLOW] != 0]
        return Results(
            n=n, end_code=res[:, FP.R_END], rounds=res[:, FP.R_ROUNDS],
            turns=res[:, FP.R_TURNS], baron_square=res[:, FP.R_BARON_SQ],
            decisions=res[:, FP.R_DECISIONS], scores=res[:, h:h + n],
            stalls_left=res[:, h + n:h + 2 * n],
            stats=res[:, h + 2 * n:h + 10 * n].reshape(g, n, 8), logs=out_logs)
