"""Does a finding hold for stronger play? One label per finding, from its estimates at every
skill level (pure functions: no tables, no statistics of their own).

A finding is a tested quantity with a "no effect" value of 0: the first player's advantage
(seat 0's share minus 1/n), a seat's share minus 1/n, a variant's effect on a measure
(variant minus baseline, on common game seeds). At each level it has an estimate and the
interval that decides its significance there (the Holm-adjusted interval of its family at
that level, so "significant" is exactly "the interval leaves out 0": `classify` refuses
inputs where they disagree). Levels are listed weakest first; `start` is the first level
"from the heuristic up" (`analysis.study.skill.first_strong`: the first level whose agents
are the heuristic or stronger; 0 when no level is).

The size change is the strongest level's value minus the weakest level's, measured on the
games both played (the same seeds, a paired test) with an interval that decides whether it
is significant (Holm-adjusted over every size change of the report).

**The rule.** Over the levels that have an estimate (the *upper* levels: those from `start`
on; every level when none of those has one):

1. **robust**: significant at every upper level, all in the same direction. Weaker levels
   below the heuristic do not count against it; the size change, when significant, is
   named as its trend ("robust, grows").
2. **reversed**: otherwise, when significant levels (any level) point in opposite directions.
3. **skill-dependent**: otherwise, when significance changes across the levels (significant
   at some, not at others), or the size change is significant. Its trend is named:
   - with a significant size change, by its sign along the finding's direction: *grows*
     when the strongest level's effect is larger in that direction, else *shrinks*;
   - else by where it is significant: *grows* when significant at the strongest level and
     not at the weakest, *shrinks* when the other way round;
   - else by the point estimates at the two ends, along the direction.
4. **not found**: not significant at any level, and no significant size change.

The direction of a finding is the sign its significant levels share (for a reversed one,
the strongest significant level's), else the sign of the strongest level's estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ROBUST = "robust"
SKILL_DEPENDENT = "skill-dependent"
REVERSED = "reversed"
NOT_FOUND = "not found"
LABELS = (ROBUST, SKILL_DEPENDENT, REVERSED, NOT_FOUND)
GROWS, SHRINKS = "grows", "shrinks"
RULE = ("robust: significant in the same direction at every level from the heuristic up "
        "(the first level whose agents are the heuristic or stronger; every level when there "
        "is none); reversed: otherwise, significant in opposite directions at two levels; "
        "skill-dependent: otherwise, significant at some levels and not at others, or the "
        "strongest level's value differs significantly from the weakest level's (paired on "
        "common seeds, Holm-adjusted over every size change), with its trend (grows or "
        "shrinks along the finding's direction); not found: not significant at any level "
        "and no significant size change. Significant at a level: the level's Holm-adjusted "
        "interval, the one shown, leaves out 0.")


@dataclass(frozen=True)
class LevelEstimate:
    """A finding at one skill level: its estimate and the interval that decides whether it
    is significant there (NaN estimate: the level did not measure it)."""

    level: str
    estimate: float
    lo: float
    hi: float
    significant: bool

    def __post_init__(self) -> None:
        if not math.isnan(self.estimate) and not (math.isnan(self.lo) or math.isnan(self.hi)):
            excludes = self.lo > 0 or self.hi < 0
            if excludes != self.significant:
                raise ValueError(f"level {self.level}: significant={self.significant} but the "
                                 f"interval [{self.lo}, {self.hi}] "
                                 f"{'leaves out' if excludes else 'holds'} 0; a verdict must "
                                 "agree with the interval shown beside it")

    @property
    def sign(self) -> int:
        """+1, -1 or 0: the estimate's direction."""
        return 0 if math.isnan(self.estimate) or self.estimate == 0 else (
            1 if self.estimate > 0 else -1)


@dataclass(frozen=True)
class SizeChange:
    """The strongest level's value minus the weakest level's (paired on common seeds), with
    the interval that decides whether the change is significant."""

    diff: float
    lo: float
    hi: float
    significant: bool


@dataclass(frozen=True)
class Verdict:
    """A finding's label (`LABELS`), its trend (`grows`, `shrinks` or empty), its direction
    (+1, -1, 0) and one sentence saying why."""

    label: str
    trend: str
    direction: int
    reason: str

    @property
    def text(self) -> str:
        """`robust`, `skill-dependent (shrinks)`, `robust, grows`: the label as shown."""
        if not self.trend:
            return self.label
        return f"{self.label}, {self.trend}" if self.label == ROBUST else \
            f"{self.label} ({self.trend})"


def _names(levels: Sequence[LevelEstimate]) -> str:
    """`greedy`, `greedy and heuristic`, `greedy, heuristic and mcts`."""
    names = [lv.level for lv in levels]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _sign_word(sign: int) -> str:
    return "positive" if sign > 0 else "negative" if sign < 0 else "zero"


def classify(levels: Sequence[LevelEstimate], start: int = 0,
             size: SizeChange | None = None) -> Verdict:
    """The label of one finding from its estimates at every level, weakest first (the rule
    is the module's docstring and `RULE`)."""
    if not 0 <= start < max(len(levels), 1):
        raise ValueError(f"start must index a level (0 to {len(levels) - 1}), got {start}")
    held = [(i, lv) for i, lv in enumerate(levels) if not math.isnan(lv.estimate)]
    if not held:
        return Verdict(NOT_FOUND, "", 0, "no level measured it")
    avail = [lv for _, lv in held]
    upper = [lv for i, lv in held if i >= start] or avail
    sig = [lv for lv in avail if lv.significant]
    signs = {lv.sign for lv in sig}
    weak, strong = avail[0], avail[-1]
    if len(signs) > 1:
        direction = next(lv.sign for lv in reversed(sig))
    elif signs:
        direction = next(iter(signs))
    else:
        direction = strong.sign or weak.sign
    size_sig = size is not None and size.significant and not math.isnan(size.diff)

    def trend() -> str:
        if size_sig and size is not None:
            return GROWS if direction * size.diff > 0 else SHRINKS
        if strong.significant != weak.significant:
            return GROWS if strong.significant else SHRINKS
        return GROWS if direction * (strong.estimate - weak.estimate) > 0 else SHRINKS

    if all(lv.significant for lv in upper) and len({lv.sign for lv in upper}) == 1:
        where = (f"every level from {upper[0].level} up" if len(upper) < len(avail)
                 else "every level")
        grows = trend() if size_sig else ""
        below = [lv for lv in sig if lv not in upper and lv.sign != direction]
        return Verdict(ROBUST, grows, direction,
                       f"significant and {_sign_word(direction)} at {where}"
                       + (f"; its size {grows} with skill" if grows else "")
                       + (f" (the other way at {_names(below)}, below the heuristic)"
                          if below else ""))
    if len(signs) > 1:
        pos = [lv for lv in sig if lv.sign > 0]
        neg = [lv for lv in sig if lv.sign < 0]
        return Verdict(REVERSED, "", direction, f"significantly positive at {_names(pos)} "
                                                f"but negative at {_names(neg)}")
    if (sig and len(sig) < len(avail)) or size_sig:
        t = trend()
        if sig and len(sig) < len(avail):
            why = f"significant at {_names(sig)} only"
        else:
            why = "significant at every level" if sig else "not significant at any level"
        if size_sig:
            why += "; the strongest level differs significantly from the weakest"
        elif size is not None and not math.isnan(size.diff):
            # Significance alone can change with the games a level played: say so.
            why += " (the size change is not significant)"
        return Verdict(SKILL_DEPENDENT, t, direction, f"{why}; {t} with skill")
    return Verdict(NOT_FOUND, "", direction, "not significant at any level")
