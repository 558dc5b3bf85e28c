"""The agents compiled (numba): the random agent, the evaluator and planner the greedy and
heuristic agents play with, the search (`mcts`) and whole games in batches (`play`). Each
is the only implementation of its agent; the classes of `sim.games.portobello.agents` wrap them for
play through `sim.games.portobello.game.Game`. Their disk cache is set up by
`sim.games.portobello.compiled`."""

import sim.games.portobello.compiled  # noqa: F401  (sets numba's cache folder before any compile)
