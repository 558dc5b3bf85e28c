"""The whole profile tensor of a population study at 3 and 4 players (`profiles = "all"`).

A run's seats rotate game by game, so a run plays a *line-up*: a multiset of n bots (a
sorted tuple of population indices), each bot's share averaged over its seats and the
rotations. `profiles = "deviations"` plays the k symmetric line-ups and the k (k - 1) with
one seat switched; `profiles = "all"` plays every line-up, C(k + n - 1, n) of them.

Alpha-Rank over the tensor (`analysis.metagame.solve.alpharank_tensor`) reads one
population a seat: seat s playing bot b in an ordered profile p gets b's share in the
line-up of p. The response graph behind it (Rowland et al. 2019) joins two line-ups that
differ by one seat's bot; an edge whose direction is still uncertain keeps both line-ups
playing (`open_lineups`), an edge settled or tied within the margin lets them stop.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations_with_replacement
from itertools import product

import numpy as np

Profile = tuple[int, ...]
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
SHARE_OF_REPLICATES = 0.05  # an edge's direction is uncertain in this share of replicates


def lineups(k: int, n: int) -> list[Profile]:
    """Every line-up of n seats from k bots, as sorted tuples (C(k + n - 1, n))."""
    return list(combinations_with_replacement(range(k), n))


def beyond_deviations(k: int, n: int) -> list[Profile]:
    """The line-ups `profiles = "all"` adds: no bot in n - 1 seats or more."""
    return [m for m in lineups(k, n) if max(m.count(b) for b in set(m)) <= n - 2]


def lineup_of(profile: Profile) -> Profile:
    return tuple(sorted(profile))


def bot_shares(means: Mapping[Profile, np.ndarray]) -> dict[tuple[Profile, int], np.ndarray]:
    """Each bot's mean share in each line-up, keyed (line-up, bot): the mean over the
    line-up's ordered profiles (its rotations, which hold the same games) and the bot's
    seats. Works on point means, shape (variants, seats), and on replicates, shape (B,
    variants, seats): the seat axis goes."""
    acc: dict[tuple[Profile, int], list[np.ndarray]] = {}
    for p in sorted(means):
        arr = means[p]
        for s, b in enumerate(p):
            acc.setdefault((lineup_of(p), b), []).append(arr[..., s])
    return {key: np.mean(np.stack(vals), axis=0) for key, vals in acc.items()}


def switched(lineup: Profile, a: int, b: int) -> Profile:
    """The line-up where one seat of bot a plays b."""
    rest = list(lineup)
    rest.remove(a)
    return lineup_of((*rest, b))


def seat_tables(shares: Mapping[tuple[Profile, int], np.ndarray], k: int, n: int,
                variant: int) -> list[np.ndarray]:
    """The payoff tables of alpha-Rank with one population a seat: table s has shape
    (k,) * n and holds seat s's share in every ordered profile (its bot's share in the
    profile's line-up), for one variant."""
    tables = [np.empty((k,) * n) for _ in range(n)]
    for p in product(range(k), repeat=n):
        m = lineup_of(p)
        for s in range(n):
            tables[s][p] = float(shares[m, p[s]][variant])
    return tables


def lineup_mass(pi: np.ndarray, k: int, n: int) -> dict[Profile, float]:
    """Alpha-Rank's stationary mass (over ordered profiles, shape (k,) * n or flat in C
    order) gathered by line-up."""
    flat = np.asarray(pi, dtype=float).reshape((k,) * n)
    out: dict[Profile, float] = {m: 0.0 for m in lineups(k, n)}
    for p in product(range(k), repeat=n):
        out[lineup_of(p)] += float(flat[p])
    return out


def bot_mass(pi: np.ndarray, k: int, n: int) -> np.ndarray:
    """Alpha-Rank's mass of each bot: the share of seats playing it, averaged over the
    stationary distribution (every seat alike, as the tables are)."""
    flat = np.asarray(pi, dtype=float).reshape((k,) * n)
    out = np.zeros(k)
    for s in range(n):
        out += flat.sum(axis=tuple(a for a in range(n) if a != s))
    return out / n


def open_lineups(point: Mapping[Profile, np.ndarray], reps: Mapping[Profile, np.ndarray],
                 k: int, margin: float) -> set[Profile]:
    """The line-ups on an edge of the response graph whose direction is still uncertain in
    some variant: a seat's gain from switching bot a to b (b's share after the switch minus
    a's before) has the other sign than its estimate in at least 5% of the bootstrap
    replicates, and its 95% half-width (1.96 standard deviations) is wider than `margin`
    (narrower, the edge is a tie at the precision asked). `point` maps every profile to
    its mean shares (variants, seats); `reps` maps it to its replicates (B, variants,
    seats)."""
    pt = bot_shares(point)
    rp = bot_shares(reps)
    out: set[Profile] = set()
    for (m, a) in sorted(pt):
        for b in range(a + 1, k):
            other = (switched(m, a, b), b)
            if other not in pt:
                continue
            est = pt[other] - pt[m, a]  # (variants,)
            diff = rp[other] - rp[m, a]  # (B, variants)
            wrong = np.mean(np.sign(diff) != np.sign(est), axis=0)
            wide = Z95 * diff.std(axis=0) > margin
            if np.any(wide & (wrong >= SHARE_OF_REPLICATES)):
                out |= {m, other[0]}
    return out
