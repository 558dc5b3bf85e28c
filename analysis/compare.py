"""Variant against variant: differences with intervals and p-values, Holm-corrected, and
plain-language findings.

`GameMeasures` turns the games and players tables into one value per game and measure
(seat win shares, scores, margin, length, points by source, end reasons).
`VariantDifference` compares each variant with the baseline at each player count. When
the two runs played the same game seeds (common random numbers: a study gives every
variant the same seed, so game `i` is dealt alike), the comparison is paired game by game
(paired t interval and test on the per-game differences); otherwise it is Welch's
two-sample t. For a win share (a per-game value in [0, 1]) the t interval on the mean is
the usual large-sample interval for a difference of proportions.

`Holm` (from `analysis.metrics.multiple`) adjusts a family of p-values for many comparisons
(Holm's step-down method): a finding is called significant when its adjusted p-value is
below 0.05, and each comparison also gets a Holm step-down interval (`adj_lo`, `adj_hi`)
that excludes no change exactly when it is significant. Findings show both intervals: the
unadjusted 95% one and the one adjusted for the m comparisons of the family.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.facets import point_measures
from analysis.metrics import BY
from analysis.metrics import Margins
from analysis.metrics import StatError
from analysis.metrics.common import check_level
from analysis.metrics.common import need_columns
from analysis.metrics.multiple import ALPHA
from analysis.metrics.multiple import METHOD
from analysis.metrics.multiple import Holm
from analysis.metrics.multiple import TInterval
from analysis.metrics.multiple import WilsonInterval
from analysis.metrics.multiple import excludes
from analysis.metrics.multiple import format_p
from analysis.metrics.multiple import holm
from analysis.metrics.multiple import holm_steps
from analysis.metrics.multiple import p_text
from sim.games.registry import default_game
from sim.games.registry import kinds

__all__ = ["ALPHA", "METHOD", "POINTS", "ROUNDS", "SHARE", "Finding", "GameMeasures", "Holm",
           "TInterval", "VariantDifference", "WilsonInterval", "balance_findings", "bound",
           "difference_findings", "excludes", "format_p", "holm", "holm_steps",
           "luck_findings", "p_text", "pct", "pp", "precision_finding", "share_bound"]

# Measure kinds decide how numbers are written: shares in percent, the rest as numbers.
SHARE, POINTS, ROUNDS = "share", "points", "rounds"


# -- per-game measures ------------------------------------------------------------------------
class _GamePoints(Mapping[str, tuple[tuple[str, str], ...]]):
    """The point columns compared per player, by game name: (players-table column, measure
    name), as each game declares them in its report facet (`analysis.facets`)."""

    def __getitem__(self, game: str) -> tuple[tuple[str, str], ...]:
        if game not in kinds():
            raise KeyError(game)
        return point_measures(game)

    def __iter__(self) -> Iterator[str]:
        return iter(kinds())

    def __len__(self) -> int:
        return len(kinds())


GAME_POINTS: Mapping[str, tuple[tuple[str, str], ...]] = _GamePoints()


@dataclass(frozen=True)
class GameMeasures:
    """One value per game and measure, in long form (input: games and players tables).

    Output: `*by, game_id, seed, measure, kind, value`. Measures: `seat k win share` for
    every seat (but seat 1 at 2 players, which mirrors seat 0), `winning score`, `mean
    score`, `winning margin`, `tie for the win`, rounds of the games not stopped by the
    round limit (NaN for those), one `<reason> ending` share per end reason, and per-player
    means of the game's point columns (`points`, `GAME_POINTS` of its game; None: the
    default game's, Portobello Market's `lane points`, `district points`, `baron points`,
    `Bobby fees paid`).
    """

    by: tuple[str, ...] = BY
    points: tuple[tuple[str, str], ...] | None = None

    def __call__(self, games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
        points = GAME_POINTS[default_game()] if self.points is None else self.points
        keys = [*self.by, "game_id", "seed"]
        need_columns("GameMeasures", games, [*keys, "rounds", "turns", "end_reason"])
        columns = [col for col, _ in points]
        need_columns("GameMeasures", players, [*self.by, "game_id", "seat", "score", "win_share",
                                               *columns])
        parts: list[pd.DataFrame] = []

        def add(df: pd.DataFrame, measure: str, kind: str, column: str) -> None:
            parts.append(df[keys].assign(measure=measure, kind=kind,
                                         value=df[column].astype(float).to_numpy()))

        pl_ = players.merge(games[keys], on=[*self.by, "game_id"], how="left",
                            suffixes=("_p", ""))
        pl_ = pl_.drop(columns=[c for c in pl_.columns if c.endswith("_p")])
        for seat in sorted(pl_["seat"].unique()):
            # At 2 players seat 1's share is 1 - seat 0's: leave it out of the family.
            rows = pl_[(pl_["seat"] == seat) & ~((pl_["n_players"] == 2) & (seat == 1))] \
                if "n_players" in pl_.columns else pl_[pl_["seat"] == seat]
            add(rows, f"seat {seat} win share", SHARE, "win_share")
        m = Margins(by=self.by)(pl_)
        add(m, "winning score", POINTS, "winning_score")
        add(m, "mean score", POINTS, "mean_score")
        add(m, "winning margin", POINTS, "margin")
        add(m, "tie for the win", SHARE, "tied")
        # Length without the games stopped by the round limit (their share is a measure of
        # its own below); turns are rounds x players, so they add nothing.
        capped = games.assign(_rounds=games["rounds"].where(
            games["end_reason"].astype(str) != "round_limit"))
        add(capped, "rounds (round-limit games left out)", ROUNDS, "_rounds")
        for reason in sorted(games["end_reason"].astype(str).unique()):
            g = games.assign(_r=(games["end_reason"].astype(str) == reason))
            add(g, f"{reason.replace('_', ' ')} ending", SHARE, "_r")
        src = pl_.groupby(keys, observed=True)[columns].mean()
        src = src.reset_index()
        for col, name in points:
            add(src, f"{name} per player", POINTS, col)
        return pd.concat(parts, ignore_index=True)


# -- differences ------------------------------------------------------------------------------
@dataclass(frozen=True)
class VariantDifference:
    """Each variant minus the baseline, per player count and measure (input: GameMeasures).

    Output: `n_players, measure, kind, baseline, variant, n_base, n_variant, base_mean,
    variant_mean, diff, lo, hi, p_value, paired, test, se, dof`. Paired when both sides
    hold the same games with the same seeds; Welch otherwise. Measures constant on both
    sides get no p-value. `se` and `dof` are the test's, so `TInterval("diff")` gives its
    interval at any level (the Holm-adjusted one).
    """

    baseline: str
    by: tuple[str, ...] = ("n_players",)
    level: float = 0.95

    def __post_init__(self) -> None:
        if not isinstance(self.baseline, str) or not self.baseline:
            raise StatError(f"VariantDifference: baseline must be a variant name, got "
                            f"{self.baseline!r}")
        check_level("VariantDifference", self.level)

    def __call__(self, measures: pd.DataFrame) -> pd.DataFrame:
        need_columns("VariantDifference", measures, [*self.by, "variant", "game_id", "seed",
                                                     "measure", "kind", "value"])
        variants = [str(v) for v in pd.unique(measures["variant"])]
        if self.baseline not in variants:
            raise StatError(f"VariantDifference: baseline {self.baseline!r} is not among the "
                            f"variants ({', '.join(variants)})")
        rows = []
        measure_order = list(dict.fromkeys(measures["measure"]))
        for key, grp in measures.groupby([*self.by, "measure"], observed=True, sort=False):
            keys = dict(zip([*self.by, "measure"], key, strict=True))
            base = grp[grp["variant"] == self.baseline].set_index("game_id").sort_index()
            for v in variants:
                if v == self.baseline:
                    continue
                other = grp[grp["variant"] == v].set_index("game_id").sort_index()
                if base.empty or other.empty:
                    continue
                rows.append({**keys, "kind": grp["kind"].iloc[0], "baseline": self.baseline,
                             "variant": v, **self.difference(base, other)})
        out = pd.DataFrame(rows)
        if out.empty:
            return out
        out["_m"] = out["measure"].map({m: i for i, m in enumerate(measure_order)})
        out = out.sort_values([*self.by, "_m", "variant"], kind="stable").drop(columns="_m")
        return out.reset_index(drop=True)

    def difference(self, base: pd.DataFrame, other: pd.DataFrame) -> dict[str, Any]:
        """Compare two sides indexed by game_id (columns `seed`, `value`)."""
        paired = (len(base) == len(other) and base.index.equals(other.index)
                  and bool((base["seed"].to_numpy() == other["seed"].to_numpy()).all()))
        a = base["value"].to_numpy(dtype=float)
        b = other["value"].to_numpy(dtype=float)
        # Missing values (e.g. a length left out) drop the game from both sides when paired.
        if paired:
            keep = ~(np.isnan(a) | np.isnan(b))
            a, b = a[keep], b[keep]
        else:
            a, b = a[~np.isnan(a)], b[~np.isnan(b)]
        tq = 0.5 + self.level / 2
        if paired:
            d = b - a
            n = len(d)
            diff = _mean(d)
            sd = float(d.std(ddof=1)) if n > 1 else 0.0
            se = sd / np.sqrt(n) if n > 1 else np.nan
            dof = n - 1
            p = float(st.ttest_rel(b, a).pvalue) if sd > 0 else np.nan
            test = "paired t"
        else:
            diff = _mean(b) - _mean(a)
            if len(a) < 2 or len(b) < 2:  # no variance to estimate on a side
                va = vb = float("nan")
            else:
                va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
            se = float(np.sqrt(va + vb))
            dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) \
                if va + vb > 0 else np.nan
            p = float(st.ttest_ind(b, a, equal_var=False).pvalue) if va + vb > 0 else np.nan
            test = "Welch t"
        half = float(st.t.ppf(tq, dof)) * se if se > 0 and not np.isnan(se) else 0.0
        return {"n_base": len(a), "n_variant": len(b), "base_mean": _mean(a),
                "variant_mean": _mean(b), "diff": diff, "lo": diff - half,
                "hi": diff + half, "p_value": p, "paired": paired, "test": test,
                "se": float(se), "dof": float(dof)}


def _mean(x: np.ndarray) -> float:
    """The mean, NaN for no values (a measure every game of a cell left out, e.g. the
    length of a variant whose games all hit the round limit), without numpy's warning."""
    return float(x.mean()) if len(x) else float("nan")


# -- findings ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    """One sentence for the report's summary, with what it is about. `key` names the tested
    quantity (`("first player", n, variant, "seat 0 win share")`, `("effect", n, variant,
    measure)`) so a study with skill levels can give it its label across levels (`label`,
    `analysis.metrics.robustness`), or a skill ladder its own (`label_source`)."""

    text: str
    topic: str
    significant: bool
    weight: float = 0.0
    key: tuple[Any, ...] = ()
    label: str = ""
    label_source: str = ""  # whose label: "" this study's own levels, "skill ladder" a ladder's


def pct(x: float, digits: int = 1) -> str:
    """A share as a percentage for finding sentences: `41.2%`."""
    return f"{100 * x:.{digits}f}%"


def pp(x: float, digits: int = 1) -> str:
    """A difference of shares in signed percentage points: `+1.3 pp`."""
    return f"{100 * x:+.{digits}f} pp"


def _num(x: float, kind: str, signed: bool = False) -> str:
    """A measure's value as its kind reads: shares in % (or pp), others to 2 decimals."""
    if kind == SHARE:
        return pp(x) if signed else pct(x)
    return f"{x:+.2f}" if signed else f"{x:.2f}"


def bound(x: float, kind: str, digits: int | None = None, unit: bool = True) -> str:
    """An interval bound, signed, as its kind reads (`+0.4 pp`, `-1.25`; `unit=False`
    leaves out the ` pp`); a bound that would round to zero gets more digits (`+0.004 pp`),
    so an interval that leaves out 0 never reads as touching it."""
    base = (1 if kind == SHARE else 2) if digits is None else digits
    scale = 100.0 if kind == SHARE else 1.0
    suffix = " pp" if kind == SHARE and unit else ""
    if np.isnan(x):
        return "–"
    for d in range(base, base + 4):
        text = f"{scale * x:+.{d}f}"
        if float(text) != 0 or x == 0:
            break
    return text + suffix


def share_bound(x: float, fair: float) -> str:
    """A share's interval bound in %, with a second or third decimal when one would print
    it as the fair share it is compared with (`33.34%` beside a fair `33.3%`)."""
    for d in range(1, 4):
        text = f"{100 * x:.{d}f}"
        if text != f"{100 * fair:.{d}f}":
            break
    return text + "%"


def _label(labels: dict[str, str], v: str) -> str:
    """A variant's display label (its name when it has none)."""
    return labels.get(v, v)


def _adjusted(r: Any, lo: str, hi: str, what: str, fmt: Callable[[float], str],
              sep: str = " to ") -> str:
    """`; Holm-adjusted for m <what> <lo> to <hi>` when the row has adjusted bounds."""
    a, b = getattr(r, lo, None), getattr(r, hi, None)
    if a is None or b is None or np.isnan(a) or np.isnan(b):
        return ""
    m = int(getattr(r, "holm_m", 0))
    return f"; Holm-adjusted for {m} {what} {fmt(a)}{sep}{fmt(b)}"


def balance_findings(fpa: pd.DataFrame, balance: pd.DataFrame, labels: dict[str, str],
                     alpha: float = ALPHA) -> list[Finding]:
    """Per cell: the first player's share against fair and the seat balance test.

    `fpa` and `balance` must carry `p_holm` (Holm over the cells of each table); with
    `adj_lo`, `adj_hi` (Holm with `WilsonInterval`) the share's adjusted interval is shown
    too, and it leaves out the fair share exactly when the advantage is significant.
    """
    out = []
    merged = fpa.merge(balance[["variant", "n_players", "chi2", "p_holm", "best_seat",
                                "worst_seat", "spread"]],
                       on=["variant", "n_players"], suffixes=("", "_bal"))
    for r in merged.itertuples(index=False):
        sig = bool(r.p_holm < alpha)
        bal_sig = bool(r.p_holm_bal < alpha)
        verdict = ("significantly " + ("above" if r.advantage > 0 else "below") + " fair"
                   if sig else "not significantly different from fair")
        seats = (f"the seats are unequal (χ² = {r.chi2:.1f}, {format_p(r.p_holm_bal, alpha)}; "
                 f"best seat {r.best_seat}, worst seat {r.worst_seat}, "
                 f"{100 * r.spread:.1f} pp apart)" if bal_sig else
                 f"no significant seat imbalance (χ² {format_p(r.p_holm_bal, alpha)})")
        fair = float(r.fair)
        adj = _adjusted(r, "adj_lo", "adj_hi", "cells",
                        lambda x, fair=fair: share_bound(x, fair), "–")
        text = (f"{r.n_players} players, {_label(labels, str(r.variant))}: the first player "
                f"(seat 0) wins {pct(r.share)} of games (95% CI {pct(r.lo)}–{pct(r.hi)}{adj}) "
                f"against a fair {pct(r.fair)}, {pp(r.advantage)}, {verdict} "
                f"({format_p(r.p_holm, alpha)}, Holm); {seats}.")
        out.append(Finding(text, "balance", sig or bal_sig, abs(r.advantage),
                           key=("first player", int(r.n_players), str(r.variant),
                                "seat 0 win share")))
    return out


def difference_findings(diffs: pd.DataFrame, labels: dict[str, str], top: int = 8,
                        alpha: float = ALPHA) -> list[Finding]:
    """Sentences for the variant comparisons (input: VariantDifference + Holm).

    Seat 0's win share is always reported; other measures only when significant, the
    largest standardised effects first, at most `top` of them. Each sentence gives the 95%
    interval and, when the table has them, the Holm-adjusted one, which excludes no change
    exactly when the sentence says "significant".
    """
    out: list[Finding] = []
    if diffs.empty:
        return out

    def sentence(r: Any) -> str:
        verdict = "significant" if r.significant else "not significant"
        adj = _adjusted(r, "adj_lo", "adj_hi", "comparisons", lambda x: bound(x, r.kind))
        return (f"{r.n_players} players, {_label(labels, r.variant)} vs "
                f"{_label(labels, r.baseline)}: {r.measure} {_num(r.base_mean, r.kind)} → "
                f"{_num(r.variant_mean, r.kind)}, a change of {_num(r.diff, r.kind, True)} "
                f"(95% CI {bound(r.lo, r.kind)} to {bound(r.hi, r.kind)}{adj}), "
                f"{verdict} (Holm {format_p(r.p_holm, alpha)}).")

    def key(r: Any) -> tuple[Any, ...]:
        return ("effect", int(r.n_players), str(r.variant), str(r.measure))

    seat0 = diffs[diffs["measure"] == "seat 0 win share"]
    for r in seat0.itertuples(index=False):
        out.append(Finding(sentence(r), "variant", bool(r.significant), abs(r.diff), key(r)))
    rest = diffs[(diffs["measure"] != "seat 0 win share") & diffs["significant"]].copy()
    if not rest.empty:
        width = (rest["hi"] - rest["lo"]).replace(0, np.nan)
        rest["zscore"] = (rest["diff"].abs() / width).fillna(0)
        for r in rest.sort_values("zscore", ascending=False).head(top).itertuples(index=False):
            out.append(Finding(sentence(r), "variant", True, float(r.zscore), key(r)))
    n_other = int(((diffs["measure"] != "seat 0 win share") & diffs["p_value"].notna()).sum())
    n_sig = int(((diffs["measure"] != "seat 0 win share") & diffs["significant"]).sum())
    shown = min(n_sig, top)
    out.append(Finding(f"Of {n_other} other comparisons (scores, margins, length, endings, "
                       f"points by source), {n_sig} are significant after Holm correction"
                       + (f"; the {shown} largest are listed above." if n_sig else "."),
                       "variant", n_sig > 0))
    return out


def precision_finding(win_shares: pd.DataFrame, target: float, labels: dict[str, str]
                      ) -> Finding:
    """Do all seat win-share intervals meet the target half-width?"""
    worst = win_shares.sort_values("half_width", ascending=False).iloc[0]
    ok = bool((win_shares["half_width"] <= target).all())
    where = (f"{worst['n_players']} players, {_label(labels, str(worst['variant']))}, seat "
             f"{worst['seat']}")
    if ok:
        text = (f"Precision: every seat win-share interval is within ±{100 * target:.1f} pp "
                f"(widest ±{100 * worst['half_width']:.2f} pp: {where}).")
    else:
        p = float(worst["share"])
        need = int(np.ceil((1.96**2) * p * (1 - p) / target**2))
        text = (f"Precision: NOT every seat win-share interval is within ±{100 * target:.1f} "
                f"pp; the widest is ±{100 * worst['half_width']:.2f} pp ({where}, "
                f"{worst['games']} games); about {need} games per cell would be needed.")
    return Finding(text, "precision", ok)


LUCK_PHRASES = {"aristocrats_drawn": "extra aristocrat drawn",
                "aristocrat_surplus": "aristocrat drawn instead of a citizen",
                "aristocrat_ends": "extra aristocrat at the ends of the player's scored lanes"}


def luck_findings(effects: pd.DataFrame, labels: dict[str, str], alpha: float = ALPHA
                  ) -> list[Finding]:
    """Sentences for LuckEffect rows carrying `p_holm` (and the adjusted bounds, if any)."""
    out = []
    for r in effects.dropna(subset=["slope"]).itertuples(index=False):
        sig = bool(r.p_holm < alpha)
        what = LUCK_PHRASES.get(r.column, r.column.replace("_", " "))
        adj = _adjusted(r, "adj_lo", "adj_hi", "slopes", lambda x: bound(x, SHARE))
        out.append(Finding(
            f"{r.n_players} players, {_label(labels, str(r.variant))}: each {what} "
            f"changes a player's win share by {pp(r.slope)} (95% CI {bound(r.lo, SHARE)} to "
            f"{bound(r.hi, SHARE)}{adj}), {'significant' if sig else 'not significant'} "
            f"(Holm {format_p(r.p_holm, alpha)}).", "luck", sig, abs(r.slope)))
    return out
