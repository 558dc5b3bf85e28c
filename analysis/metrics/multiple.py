"""Many tests at once: Holm's correction, and intervals that agree with it.

A report tests a family of m hypotheses (every variant comparison, every cell's first
player against fair, every luck slope) and calls a result significant when its
Holm-adjusted p-value is below alpha (Holm 1979). An unadjusted 95% interval beside it can
exclude 0 while the result is not significant, which reads as a contradiction. So every
tested row also gets an *adjusted* interval that excludes 0 exactly when Holm rejects it:

**Step-down intervals consistent with Holm.** Sort the m p-values; Holm rejects the first
r of them (the longest run with (m - j + 1) p_(j) < alpha for every j up to it). A row of
rank j is decided at step k = min(j, r + 1): its own step when rejected, the step where
Holm stops otherwise. Its adjusted interval is its ordinary interval (t, Wilson) at level
1 - alpha / (m - k + 1). By the duality of test and interval (0 lies outside the level
1 - g interval exactly when p < g):

- a rejected row has p_(k) < alpha / (m - k + 1), so its interval excludes 0;
- a row not rejected has p >= p_(r+1) >= alpha / (m - r), so its interval holds 0.

"Significant" and "the adjusted interval excludes 0" therefore coincide, row by row. The
adjusted interval is never narrower than the unadjusted one (alpha / (m - k + 1) <= alpha)
and never wider than Bonferroni's at alpha / m. For the rows Holm does not reject it is the
(two-sided analogue of the) compatible simultaneous interval of Strassburger & Bretz (2008)
and Guilbaud (2008), level 1 - alpha / (m - r); for rejected rows those compatible
intervals assert the sign of the effect (what "significant" claims), and the interval at
Holm's step shown here is a guide to its size rather than a simultaneous guarantee.

References: S. Holm (1979), A simple sequentially rejective multiple test procedure,
Scand. J. Statist. 6, 65-70. K. Strassburger, F. Bretz (2008), Compatible simultaneous
lower confidence bounds for the Holm procedure and other Bonferroni-based closed tests,
Statist. Med. 27, 4914-4927. O. Guilbaud (2008), Simultaneous confidence regions
corresponding to Holm's step-down procedure and other closed-testing procedures, Biom. J.
50, 678-692.

p-values are written with as many digits as their label needs (`p_text`), so a reader can
tell 0.0497 (significant) from 0.0503 (not) at alpha = 0.05.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.metrics.common import StatError
from analysis.metrics.common import need_columns
from analysis.metrics.common import wilson_interval

ALPHA = 0.05
# An interval at per-row levels: (table, levels) -> (lower bounds, upper bounds).
IntervalAt = Callable[[pd.DataFrame, np.ndarray], tuple[np.ndarray, np.ndarray]]
METHOD = ("Holm step-down intervals: each tested row's interval at level "
          "1 - alpha/(m - k + 1), k the step of Holm's procedure that decides it "
          "(Holm 1979; compatible intervals: Strassburger & Bretz 2008, Guilbaud 2008)")


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values (NaN entries are left out of the family)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * q[i]))
        adj[i] = running
    out[ok] = adj
    return out


def holm_steps(pvalues: Sequence[float] | np.ndarray, alpha: float = ALPHA
               ) -> tuple[np.ndarray, np.ndarray]:
    """For each p-value, the step k of Holm's procedure that decides it and the local level
    alpha / (m - k + 1) it is tested at (NaN entries: NaN, outside the family).

    Rows Holm rejects are decided at their own rank; the others at the step where Holm
    stops (r + 1 after r rejections), so p < local level exactly when Holm rejects.
    """
    p = np.asarray(pvalues, dtype=float)
    step = np.full(p.shape, np.nan)
    local = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    if m == 0:
        return step, local
    order = ok[np.argsort(p[ok], kind="stable")]
    rejected = 0
    for rank, i in enumerate(order):
        if (m - rank) * p[i] < alpha:
            rejected += 1
        else:
            break
    ranks = np.arange(1, m + 1)
    k = np.minimum(ranks, rejected + 1)
    step[order] = k
    local[order] = alpha / (m - k + 1)
    return step, local


def p_text(p: float, alpha: float = ALPHA) -> str:
    """A p-value as its label reads: `<0.001`, `0.023`, and near alpha as many decimals as
    it takes for the written value to lie on the same side of alpha as the true one and not
    on alpha itself (`0.0497`, `0.0503`, never `0.050` for both); `–` when missing."""
    if p is None or np.isnan(p):
        return "–"
    if p < 0.001 < alpha:
        return "<0.001"
    for decimals in range(3, 7):
        text = f"{p:.{decimals}f}"
        shown = float(text)
        if shown != alpha and (shown < alpha) == (p < alpha):
            return text
    return f"{p:.4f}"  # p is alpha itself (to 6 decimals): not below it


def format_p(p: float, alpha: float = ALPHA) -> str:
    """'p < 0.001', 'p = 0.023', 'p = 0.0497' (digits as `p_text`), 'p n/a'."""
    if p is None or np.isnan(p):
        return "p n/a"
    text = p_text(p, alpha)
    return "p < 0.001" if text == "<0.001" else f"p = {text}"


@dataclass(frozen=True)
class TInterval:
    """`estimate ± t(dof) · se` at each row's level (columns `estimate`, `se`, `dof`): the
    interval of a t test (paired, Welch, a regression slope) at another level."""

    estimate: str = "diff"

    def __call__(self, df: pd.DataFrame, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        need_columns("TInterval", df, [self.estimate, "se", "dof"])
        est = df[self.estimate].to_numpy(dtype=float)
        se = df["se"].to_numpy(dtype=float)
        dof = df["dof"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            half = st.t.ppf(0.5 + np.asarray(level, dtype=float) / 2, dof) * se
        return est - half, est + half


@dataclass(frozen=True)
class WilsonInterval:
    """The Wilson interval of a share (columns `share`, `games`) at each row's level: the
    inversion of the score z test, so it excludes a value exactly when that test rejects it."""

    def __call__(self, df: pd.DataFrame, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        need_columns("WilsonInterval", df, ["share", "games"])
        games = df["games"].to_numpy(dtype=float)
        lo, hi = wilson_interval(df["share"].to_numpy(dtype=float) * games, games,
                                 np.asarray(level, dtype=float))
        return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


@dataclass(frozen=True)
class Holm:
    """Holm over the whole table: adds `p_holm`, `significant` (p_holm < alpha), `holm_m`
    (the family size: rows with a p-value), `holm_step` and `adj_level` (the confidence
    level of the row's adjusted interval, 1 - alpha / (m - step + 1)); with an `interval`
    (`TInterval`, `WilsonInterval`) also `adj_lo`, `adj_hi`, which exclude the tested
    value exactly when `significant`. Rows without a p-value get NaN there and are never
    significant. An empty table comes back with those columns, empty."""

    column: str = "p_value"
    alpha: float = ALPHA
    interval: IntervalAt | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.alpha, float | int) or not 0 < self.alpha < 1:
            raise StatError(f"Holm: alpha must be between 0 and 1, got {self.alpha!r}")

    def __call__(self, df: pd.DataFrame) -> pd.DataFrame:
        out = df.copy()
        if out.empty and self.column not in out.columns:
            out[self.column] = pd.Series(dtype=float)
        need_columns("Holm", out, [self.column])
        p = out[self.column].to_numpy(dtype=float)
        out["p_holm"] = holm(p)
        out["significant"] = out["p_holm"] < self.alpha
        step, local = holm_steps(p, self.alpha)
        out["holm_m"] = int((~np.isnan(p)).sum())
        out["holm_step"] = step
        out["adj_level"] = 1 - local
        if self.interval is not None:
            if out.empty:
                out["adj_lo"] = out["adj_hi"] = pd.Series(dtype=float)
            else:
                lo, hi = self.interval(out, out["adj_level"].to_numpy(dtype=float))
                untested = np.isnan(local)
                out["adj_lo"] = np.where(untested, np.nan, lo)
                out["adj_hi"] = np.where(untested, np.nan, hi)
        return out


def excludes(lo: float, hi: float, value: float = 0.0) -> bool:
    """Whether the closed interval [lo, hi] leaves `value` out (False when it is missing)."""
    return bool(lo > value or hi < value)
