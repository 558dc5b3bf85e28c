"""Racing the levels of play: which settings a dearer agent plays, and which become the
finalists, when a tuning spec lists several agents (cheapest first).

A setting is fair for every level of play only if it is fair for each, so its target is
the worst of its levels' (minimax: the largest of the targets it has under each agent).
Playing every setting the exploration found (the search's, the profiles', the
neighbourhood's) with every agent would spend most of the games where they tell least: on
the dearest agent's games of settings the cheap agent already shows to be far from fair.
So the candidates race, by successive halving with confidence bounds:

1. every candidate has been played with the cheapest agent (the exploration's games);
2. before each dearer level, a candidate stops when the lower 95% bound of its worst seat
   gap over the levels it has played exceeds `search.margin` (it cannot be within the
   margin at every level, whatever the dearer agents do: its worst gap can only grow), or
   exceeds the upper bound of the best candidate's (it cannot be the best); when no
   candidate can still be within the margin, only the second rule applies, and the race
   goes on for the best compromise;
3. of those left, the best by their worst target so far go on, at most half as many as
   the level before played (never fewer than the finalists), and each is played on the
   search's seeds with the next agent;
4. after the last level but one, the best `confirm.best` left are the finalists: the
   dearest agent plays them alone, on the confirmation's fresh seeds, as every level does.

Each decision reads the outcomes alone (and ties go to the order the settings were found
in), so a resumed tuning races the same way, whatever the execution. `Race.games` counts
what this saves against playing every candidate with every agent on the search's seeds
(the confirmation is the same either way).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from sim.tuning.fairness.outcome import Outcome
from sim.tuning.fairness.spec import Target

Setting = tuple[Any, ...]
KEEP = 2  # successive halving: a level plays at most 1/KEEP of the settings the one before did
STOPS = {"margin": "its worst gap's lower bound exceeds the margin",
         "bound": "its worst gap's lower bound exceeds the best setting's upper bound",
         "halving": "not among the best left"}


def worst_bounds(outcomes: Sequence[Outcome]) -> tuple[float, float]:
    """95% bounds of a setting's worst seat gap over the levels it has played (the largest
    of each level's bounds: the worst gap is at least any level's)."""
    bounds = [o.gap_bounds() for o in outcomes]
    return max(lo for lo, _ in bounds), max(hi for _, hi in bounds)


def minimax(outcomes: Sequence[Outcome], target: Target) -> float:
    """A setting's target over the levels it has played: the worst of them."""
    return max(o.target(target) for o in outcomes)


def worst_level(outcomes: Sequence[Outcome], target: Target) -> int:
    """The level whose target is the setting's (the first such, the cheapest)."""
    values = [o.target(target) for o in outcomes]
    return values.index(max(values))


def quota(played: int, finalists: int) -> int:
    """How many settings the next level may play after a level played `played`."""
    return max(finalists, -(-played // KEEP))


@dataclass
class Race:
    """One cell's race: every candidate's outcome at each level it played (cheapest
    first), where each stopped and why, and the settings each level played on the search's
    seeds (the dearest none: it plays the finalists in the confirmation)."""

    levels: int
    candidates: list[Setting]
    results: dict[Setting, list[Outcome]]
    stops: dict[Setting, tuple[int, str]] = field(default_factory=dict)  # after level i, why
    rungs: list[int] = field(default_factory=list)
    finalists: list[Setting] = field(default_factory=list)

    def advance(self, pool: Sequence[Setting], level: int, keep: int, margin: float,
                target: Target) -> list[Setting]:
        """The settings of `pool` (played up to `level`) that go on, best first; the others
        are marked stopped after `level`, with the reason."""
        bounds = {s: worst_bounds(self.results[s]) for s in pool}
        best_high = min(hi for _, hi in bounds.values())
        within = any(lo <= margin for lo, _ in bounds.values())
        left = []
        for s in pool:
            lo = bounds[s][0]
            if lo > best_high:
                self.stops[s] = (level, "bound")
            elif within and lo > margin:
                self.stops[s] = (level, "margin")
            else:
                left.append(s)
        left.sort(key=lambda s: (minimax(self.results[s], target), pool.index(s)))
        for s in left[keep:]:
            self.stops[s] = (level, "halving")
        return left[:keep]

    def games(self, per_setting: int, names: Sequence[str]) -> dict[str, Any]:
        """The search-seed games the race played and saved, in all and by level (`names`
        its agents), against playing every candidate with every level."""
        every = len(self.candidates) * per_setting
        played = self.rungs + [0] * (self.levels - len(self.rungs))
        total, games = every * self.levels, sum(played) * per_setting
        return {"every": total, "played": games, "saved": total - games,
                "by_level": [{"settings": n, "games": n * per_setting,
                              "saved": every - n * per_setting, "agents": name}
                             for n, name in zip(played, names, strict=True)]}


def race(candidates: Sequence[Setting], first: Mapping[Setting, Outcome],
         play: Callable[[Setting, int], Outcome], levels: int, finalists: int,
         margin: float, target: Target) -> Race:
    """Race `candidates` (in the order they were found; `first` their cheapest level's
    outcomes) through the levels after the first but the dearest, `play(setting, level)`
    playing one on the search's seeds; the race's finalists are the best `finalists` left."""
    out = Race(levels, list(candidates), {s: [first[s]] for s in candidates},
               rungs=[len(candidates)])
    pool = list(candidates)
    for level in range(1, levels - 1):
        pool = out.advance(pool, level - 1, quota(len(pool), finalists), margin, target)
        for s in pool:
            out.results[s].append(play(s, level))
        out.rungs.append(len(pool))
    if pool:
        out.finalists = out.advance(pool, max(levels - 2, 0), finalists, margin, target)
    return out
