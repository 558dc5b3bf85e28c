"""From games to the meta-game's answers, with bootstrap intervals.

The games of a population study are grouped by *profile*: the bot of every seat (indices
into the population). Within a profile, every variant played the same game seeds in the
same order, so one resample of a profile's games serves every variant: a variant's change
is measured on paired games. The answers are computed from the profiles' mean seat shares:

- 2 players: the matrix game's value for seat 0 (`analysis.metagame.solve.solve_zero_sum`)
  over the population, and over the population without its last bot (`next`: the
  convergence check);
- 3 and 4 players: the strongest stable symmetric profile (no seat gains more than
  `stable_margin` by switching bot) and every seat's share there.

A bootstrap replicate resamples each profile's games with replacement (a multinomial draw
of counts) and solves again; intervals are percentile intervals of the replicates, with a
bootstrap p-value beside each change so Holm's adjusted intervals
(`analysis.metrics.multiple`) agree with the verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import replace

import numpy as np

from analysis.metagame.solve import MetaGameError
from analysis.metagame.solve import best_deviation
from analysis.metagame.solve import stable_profiles

Profile = tuple[int, ...]
STABLE_MARGIN = 0.02  # a profile is stable when no switch gains more than this
BOOTSTRAP = 400  # replicates behind every interval


@dataclass(frozen=True)
class ProfileGames:
    """The games of every profile: `shares[profile]` has shape (variants, games, seats),
    the games in the same order in every variant (paired by seed)."""

    population: int  # bots in the population (indices 0..population-1)
    players: int
    variants: int
    shares: Mapping[Profile, np.ndarray]

    def games(self, profile: Profile) -> int:
        got = self.shares.get(profile)
        return 0 if got is None else int(got.shape[1])

    def only(self, profiles: Iterable[Profile]) -> ProfileGames:
        """The games of these profiles alone (the answers read the symmetric profiles and
        their switches; a study of the whole tensor holds more)."""
        keep = set(profiles)
        return replace(self, shares={p: s for p, s in self.shares.items() if p in keep})

    def means(self) -> dict[Profile, np.ndarray]:
        """Mean seat shares of every profile, shape (variants, seats)."""
        return {p: s.mean(axis=1) for p, s in self.shares.items() if s.shape[1]}

    def replicates(self, rng: np.random.Generator, count: int
                   ) -> dict[Profile, np.ndarray]:
        """`count` bootstrap replicates of every profile's mean seat shares, shape
        (count, variants, seats): each resamples the profile's games (the same games in
        every variant)."""
        out: dict[Profile, np.ndarray] = {}
        for p in sorted(self.shares):
            s = self.shares[p]
            g = s.shape[1]
            if not g:
                continue
            counts = rng.multinomial(g, np.full(g, 1.0 / g), size=count)  # (count, g)
            flat = s.transpose(1, 0, 2).reshape(g, -1)  # (g, variants * seats)
            out[p] = (counts @ flat / g).reshape(count, self.variants, self.players)
        return out


def symmetric(k: int, n: int, i: int) -> Profile:
    return (i,) * n


def deviated(k: int, n: int, i: int, j: int, seat: int) -> Profile:
    """Every seat plays bot i but `seat`, which plays j."""
    return tuple(j if s == seat else i for s in range(n))


def needed_profiles(k: int, n: int) -> list[Profile]:
    """The profiles a population of k bots plays at n players: 2 players every ordered
    pair; more, every symmetric profile and every one-seat switch from one."""
    if n == 2:
        return [(i, j) for i in range(k) for j in range(k)]
    out = [symmetric(k, n, i) for i in range(k)]
    out += [deviated(k, n, i, j, s) for i in range(k) for j in range(k) if j != i
            for s in range(n)]
    return out


def among(means: Mapping[Profile, np.ndarray], bots: int) -> dict[Profile, np.ndarray]:
    """The profiles whose every seat plays one of the first `bots` bots: the meta-game of
    the population without its later bots (the convergence check's `next`)."""
    return {p: v for p, v in means.items() if max(p) < bots}


def matrix(means: Mapping[Profile, np.ndarray], k: int, variant: int) -> np.ndarray:
    """Seat 0's share by (seat 0's bot, seat 1's bot) for one variant."""
    m = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            got = means.get((i, j))
            if got is None:
                raise MetaGameError(f"no games of the profile ({i}, {j})")
            m[i, j] = got[variant, 0]
    return m


def tables(means: Mapping[Profile, np.ndarray], k: int, n: int, variant: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """(symmetric[i, s], switched[i, j, s]) of one variant at n > 2 players: seat s's share
    when every seat plays i, and when seat s alone switches to j."""
    sym = np.empty((k, n))
    dev = np.empty((k, k, n))
    for i in range(k):
        sym[i] = means[symmetric(k, n, i)][variant]
        for j in range(k):
            for s in range(n):
                p = symmetric(k, n, i) if j == i else deviated(k, n, i, j, s)
                dev[i, j, s] = means[p][variant][s]
    return sym, dev


def lone_table(sym: np.ndarray, dev: np.ndarray) -> np.ndarray:
    """The one-against-the-field game: `lone[r, s]` is the seat-averaged share of one seat
    playing r among seats playing s (the diagonal: the symmetric profile's mean share)."""
    k, _n = sym.shape
    lone = np.empty((k, k))
    for r in range(k):
        for s in range(k):
            lone[r, s] = sym[s].mean() if r == s else dev[s, r, :].mean()
    return lone


def strongest_stable(gain: np.ndarray, margin: float = STABLE_MARGIN) -> tuple[int, bool]:
    """The strongest symmetric profile (the last in population order, bots listed weakest
    first) that no seat leaves for more than `margin`, and True; without one, the profile
    whose best switch gains least, and False."""
    stable = stable_profiles(gain, margin)
    if stable:
        return stable[-1], True
    best = [best_deviation(gain, i).gain for i in range(gain.shape[0])]
    return int(np.argmin(best)), False


@dataclass(frozen=True)
class Interval:
    """A bootstrap estimate: the point value and its 95% percentile interval."""

    estimate: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def to_dict(self) -> dict[str, float]:
        return {"estimate": self.estimate, "lo": self.lo, "hi": self.hi}


def percentile(point: float, reps: np.ndarray, level: float = 0.95) -> Interval:
    """The percentile interval of bootstrap replicates at `level`, taken from the sorted
    replicates so that it leaves out a value exactly when `bootstrap_p` is below 1 - level:
    the lower end is the ceil(B g / 2)-th smallest replicate (g = 1 - level)."""
    r = np.sort(np.asarray(reps, dtype=float))
    b = len(r)
    k = max(math.ceil(b * (1 - level) / 2) - 1, 0)
    return Interval(point, float(r[k]), float(r[b - 1 - k]))


def bootstrap_p(reps: np.ndarray, value: float = 0.0) -> float:
    """Two-sided bootstrap p-value of `value`: twice the smaller share of replicates on
    either side of it (at most 1)."""
    r = np.asarray(reps, dtype=float)
    low = float(np.mean(r <= value))
    high = float(np.mean(r >= value))
    return min(1.0, 2 * min(low, high))
