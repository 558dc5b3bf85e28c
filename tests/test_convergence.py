"""The convergence label (`analysis.metrics.convergence`) on planted estimates: a finding
whose two top levels agree is converged, whatever the doubled budget still gains (a figure
in the reason, no condition); diverging levels, too few games and a single level each say
so."""

from __future__ import annotations

import math

import pytest

from analysis.metrics.convergence import CONVERGED
from analysis.metrics.convergence import LEVELS_DISAGREE
from analysis.metrics.convergence import NOT_CONVERGED
from analysis.metrics.convergence import ONE_LEVEL
from analysis.metrics.convergence import TOO_FEW_GAMES
from analysis.metrics.convergence import Interval
from analysis.metrics.convergence import Saturation
from analysis.metrics.convergence import classify
from analysis.metrics.robustness import LevelEstimate

NAN = float("nan")


def level(name: str, est: float, half: float) -> LevelEstimate:
    """A level's estimate with a symmetric interval; significant exactly when it leaves
    out 0 (as the robustness label requires)."""
    lo, hi = est - half, est + half
    return LevelEstimate(name, est, lo, hi, lo > 0 or hi < 0)


# A saturated top at 3 players: the doubled budget wins 0.338 [0.325, 0.351] against a fair
# 1/3, inside 1/3 +- 0.02 = [0.313, 0.353].
SATURATED = Saturation(Interval(0.338, 0.325, 0.351), 1 / 3, 5000)


def test_two_levels_that_agree_at_a_saturated_top_are_converged() -> None:
    # +6.0 pp and +5.5 pp, both significant; their paired difference +0.5 pp [-1.0, +2.0]
    # lies inside +-2 pp.
    c = classify(level("expert", 0.055, 0.015), level("expert-search", 0.060, 0.02),
                 Interval(0.005, -0.010, 0.020), SATURATED)
    assert (c.label, c.missing, c.text) == (CONVERGED, (), "converged")
    assert "inside ±2 pp" in c.reason and "saturated" in c.reason


def test_no_effect_at_both_levels_converges_too() -> None:
    c = classify(level("a", 0.004, 0.01), level("b", -0.002, 0.01),
                 Interval(-0.006, -0.015, 0.003), SATURATED)
    assert c.label == CONVERGED


def test_diverging_levels() -> None:
    # +1 pp at the level below, +6 pp at the top: a difference of +5 pp [+3, +7], which
    # leaves out 0 and is beyond the margin.
    c = classify(level("a", 0.01, 0.015), level("b", 0.06, 0.015),
                 Interval(0.05, 0.03, 0.07), SATURATED)
    assert (c.label, c.missing) == (NOT_CONVERGED, (LEVELS_DISAGREE,))
    assert c.text == "not converged (levels disagree)"
    # Opposite significant directions disagree whatever the margin.
    c = classify(level("a", -0.03, 0.02), level("b", 0.03, 0.02),
                 Interval(0.06, 0.01, 0.11), SATURATED)
    assert c.missing == (LEVELS_DISAGREE,) and "opposite" in c.reason


def test_a_small_significant_difference_inside_the_margin_still_agrees() -> None:
    # +0.8 pp [+0.2, +1.4]: significant, but inside +-2 pp (equivalence, not equality).
    c = classify(level("a", 0.05, 0.01), level("b", 0.058, 0.01),
                 Interval(0.008, 0.002, 0.014), SATURATED)
    assert c.label == CONVERGED


def test_an_unsaturated_top_is_a_figure_not_a_condition() -> None:
    # Double the budget wins 0.40 [0.37, 0.43] at 3 players: above 1/3 significantly. The
    # top levels agree (0.0 pp [-1, +1], inside +-2 pp, both significant and positive), so
    # the next stronger level no longer moves the answer: converged, the doubled budget's
    # gain said in the reason. With no doubled budget played, the same.
    hungry = Saturation(Interval(0.40, 0.37, 0.43), 1 / 3, 1000)
    c = classify(level("a", 0.05, 0.01), level("b", 0.05, 0.01), Interval(0.0, -0.01, 0.01),
                 hungry)
    assert (c.label, c.missing) == (CONVERGED, ())
    assert "not saturated" in c.reason and "0.400 [0.370, 0.430]" in c.reason
    c = classify(level("a", 0.05, 0.01), level("b", 0.05, 0.01), Interval(0.0, -0.01, 0.01),
                 None)
    assert (c.label, c.missing) == (CONVERGED, ())
    assert "no doubled-budget check" in c.reason


def test_too_few_games() -> None:
    # The difference +1 pp [-4, +6] holds 0 but is far wider than the margin.
    c = classify(level("a", 0.04, 0.05), level("b", 0.05, 0.05), Interval(0.01, -0.04, 0.06),
                 SATURATED)
    assert c.missing == (TOO_FEW_GAMES,)
    # Inside the margin, but one level significant and the other not.
    c = classify(level("a", 0.015, 0.02), level("b", 0.03, 0.02),
                 Interval(0.015, 0.011, 0.019), SATURATED)
    assert c.missing == (TOO_FEW_GAMES,) and "verdict" in c.reason
    # A saturation check too short to tell, 0.36 [0.30, 0.42] against a fair 1/3, is said
    # in the reason and missing nothing: the top levels agree.
    short = Saturation(Interval(0.36, 0.30, 0.42), 1 / 3, 200)
    c = classify(level("a", 0.05, 0.01), level("b", 0.05, 0.01), Interval(0.0, -0.01, 0.01),
                 short)
    assert c.missing == () and "undecided" in c.reason


def test_every_missing_point_is_named_in_order() -> None:
    c = classify(level("a", 0.01, 0.015), level("b", 0.06, 0.015),
                 Interval(0.05, 0.03, 0.07), None)
    assert c.missing == (LEVELS_DISAGREE,)
    c = classify(level("a", NAN, NAN), level("b", 0.06, 0.015), None,
                 Saturation(Interval(0.40, 0.37, 0.43), 1 / 3, 1000))
    assert c.missing == (ONE_LEVEL,) and c.text == "not converged (one level)"


def test_the_saturation_band_is_the_fair_share_plus_or_minus_the_margin() -> None:
    # At 2 players the band is [0.48, 0.52]: 0.485-0.515 is inside (saturated); 0.45-0.51
    # is wider than the band's 4 pp (undecided); 0.49-0.525 reaches above 0.52 (undecided);
    # 0.53-0.56 leaves out the fair share above (not saturated); 0.40-0.43, a doubled
    # budget that does worse, measured within 4 pp, does not beat it (saturated).
    def at(lo: float, hi: float) -> str:
        return Saturation(Interval((lo + hi) / 2, lo, hi), 0.5, 100).state(0.02)
    assert at(0.485, 0.515) == "saturated"
    assert at(0.45, 0.51) == "undecided"
    assert at(0.49, 0.525) == "undecided"
    assert at(0.53, 0.56) == "not saturated"
    assert at(0.40, 0.43) == "saturated"
    assert math.isclose(SATURATED.fair, 1 / 3)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="low end"):
        Interval(0.0, 0.1, -0.1)
    with pytest.raises(ValueError, match="positive"):
        classify(level("a", 0.0, 0.01), level("b", 0.0, 0.01), Interval(0, -0.01, 0.01),
                 SATURATED, margin=0)
