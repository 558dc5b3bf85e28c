"""Has a finding converged? Whether more playing strength would still change the answer
(pure functions: no tables, no statistics of their own).

The skill ladder's label (`analysis.metrics.robustness`) says whether a finding holds from
the heuristic up. A designer acting on it needs more: that the answer at the top of the
ladder no longer moves with strength, that is, that the next stronger agent does not change
it. At the two strongest levels of a ladder:

- **The top levels agree**: the same verdict at both (significant in the same direction,
  or significant at neither), and the paired difference between them (strongest minus the
  one below, on the games both played, Holm-adjusted over every such difference of the
  report) inside the equivalence margin: its whole interval within +-`margin`.

**The rule.** A finding is **converged** when the top levels agree: adding the stronger
level moved it by less than the margin. Otherwise it is **not converged**, and the label
names what is missing, each point that applies:

- *levels disagree*: the top levels are significantly different beyond the margin (the
  difference's interval leaves out 0 and is not inside the margin), or significant in
  opposite directions;
- *too few games*: an interval too wide to decide (the difference neither inside the
  margin nor significant; verdicts that differ while the difference is inside the margin);
- *one level*: fewer than two levels measured the finding.

**Saturation, a figure.** How much the strongest agent still gains from double its search
budget (in one seat, against it in the others, seats rotated) is reported beside the label,
in its reason, and is no condition: a search this game can afford is far from saturated at
any budget (the doubled search wins 0.57 to 0.59 at 2 players), so a condition on it could
never be met, whatever the games played. The population answer's convergence
(`analysis.metagame`) is the same rule with the next stronger bot added to the population.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from analysis.metrics.robustness import LevelEstimate

CONVERGED = "converged"
NOT_CONVERGED = "not converged"
LEVELS_DISAGREE = "levels disagree"
TOO_FEW_GAMES = "too few games"
ONE_LEVEL = "one level"
MISSING = (LEVELS_DISAGREE, TOO_FEW_GAMES, ONE_LEVEL)
MARGIN = 0.02  # the equivalence margin of the two top levels (win-share points)
SATURATION_MARGIN = 0.02  # the doubled budget's band around its fair share
RULE = ("converged: the next stronger level no longer moves the answer: the two strongest "
        "levels give the same verdict and their paired difference (Holm-adjusted interval) "
        "lies inside the equivalence margin. Otherwise not converged, naming what is "
        "missing: levels disagree, too few games, one level. How much the strongest agent "
        "still gains from double its search budget, in one seat against it in the others, "
        "is shown beside it as a figure, not as a condition.")


@dataclass(frozen=True)
class Interval:
    """An estimate and the interval that decides about it."""

    estimate: float
    lo: float
    hi: float

    def __post_init__(self) -> None:
        if not (math.isnan(self.lo) or math.isnan(self.hi)) and self.lo > self.hi:
            raise ValueError(f"an interval's low end {self.lo} is above its high end {self.hi}")

    @property
    def measured(self) -> bool:
        return not any(math.isnan(x) for x in (self.estimate, self.lo, self.hi))


@dataclass(frozen=True)
class Saturation:
    """The doubled budget's win share against the strongest agent, its 95% interval, its
    fair share (1/n) and the games behind it."""

    share: Interval
    fair: float
    games: int

    def state(self, margin: float = SATURATION_MARGIN) -> str:
        """`saturated`, `not saturated` or `undecided` (the interval too wide)."""
        s = self.share
        if not s.measured:
            return "undecided"
        if s.lo > self.fair:
            return "not saturated"
        if s.hi <= self.fair + margin and s.hi - s.lo <= 2 * margin:
            return "saturated"
        return "undecided"


@dataclass(frozen=True)
class Convergence:
    """A finding's convergence: `converged` or `not converged`, what is missing (`MISSING`
    entries, in that order) and one sentence saying why."""

    label: str
    missing: tuple[str, ...]
    reason: str

    @property
    def text(self) -> str:
        """`converged`, `not converged (levels disagree; too few games)`."""
        return self.label if not self.missing else f"{self.label} ({'; '.join(self.missing)})"


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def classify(second: LevelEstimate, top: LevelEstimate, difference: Interval | None,
             saturation: Saturation | None, margin: float = MARGIN,
             saturation_margin: float = SATURATION_MARGIN) -> Convergence:
    """The convergence of one finding from its estimates at the two strongest levels
    (`second` below `top`), their paired difference (top minus second, Holm-adjusted) and
    the saturation check at its player count (the rule is the module's docstring)."""
    if margin <= 0 or saturation_margin <= 0:
        raise ValueError("the margins must be positive")
    missing: set[str] = set()
    why: list[str] = []
    if math.isnan(second.estimate) or math.isnan(top.estimate) or difference is None \
            or not difference.measured:
        missing.add(ONE_LEVEL)
        why.append("the two strongest levels did not both measure it")
    else:
        d = difference
        inside = -margin <= d.lo and d.hi <= margin
        differs = d.lo > 0 or d.hi < 0
        same = top.significant == second.significant and (
            not top.significant or top.sign == second.sign)
        opposite = top.significant and second.significant and top.sign != second.sign
        band = f"[{_pp(d.lo)}, {_pp(d.hi)}] pp"
        if opposite or (differs and not inside):
            missing.add(LEVELS_DISAGREE)
            why.append(f"{top.level} and {second.level} differ by {_pp(d.estimate)} pp {band}"
                       + (" and point opposite ways" if opposite else "")
                       + f", beyond the ±{100 * margin:.0f} pp margin")
        elif not inside:
            missing.add(TOO_FEW_GAMES)
            why.append(f"{top.level} minus {second.level} is {_pp(d.estimate)} pp {band}, "
                       f"not yet inside the ±{100 * margin:.0f} pp margin")
        elif not same:
            missing.add(TOO_FEW_GAMES)
            why.append(f"{top.level} and {second.level} agree within the margin ({band}) but "
                       "one level's interval is too wide to give the same verdict")
        else:
            why.append(f"{top.level} and {second.level} agree: {_pp(d.estimate)} pp {band}, "
                       f"inside ±{100 * margin:.0f} pp, same verdict")
    if saturation is None:
        why.append("no doubled-budget check at this player count")
    else:
        s = saturation.share
        state = saturation.state(saturation_margin)
        text = (f"double the budget wins {s.estimate:.3f} [{s.lo:.3f}, {s.hi:.3f}] against "
                f"a fair {saturation.fair:.3f} ({saturation.games:,} games)")
        why.append({"not saturated": f"the top is not saturated: {text}",
                    "undecided": f"saturation undecided: {text}, not yet within "
                                 f"±{100 * saturation_margin:.0f} pp"}.get(
                        state, f"the top is saturated: {text}"))
    ordered = tuple(m for m in MISSING if m in missing)
    return Convergence(NOT_CONVERGED if ordered else CONVERGED, ordered, "; ".join(why))
