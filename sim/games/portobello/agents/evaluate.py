"""The weights of the position evaluation the greedy, heuristic and search agents share, and
the parameter row that hands them to the evaluator (`sim.games.portobello.agents.compiled.evaluate`,
the one implementation).

A seat's value is what a good player would count it worth, in points:

    V = score
      + sum over unscored lanes of (own spot values) x (expected multiplier) x (chance the lane
        is scored: 1 at the baron, 0 when the stalls in all hands cannot fill it)
                                                         -- `lane`, `fill`, `end`
      + district potential: own district tokens x best open districts' own stall counts
        (plus the share of the stalls in hand expected to join them), fading as the end
        nears                                            -- `district`, `growth`, `horizon`
      + majorities: inner lanes where the seat alone has the most stalls (free crossings,
        Bobby fees from the others)                      -- `majority`
      + stalls kept in hand, worth less as the end nears -- `stall`, `horizon`
      + tokens: tempo x (the face-up tokens' values above the average token, plus the
        turns left x the average token), so playing a big token now is weighed against
        keeping it, and a district scoring that swaps a 4 for a neutral 1 pays for the
        actions it gives up                               -- `tempo`

The weights themselves, their names, order and defaults, are listed once, as the fields of
`Weights` (`sim.games.portobello.agents.compiled.params`, beside the parameter row they fill).

An agent compares actions by the change of its margin `V_me - rival * mean(V_others)`.
A seat's last stall is priced as the end of the game (score, the lane it may complete and
the baron's lanes; every hope is gone). `immediate=True` keeps only the score (the greedy
agent's points margin).

Evaluating a whole position builds a cache (per-lane terms, per-district stall counts,
potentials); the `*_delta` functions of `sim.games.portobello.agents.compiled.eval_deltas` then
price one action from the cache without copying the game, which is what makes the heuristic fast
enough to be the search's rollout policy.
"""

from __future__ import annotations

import numpy as np

from sim.games.portobello.agents.compiled.params import Weights as Weights
from sim.games.portobello.agents.compiled.params import planner_params

STALLS_PER_TURN = 2.3  # stalls an average turn places (for the turns-left estimate)


def compiled_params(weights: Weights | None = None, *, immediate: bool = False,
                    simulate: bool = True, min_gain: float = 0.0, leave: bool = True) -> np.ndarray:
    """The compiled agent's parameter row (a numpy array) for these weights and planner
    switches (greedy: `immediate=True` and the default weights)."""
    return planner_params((weights or Weights()).as_dict(), STALLS_PER_TURN,
                          immediate=immediate, simulate=simulate, min_gain=min_gain,
                          leave=leave)
