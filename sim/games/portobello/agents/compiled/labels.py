"""What the search teaches at one decision, compiled: for each option at the root of a
finished search, the position it leads to as the chooser sees it (`features`), how often
the search tried it and the mean value the search found for the chooser there.

These are the learned agent's training rows (`sim.learning`): the network learns the value
of the position after an option, from the chooser's chair, so that picking the option
whose position it values most imitates the search; the visits weigh each row (an option
tried often has a well-measured value).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.games.portobello.agents.compiled.features import features
from sim.games.portobello.agents.compiled.features import option_inputs
from sim.games.portobello.agents.compiled.mcts import ECHILD
from sim.games.portobello.agents.compiled.mcts import NFIRST
from sim.games.portobello.agents.compiled.mcts import NK
from sim.games.portobello.agents.compiled.mcts import NV
from sim.games.portobello.agents.compiled.mcts import after


@njit(cache=True)
def root_labels(B: np.ndarray, S: np.ndarray, T: tuple, me: int, temp: float, width: int,
                X: np.ndarray, visits: np.ndarray, values: np.ndarray) -> int:
    """Write each root option's network inputs (rows of `X`: the position it leads to
    from `me`'s chair, its rank and price gap), visits and mean value for `me`; return how
    many options. An option the search never tried has 0 visits and value 0. The price gap
    comes back from the edges' softmax priors (`temp` x log of the prior ratio)."""
    node, nw, edge, prior = T[0], T[1], T[2], T[3]
    first, k = node[0, NFIRST], node[0, NK]
    for r in range(k):
        e = first + r
        features(B, after(B, S, T, e), me, X[r])
        gap = temp * math.log(prior[first] / prior[e]) if prior[e] > 0 else 100.0
        option_inputs(B, r, width, gap, X[r])
        child = edge[e, ECHILD]
        n = node[child, NV] if child >= 0 else 0
        visits[r] = n
        values[r] = nw[child] / n if n else 0.0
    return k
