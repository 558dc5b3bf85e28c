"""The parameter row of a compiled evaluator + planner agent: one float64 array.

An agent's whole configuration reaches compiled code as one row `P` (`planner_params`): the
weights of the evaluator (`Weights`, in the order of its fields), the planner switches, the
stalls an average turn places, and two power tables computed here in Python, so every agent
with the same weights prices with the very same floats. Rows of different agents differ only
in values: a greedy agent, a heuristic one and a search's rollout policy are all rows.

`Weights` is the one list of the weights: their names, their order and their defaults. The
names of the row's entries (`W_LANE`, ...), the heuristic agent's parameters
(`sim.games.portobello.agents.heuristic`) and the weight sets' fields are made from it.

    W_LANE .. W_RIVAL    [0..10]   weights (`Weights`, `WEIGHT_NAMES`)
    P_MIN_GAIN           11        the planner's `min_gain`
    P_SIMULATE           12        token plays priced by playing the turn out (else by the
                                   options open now)
    P_IMMEDIATE          13        the immediate evaluator (greedy): no look-ahead terms
    P_LEAVE              14        the leave option (the Bobby moved at the end of a turn)
    P_STALLS_PER_TURN    15        stalls an average turn places (the turns-left estimate)
    P_END_POW            16..18    [1, end, end ** 2]
    P_FILL_POW           19..63    fill ** r for r = 0..MAX_LANE_LEN
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import fields

import numpy as np


@dataclass(frozen=True)
class Weights:
    """Tunable weights of the evaluation (what each weighs: the docstring of
    `sim.games.portobello.agents.evaluate`); the defaults are the hand-tuned `classic` set."""

    lane: float = 1.0  # weight of the expected value of stalls in unscored lanes
    fill: float = 0.8  # chance factor per empty spot a lane still needs to be full
    end: float = 0.85  # chance factor per end square still waiting for a customer
    district: float = 0.8  # weight of the district-scoring potential
    growth: float = 0.15  # share of the stalls still in hand expected in a scored district
    horizon: float = 3.0  # turns before the end over which the district potential fades
    majority: float = 0.4  # per inner lane where the seat alone has the most stalls
    stall: float = 0.6  # value of a stall kept in hand
    tempo: float = 1.5  # points an action is worth on an average turn
    bobby: float = 0.2  # weight of the next player's chances where the Bobby is left
    rival: float = 1.0  # weight of the rivals' values in the margin

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The weights' names, in the row's order."""
        return tuple(f.name for f in fields(cls))

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.names()}


WEIGHT_NAMES = Weights.names()
# Where each weight is in the row: its place among `Weights`' fields.
W_LANE = WEIGHT_NAMES.index("lane")
W_FILL = WEIGHT_NAMES.index("fill")
W_END = WEIGHT_NAMES.index("end")
W_DISTRICT = WEIGHT_NAMES.index("district")
W_GROWTH = WEIGHT_NAMES.index("growth")
W_HORIZON = WEIGHT_NAMES.index("horizon")
W_MAJORITY = WEIGHT_NAMES.index("majority")
W_STALL = WEIGHT_NAMES.index("stall")
W_TEMPO = WEIGHT_NAMES.index("tempo")
W_BOBBY = WEIGHT_NAMES.index("bobby")
W_RIVAL = WEIGHT_NAMES.index("rival")
# Planner switches: min_gain, simulate (token pricing by a played-out turn), immediate
# evaluator (greedy), leave option (Bobby moved at the end of a turn).
P_MIN_GAIN, P_SIMULATE, P_IMMEDIATE, P_LEAVE = range(len(WEIGHT_NAMES), len(WEIGHT_NAMES) + 4)
P_STALLS_PER_TURN = P_LEAVE + 1  # stalls an average turn places (the turns-left estimate)
P_END_POW = P_STALLS_PER_TURN + 1  # [1, end, end ** 2]
P_FILL_POW = P_END_POW + 3  # fill ** r for r = 0..MAX_LANE_LEN
MAX_LANE_LEN = 44  # the longest lane the fill table covers
N_PARAMS = P_FILL_POW + MAX_LANE_LEN + 1  # 64


def planner_params(weights: Mapping[str, float], stalls_per_turn: float, *,
                   immediate: bool = False, simulate: bool = True, min_gain: float = 0.0,
                   leave: bool = True) -> np.ndarray:
    """The parameter row of an evaluator + planner from a weight set (by name,
    `WEIGHT_NAMES`) and constants (`sim.games.portobello.agents.evaluate.compiled_params`
    calls this). The power tables are computed here, in Python."""
    row = np.zeros(N_PARAMS, np.float64)
    for i, name in enumerate(WEIGHT_NAMES):
        row[i] = weights[name]
    row[P_MIN_GAIN] = min_gain
    row[P_SIMULATE] = simulate
    row[P_IMMEDIATE] = immediate
    row[P_LEAVE] = leave
    row[P_STALLS_PER_TURN] = stalls_per_turn
    end, fill = weights["end"], weights["fill"]
    row[P_END_POW:P_END_POW + 3] = [1.0, end, end ** 2]
    row[P_FILL_POW:P_FILL_POW + MAX_LANE_LEN + 1] = [fill ** r for r in range(MAX_LANE_LEN + 1)]
    return row
