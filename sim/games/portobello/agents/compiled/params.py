"""The parameter row of a compiled evaluator + planner agent: one float64 array.

An agent's whole configuration reaches compiled code as one row `P` (`planner_params`): the
weights of the evaluator (in `WEIGHT_NAMES` order, the fields of
`sim.games.portobello.agents.evaluate.Weights`, read by name), the planner switches, the stalls an
average turn places, and two power tables computed here in Python, so every agent with the same
weights prices with the very same floats. Rows of different agents differ only in values: a
greedy agent, a heuristic one and a search's rollout policy are all rows.

    W_LANE .. W_RIVAL    [0..10]   weights (`WEIGHT_NAMES`)
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

import numpy as np

# Weights, in this order (the fields of `sim.games.portobello.agents.evaluate.Weights`, read by
# name).
WEIGHT_NAMES = ("lane", "fill", "end", "district", "growth", "horizon", "majority", "stall",
                "tempo", "bobby", "rival")
W_LANE, W_FILL, W_END, W_DISTRICT, W_GROWTH, W_HORIZON, W_MAJORITY, W_STALL, W_TEMPO, \
    W_BOBBY, W_RIVAL = range(len(WEIGHT_NAMES))
# Planner switches: min_gain, simulate (token pricing by a played-out turn), immediate
# evaluator (greedy), leave option (Bobby moved at the end of a turn).
P_MIN_GAIN, P_SIMULATE, P_IMMEDIATE, P_LEAVE = range(11, 15)
P_STALLS_PER_TURN = 15  # stalls an average turn places (the turns-left estimate)
P_END_POW = 16  # [1, end, end ** 2]
P_FILL_POW = 19  # fill ** r for r = 0..MAX_LANE_LEN
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
