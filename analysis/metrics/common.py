"""What every statistic shares: the grouping columns, the point sources, the error type,
parameter and column checks, and the Wilson and t intervals.

Win shares use the Wilson score interval on the mean share (a game is one trial, a k-way
tie gives each winner 1/k); means use the t interval. Both live here so every table of a
report computes its intervals the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

BY: tuple[str, ...] = ("variant", "n_players")


@dataclass(frozen=True)
class Sources:
    """A game's point sources: (name, players-table column) in scoring order, the names
    that count against the score (Bobby fees paid) and the colours the game gives some of
    them. The final score is their sum. Each game declares its own in its report facet
    (`analysis.facets.sources`)."""

    columns: tuple[tuple[str, str], ...]
    negative: tuple[str, ...] = ()
    colours: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)


class StatError(ValueError):
    """A statistic built with a bad parameter, or called on a table that lacks a column."""


def z_value(level: float) -> float:
    """Two-sided normal quantile for a confidence level (1.96 for 0.95)."""
    return float(st.norm.ppf(0.5 + level / 2))


def wilson_interval(successes: Any, n: Any, level: Any = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion `successes / n` (successes may be fractional);
    `level` may be one level or one per row (Holm-adjusted intervals)."""
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    z = st.norm.ppf(0.5 + np.asarray(level, dtype=float) / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / m
        denom = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def check_level(owner: str, level: float) -> None:
    """Refuse a confidence level outside (0, 1), naming the statistic."""
    if not isinstance(level, float | int) or not 0 < level < 1:
        raise StatError(f"{owner}: level must be a number between 0 and 1, got {level!r}")


def check_by(owner: str, by: Sequence[str]) -> None:
    """Refuse a `by` that is not a tuple of column names (a bare string would split)."""
    if isinstance(by, str) or not all(isinstance(b, str) for b in by):
        raise StatError(f"{owner}: by must be a tuple of column names, got {by!r}")


def need_columns(owner: str, df: pd.DataFrame, columns: Sequence[str]) -> None:
    """Refuse a table without the columns a statistic reads, listing those it has."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise StatError(f"{owner}: the table has no column(s) {', '.join(missing)} "
                        f"(columns: {', '.join(map(str, df.columns))})")


def groups(df: pd.DataFrame, by: Sequence[str]) -> Any:
    """The table grouped by `by`: observed categories only, sorted, as every statistic groups."""
    return df.groupby(list(by), observed=True, sort=True)


def mean_ci_columns(mean: np.ndarray, sd: np.ndarray, n: np.ndarray, level: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """`mean_ci`'s interval for many groups at once, from their means, standard deviations
    (ddof 1) and sizes: (lo, hi)."""
    mean, sd, n = (np.asarray(x, float) for x in (mean, sd, n))
    half = np.full(mean.shape, np.nan)
    many = n > 1
    t = st.t.ppf(0.5 + level / 2, np.maximum(n - 1, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        half[many] = np.where(sd[many] > 0, t[many] * sd[many] / np.sqrt(n[many]), 0.0)
    return mean - half, mean + half


def mean_ci(values: np.ndarray, level: float) -> tuple[float, float, float, float]:
    """Mean, standard deviation and the t interval of the mean."""
    n = len(values)
    mean = float(np.mean(values)) if n else float("nan")
    sd = float(np.std(values, ddof=1)) if n > 1 else float("nan")
    lo, hi = mean_ci_columns(np.array([mean]), np.array([sd]), np.array([n]), level)
    return mean, sd, float(lo[0]), float(hi[0])
