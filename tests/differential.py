"""The one differential harness: the same seeds and line-ups through both sides of the engine
seam (`sim.games.portobello.engines`: games played one decision at a time from Python
through `Game`, and in compiled batches), every kept detail required equal, and every game
then replayed on the oracle (`oracle.replay`), its whole state compared after every action.

Both engines are driven exactly as the runner drives them, so what this checks is what a
run stores: the whole action log (hence identical records and events), scores, per-seat
statistics, stalls left, end reason, rounds, turns, the baron's square and the decision count.
The oracle is the independent reading of the rules: the engine's games must be games of the
rules as the oracle reads them, state for state.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from oracle.replay import replay_agrees

from sim.games.portobello.board import Board
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.engines import StepEngine
from sim.games.portobello.rules import Rules
from sim.games.portobello.tables import Results

FIELDS = ("scores", "stats", "stalls_left", "end_code", "rounds", "turns", "baron_square",
          "decisions")


def first_difference(a: Sequence[int], b: Sequence[int]) -> int:
    return next((j for j, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


def engines_agree(board: Board, rules: Rules, lineups: Sequence[Sequence[str]],
                  seeds: Sequence[int]) -> Results:
    """Play every (seed, line-up) on both engines; fail with the first game and action where
    they part. Returns the step engine's results (for further checks)."""
    specs = sorted({s for lineup in lineups for s in lineup})
    ref = StepEngine(board, rules).play(seeds, lineups, keep_log=True)
    fast = CompiledEngine(board, rules, specs).play(seeds, lineups, keep_log=True)
    assert ref.logs is not None and fast.logs is not None
    for i, (seed, lineup) in enumerate(zip(seeds, lineups, strict=True)):
        where = f"game {i}, seed {seed}, agents {list(lineup)}"
        a, b = fast.logs[i], ref.logs[i]
        if a != b:
            k = first_difference(a, b)
            raise AssertionError(f"action logs part at action {k} ({where}): compiled "
                                 f"{a[k:k + 3]}, step by step {b[k:k + 3]}")
        for name in FIELDS:
            x, y = getattr(fast, name)[i], getattr(ref, name)[i]
            assert np.array_equal(x, y), f"{name} differ ({where}): {x} vs {y}"
        replay_agrees(board, rules, seed, a, where=where)
    return ref
