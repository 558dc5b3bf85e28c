"""Robustness labels across skill levels (`analysis.metrics.robustness`): the rule on
hand-made estimates, and on effects planted in per-game data and measured by the report's
own paired comparisons and Holm correction."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis import compare as C
from analysis.metrics.robustness import GROWS
from analysis.metrics.robustness import NOT_FOUND
from analysis.metrics.robustness import REVERSED
from analysis.metrics.robustness import ROBUST
from analysis.metrics.robustness import SHRINKS
from analysis.metrics.robustness import SKILL_DEPENDENT
from analysis.metrics.robustness import LevelEstimate
from analysis.metrics.robustness import SizeChange
from analysis.metrics.robustness import classify

NAMES = ("greedy", "heuristic", "mcts")


def at(*points: tuple[float, float, float]) -> list[LevelEstimate]:
    """Levels from (estimate, lo, hi): significant exactly when the interval leaves out 0."""
    return [LevelEstimate(NAMES[i], e, lo, hi, lo > 0 or hi < 0)
            for i, (e, lo, hi) in enumerate(points)]


SIG_UP = (0.05, 0.02, 0.08)
SIG_DOWN = (-0.05, -0.08, -0.02)
NONE = (0.01, -0.02, 0.04)


def test_an_effect_at_every_level_is_robust() -> None:
    v = classify(at(SIG_UP, SIG_UP, SIG_UP))
    assert (v.label, v.trend, v.direction) == (ROBUST, "", 1)
    assert v.text == "robust" and "every level" in v.reason
    assert classify(at(SIG_DOWN, SIG_DOWN, SIG_DOWN)).direction == -1


def test_robust_counts_from_the_heuristic_up() -> None:
    # Not significant at greedy, significant at heuristic and mcts: robust from level 1 up,
    # but only skill-dependent when every level counts (no heuristic level).
    levels = at(NONE, SIG_UP, SIG_UP)
    v = classify(levels, start=1)
    assert v.label == ROBUST and "from heuristic up" in v.reason
    v = classify(levels, start=0)
    assert (v.label, v.trend) == (SKILL_DEPENDENT, GROWS)
    # The other way round below the heuristic does not undo it, and is said.
    v = classify(at(SIG_DOWN, SIG_UP, SIG_UP), start=1)
    assert v.label == ROBUST and "the other way at greedy" in v.reason
    assert classify(at(SIG_DOWN, SIG_UP, SIG_UP), start=0).label == REVERSED


def test_an_effect_at_one_level_only_is_skill_dependent_with_its_trend() -> None:
    v = classify(at(SIG_UP, NONE, NONE), start=1)
    assert (v.label, v.trend) == (SKILL_DEPENDENT, SHRINKS)
    assert v.text == "skill-dependent (shrinks)" and "greedy only" in v.reason
    # A size change measured but not significant is named: significance alone may move
    # with the games a level played.
    v = classify(at(SIG_UP, NONE, NONE), start=1, size=SizeChange(-0.03, -0.07, 0.01, False))
    assert v.label == SKILL_DEPENDENT and "(the size change is not significant)" in v.reason
    v = classify(at(NONE, NONE, SIG_DOWN), start=1)
    assert (v.label, v.trend, v.direction) == (SKILL_DEPENDENT, GROWS, -1)
    # Significant only in the middle: the trend follows the point estimates at the ends,
    # along the finding's direction.
    v = classify(at((0.04, -0.01, 0.09), SIG_UP, (0.0, -0.03, 0.03)), start=0)
    assert (v.label, v.trend) == (SKILL_DEPENDENT, SHRINKS)


def test_opposite_significant_directions_are_reversed() -> None:
    v = classify(at(SIG_UP, NONE, SIG_DOWN), start=1)
    assert v.label == REVERSED and v.direction == -1  # the strongest significant level's
    assert "positive at greedy" in v.reason and "negative at mcts" in v.reason


def test_nothing_anywhere_is_not_found() -> None:
    v = classify(at(NONE, NONE, NONE))
    assert v.label == NOT_FOUND and v.trend == ""


def test_a_significant_size_change_names_a_trend() -> None:
    # Significant everywhere and growing significantly: robust, grows.
    grow = SizeChange(0.04, 0.01, 0.07, True)
    v = classify(at(SIG_UP, SIG_UP, (0.09, 0.06, 0.12)), size=grow)
    assert (v.label, v.trend, v.text) == (ROBUST, GROWS, "robust, grows")
    # Not significant at any level, but the strongest differs from the weakest: the size
    # changes with skill.
    v = classify(at((0.02, -0.01, 0.05), NONE, (-0.02, -0.05, 0.01)),
                 size=SizeChange(-0.04, -0.07, -0.01, True))
    assert (v.label, v.trend) == (SKILL_DEPENDENT, GROWS)  # towards the negative side
    # An insignificant size change changes nothing.
    v = classify(at(NONE, NONE, NONE), size=SizeChange(0.01, -0.02, 0.04, False))
    assert v.label == NOT_FOUND


def test_missing_levels_are_left_out_and_bad_input_is_refused() -> None:
    nan = math.nan
    levels = [*at(SIG_UP, SIG_UP), LevelEstimate("mcts", nan, nan, nan, False)]
    assert classify(levels, start=1).label == ROBUST
    assert classify([LevelEstimate("greedy", nan, nan, nan, False)]).label == NOT_FOUND
    with pytest.raises(ValueError, match="a verdict must agree with the interval"):
        LevelEstimate("greedy", 0.05, 0.02, 0.08, False)
    with pytest.raises(ValueError, match="start must index a level"):
        classify(at(SIG_UP, SIG_UP), start=2)


# -- effects planted in per-game data ---------------------------------------------------------
def planted(effects: dict[str, float], n: int = 600, seed: int = 4) -> pd.DataFrame:
    """Per-game values of one measure for a baseline and a variant at three levels, paired on
    seeds; the variant adds `effects[level]` (in share units) to every game."""
    rng = np.random.default_rng(seed)
    frames = []
    for level, effect in effects.items():
        base = rng.normal(0.5, 0.3, n)
        for variant, value in (("standard", base), ("known", base + effect
                                                     + rng.normal(0, 0.3, n))):
            frames.append(pd.DataFrame({"level": level, "n_players": 2, "variant": variant,
                                        "game_id": np.arange(n), "seed": np.arange(n) + 11,
                                        "measure": "seat 0 win share", "kind": C.SHARE,
                                        "value": value}))
    return pd.concat(frames, ignore_index=True)


def label_of(effects: dict[str, float]) -> str:
    """The label the report's machinery gives a planted effect: each level's paired
    difference, Holm-adjusted as a family of its own, classified from the heuristic up."""
    df = planted(effects)
    points = []
    for level in NAMES:
        d = C.Holm(interval=C.TInterval("diff"))(
            C.VariantDifference("standard")(df[df["level"] == level]))
        r = d.iloc[0]
        points.append(LevelEstimate(level, r["diff"], r["adj_lo"], r["adj_hi"],
                                    bool(r["significant"])))
    return classify(points, start=1).text


def test_planted_effects_get_the_label_they_were_planted_with() -> None:
    assert label_of({"greedy": 0.12, "heuristic": 0.12, "mcts": 0.12}) == "robust"
    assert label_of({"greedy": 0.0, "heuristic": 0.0, "mcts": 0.12}) == \
        "skill-dependent (grows)"
    assert label_of({"greedy": 0.12, "heuristic": 0.0, "mcts": 0.0}) == \
        "skill-dependent (shrinks)"
    assert label_of({"greedy": 0.12, "heuristic": 0.0, "mcts": -0.12}) == "reversed"
    assert label_of({"greedy": 0.0, "heuristic": 0.0, "mcts": 0.0}) == "not found"
