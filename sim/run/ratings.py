"""Small statistics the tournament and the analysis share."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default).

    `successes` may be fractional (a tie shares the win), which the formula takes as is.
    Equals `statsmodels.stats.proportion.proportion_confint(..., method="wilson")`.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(pairs: Sequence[tuple[str, str, float]], iterations: int = 500,
                  tol: float = 1e-10) -> dict[str, float]:
    """Bradley-Terry strengths from pairwise results `(a, b, score of a)` (1 win, 0.5 tie,
    0 loss), fitted by the MM algorithm (Hunter 2004) with a half-win prior against every
    other player so that an unbeaten player stays finite; returned on an Elo scale (400
    log10 of the strength ratio), centred on a mean of 0."""
    names = sorted({a for a, _, _ in pairs} | {b for _, b, _ in pairs})
    if not names:
        return {}
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    wins = [0.0] * k
    games = [[0.0] * k for _ in range(k)]
    for a, b, s in pairs:
        i, j = index[a], index[b]
        wins[i] += s
        wins[j] += 1.0 - s
        games[i][j] += 1.0
        games[j][i] += 1.0
    for i in range(k):  # the prior: one drawn game against every other player
        for j in range(k):
            if i != j:
                wins[i] += 0.5
                games[i][j] += 1.0
    strength = [1.0] * k
    for _ in range(iterations):
        new = []
        for i in range(k):
            denom = sum(games[i][j] / (strength[i] + strength[j]) for j in range(k) if j != i)
            new.append(wins[i] / denom if denom else strength[i])
        mean_log = sum(math.log(x) for x in new) / k
        new = [x / math.exp(mean_log) for x in new]
        change = max(abs(x - y) for x, y in zip(new, strength, strict=True))
        strength = new
        if change < tol:
            break
    return {name: 400.0 * math.log10(strength[index[name]]) for name in names}
