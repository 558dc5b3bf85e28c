"""Charts of study statistics: one consistent style, one function per chart.

Every function takes the output of a statistic from `analysis.metrics` or
`analysis.compare` (plus variant labels) and returns a matplotlib `Figure` built without
pyplot, so nothing global is touched and figures can be embedded in reports or shown in
notebooks (`display(fig)`). Facets are player counts; colours are variants, the same
colour for the same variant in every chart (the baseline first).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.ticker import PercentFormatter

from analysis.metrics.common import Sources

RC: dict[str, object] = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "axes.edgecolor": "#444444",
    "axes.grid": True,
    "grid.color": "#e3e3e3",
    "grid.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "font.family": "DejaVu Sans",
}
PALETTE = sns.color_palette("colorblind", 10)
FAIR_STYLE = {"color": "#222222", "ls": "--", "lw": 1.1, "zorder": 2.5}
WIDTH = 10.0


def variant_colours(variants: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """The colour of each variant, in study order."""
    return {v: PALETTE[i % len(PALETTE)] for i, v in enumerate(variants)}


def _variants(df: pd.DataFrame) -> list[str]:
    """The variants present in a table, in study order (categorical) or as they come."""
    col = df["variant"]
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = set(col.astype(str))
        return [str(c) for c in col.cat.categories if c in present]
    return list(dict.fromkeys(col.astype(str)))


def _label(labels: Mapping[str, str] | None, v: str) -> str:
    """A variant's display label (its name when it has none)."""
    return (labels or {}).get(v, v)


def _facets(n: int, height: float = 3.6, width: float = WIDTH, sharey: bool = False
            ) -> tuple[Figure, list[Axes]]:
    """A figure of `n` side-by-side panels (one per player count), without pyplot."""
    fig = Figure(figsize=(max(width, 3.7 * n), height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, n, sharey=sharey, squeeze=False)[0]
    return fig, list(axes)


def _legend(fig: Figure, variants: Sequence[str], colours: Mapping[str, object],
            labels: Mapping[str, str] | None, extra: Sequence[tuple[Line2D, str]] = ()) -> None:
    """One legend of the variants' colours (plus `extra` entries) below the panels."""
    handles = [Line2D([], [], color=colours[v], marker="o", lw=2) for v in variants]
    names = [_label(labels, v) for v in variants]
    for h, n in extra:
        handles.append(h)
        names.append(n)
    fig.legend(handles, names, loc="outside lower center", ncols=min(len(handles), 5))


def _err(mid: object, lo: object, hi: object) -> np.ndarray:
    """Error bar lengths below and above (never negative from rounding)."""
    m, lo_, hi_ = (np.asarray(v, dtype=float) for v in (mid, lo, hi))
    return np.maximum(np.vstack([m - lo_, hi_ - m]), 0.0)


def _cells_top_down(df: pd.DataFrame) -> pd.DataFrame:
    """(variant, n_players) pairs for horizontal bars: fewest players and baseline on top
    (rows are drawn bottom-up, so the order is reversed)."""
    order = {v: i for i, v in enumerate(_variants(df))}
    rows = df[["variant", "n_players"]].drop_duplicates().assign(
        _o=lambda d: d["variant"].astype(str).map(order))
    return rows.sort_values(["n_players", "_o"], ascending=[False, False]).drop(columns="_o")


def seat_win_shares(ws: pd.DataFrame, labels: Mapping[str, str] | None = None) -> Figure:
    """Win share by seat with 95% intervals, one panel per player count (WinShare)."""
    with mpl.rc_context(RC):
        counts = sorted(ws["n_players"].unique())
        variants = _variants(ws)
        colours = variant_colours(variants)
        fig, axes = _facets(len(counts))
        k = len(variants)
        for ax, n in zip(axes, counts, strict=True):
            sub = ws[ws["n_players"] == n]
            for i, v in enumerate(variants):
                d = sub[sub["variant"].astype(str) == v]
                x = d["seat"].to_numpy() + (i - (k - 1) / 2) * 0.18
                ax.errorbar(x, d["share"], yerr=_err(d["share"], d["lo"], d["hi"]),
                            fmt="o", color=colours[v], ms=6, capsize=3, lw=1.6)
                if k <= 2:
                    left = i == 0 and k == 2
                    for xi, yi in zip(x, d["share"], strict=True):
                        ax.annotate(f"{100 * yi:.1f}", (xi, yi), xytext=(-5 if left else 5, 0),
                                    textcoords="offset points", va="center", fontsize=7.5,
                                    ha="right" if left else "left", color=colours[v])
            ax.axhline(1 / n, **FAIR_STYLE)
            ax.set_xticks(range(n), [f"seat {s}" + (" (first)" if s == 0 else "")
                                     for s in range(n)])
            ax.set_title(f"{n} players")
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            ax.set_xlim(-0.6, n - 0.4)
            lo, hi = sub["lo"].min(), sub["hi"].max()
            pad = 0.15 * (hi - lo) + 0.01
            ax.set_ylim(min(lo, 1 / n) - pad, max(hi, 1 / n) + pad)
        axes[0].set_ylabel("win share (95% CI)")
        _legend(fig, variants, colours, labels,
                [(Line2D([], [], **{k2: v2 for k2, v2 in FAIR_STYLE.items() if k2 != "zorder"}),
                  "fair share 1/n")])
        return fig


def score_distributions(players: pd.DataFrame, labels: Mapping[str, str] | None = None
                        ) -> Figure:
    """Final scores by player count and variant (violins with quartiles)."""
    with mpl.rc_context(RC):
        variants = _variants(players)
        colours = variant_colours(variants)
        fig, (ax,) = _facets(1, height=3.8)
        d = players.assign(variant=players["variant"].astype(str),
                           players=players["n_players"].astype(str) + " players")
        sns.violinplot(data=d, x="players", y="score", hue="variant", hue_order=variants,
                       palette=colours, inner="quart", cut=0, density_norm="width",
                       linewidth=0.8, ax=ax, legend=False,
                       order=[f"{n} players" for n in sorted(players["n_players"].unique())])
        ax.set_xlabel("")
        ax.set_ylabel("final score (all seats)")
        ax.set_title("Score distributions (lines: quartiles)")
        _legend(fig, variants, colours, labels)
        return fig


def _ecdf_facets(df: pd.DataFrame, column: str, xlabel: str, title: str,
                 labels: Mapping[str, str] | None, style_col: str | None = None,
                 styles: Mapping[object, str] | None = None,
                 ylabel: str = "share of games at or below") -> Figure:
    """Empirical CDFs of `column`, one panel per player count, one line per variant (and
    per `style_col` value when given)."""
    counts = sorted(df["n_players"].unique())
    variants = _variants(df)
    colours = variant_colours(variants)
    fig, axes = _facets(len(counts), sharey=True)
    for ax, n in zip(axes, counts, strict=True):
        sub = df[df["n_players"] == n]
        for v in variants:
            dv = sub[sub["variant"].astype(str) == v]
            groups = [(None, dv)] if style_col is None else list(dv.groupby(style_col))
            for key, g in groups:
                x = np.sort(g[column].to_numpy(dtype=float))
                if not len(x):
                    continue
                y = np.arange(1, len(x) + 1) / len(x)
                ls = (styles or {}).get(key, "-") if style_col else "-"
                ax.step(x, y, where="post", color=colours[v], lw=1.8, ls=ls)
        ax.set_title(f"{n} players")
        ax.set_xlabel(xlabel)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylabel(ylabel)
    extra = []
    if style_col and styles:
        extra = [(Line2D([], [], color="#333333", ls=ls), f"{style_col} {key}")
                 for key, ls in styles.items()]
    _legend(fig, variants, colours, labels, extra)
    fig.suptitle(title, fontsize=11, fontweight="bold")
    return fig


def margins(m: pd.DataFrame, labels: Mapping[str, str] | None = None) -> Figure:
    """Winning margin (winner minus runner-up; 0 = tie), cumulative (Margins)."""
    with mpl.rc_context(RC):
        return _ecdf_facets(m, "margin", "winning margin (points)",
                            "Winning margins (cumulative; further left = closer games)", labels)


def game_length(games: pd.DataFrame, labels: Mapping[str, str] | None = None) -> Figure:
    """Share of games by number of rounds, per player count (games table).

    Games stopped by the round limit are left out of the curves (they would stretch the
    axis to the limit) and their share is written in each panel.
    """
    with mpl.rc_context(RC):
        counts = sorted(games["n_players"].unique())
        variants = _variants(games)
        colours = variant_colours(variants)
        fig, axes = _facets(len(counts), sharey=True)
        for ax, n in zip(axes, counts, strict=True):
            sub = games[games["n_players"] == n]
            notes = []
            for v in variants:
                dv = sub[sub["variant"].astype(str) == v]
                limited = dv["end_reason"].astype(str) == "round_limit" \
                    if "end_reason" in dv else pd.Series(False, index=dv.index)
                r = dv.loc[~limited, "rounds"]
                freq = r.value_counts(normalize=True).sort_index() * (1 - limited.mean())
                ax.plot(freq.index, freq.to_numpy(), marker="o", ms=3.5, color=colours[v],
                        lw=1.6)
                if len(r):
                    ax.axvline(r.median(), color=colours[v], lw=0.9, ls=":")
                if limited.any():
                    notes.append((colours[v], f"{100 * limited.mean():.1f}% hit the round "
                                              f"limit ({int(dv['rounds'].max())})"))
            for i, (colour, text) in enumerate(notes):
                ax.text(0.98, 0.97 - 0.08 * i, text, transform=ax.transAxes, ha="right",
                        va="top", fontsize=8, color=colour,
                        bbox={"fc": "white", "ec": "none", "alpha": 0.9, "pad": 1.5})
            ax.set_title(f"{n} players")
            ax.set_xlabel("rounds played (dotted: median)")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        top = max(ax.get_ylim()[1] for ax in axes)
        axes[0].set_ylim(0, top * (1.1 + 0.09 * len(variants)))
        axes[0].set_ylabel("share of games")
        _legend(fig, variants, colours, labels)
        return fig


def source_colours(sources: Sources) -> dict[str, Any]:
    """Each of a game's point sources' colour: the game's own (`Sources.colours`), else the
    palette's in scoring order."""
    return {s: sources.colours.get(s, PALETTE[i % len(PALETTE)])
            for i, s in enumerate(sources.names)}


def points_by_source(pbs: pd.DataFrame, labels: Mapping[str, str] | None,
                     sources: Sources) -> Figure:
    """Mean points per player by the game's sources (`analysis.facets.sources`), stacked
    in scoring order; a source counting against the score (Bobby fees paid) to the left
    (PointsBySource)."""
    gained = [s for s in sources.names if s not in sources.negative]
    colours = source_colours(sources)
    with mpl.rc_context(RC):
        rows = _cells_top_down(pbs)
        fig = Figure(figsize=(WIDTH, 0.45 * len(rows) + 1.6), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        ticks = []
        for y, r in enumerate(rows.itertuples(index=False)):
            d = pbs[(pbs["variant"] == r.variant) & (pbs["n_players"] == r.n_players)]
            d = d.set_index("source")["mean"]
            left = 0.0
            big = 6 if float(d.abs().sum()) > 40 else 2  # label what is wide enough to read
            for source in gained:
                val = float(d.get(source, 0.0))
                ax.barh(y, val, left=left, color=colours[source], height=0.7,
                        edgecolor="white", lw=0.5)
                if val >= big:
                    ax.text(left + val / 2, y, f"{val:.0f}", ha="center", va="center",
                            fontsize=8, color="white" if source != "start" else "#333333")
                left += val
            paid = 0.0
            for source in sources.negative:
                val = float(d.get(source, 0.0))
                ax.barh(y, val, left=paid, color=colours[source], height=0.7,
                        edgecolor="white", lw=0.5)
                paid += val
            total = left + paid
            ax.text(left + 1, y, f"= {total:.1f}", va="center", fontsize=8.5,
                    fontweight="bold")
            ticks.append(f"{r.n_players}p · {_label(labels, str(r.variant))}")
        ax.set_yticks(range(len(ticks)), ticks)
        ax.axvline(0, color="#333333", lw=0.8)
        ax.set_xlabel("mean points per player (= mean final score)")
        ax.set_title("Where points come from")
        handles = [Line2D([], [], color=colours[s], lw=8) for s in sources.names]
        ax.legend(handles, list(sources.names), loc="upper center", ncols=6,
                  bbox_to_anchor=(0.5, -0.12 if len(rows) > 4 else -0.2))
        ax.grid(axis="y", visible=False)
        xmax = ax.get_xlim()[1]
        ax.set_xlim(right=xmax * 1.06)
        return fig


def district_timing(scorings: pd.DataFrame, labels: Mapping[str, str] | None = None
                    ) -> Figure:
    """When districts are scored, by token (2: solid, 4: dashed), cumulative over rounds
    (DistrictTiming.scorings)."""
    with mpl.rc_context(RC):
        tokens = sorted(scorings["token"].unique())
        dashes = ["-", "--", ":", "-."]
        styles = {t: dashes[i % len(dashes)] for i, t in enumerate(tokens)}
        return _ecdf_facets(scorings, "round", "round in which the district was scored",
                            "District scoring: when, and with which token", labels,
                            style_col="token", styles=styles,
                            ylabel="share of district scorings by then")


def share_by_level(sbl: pd.DataFrame, xlabel: str, title: str,
                   labels: Mapping[str, str] | None = None) -> Figure:
    """Win share by level of a count with 95% intervals (ShareByLevel)."""
    with mpl.rc_context(RC):
        counts = sorted(sbl["n_players"].unique())
        variants = _variants(sbl)
        colours = variant_colours(variants)
        fig, axes = _facets(len(counts))
        k = len(variants)
        for ax, n in zip(axes, counts, strict=True):
            sub = sbl[sbl["n_players"] == n]
            levels = sub[["order", "level"]].drop_duplicates().sort_values("order")
            pos = {lv: i for i, lv in enumerate(levels["level"])}
            for i, v in enumerate(variants):
                d = sub[sub["variant"].astype(str) == v]
                x = np.array([pos[lv] for lv in d["level"]]) + (i - (k - 1) / 2) * 0.15
                ax.errorbar(x, d["share"], yerr=_err(d["share"], d["lo"], d["hi"]),
                            fmt="o-", color=colours[v], ms=4.5, capsize=2.5, lw=1.3)
            ax.axhline(1 / n, **FAIR_STYLE)
            ax.set_xticks(range(len(pos)), list(pos))
            ax.set_title(f"{n} players")
            ax.set_xlabel(xlabel)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            ax.set_ylim(0, min(1.0, max(0.05, sub["hi"].max()) * 1.08))
        axes[0].set_ylabel("win share (95% CI)")
        _legend(fig, variants, colours, labels)
        fig.suptitle(title, fontsize=11, fontweight="bold")
        return fig


def seat_differences(diffs: pd.DataFrame, labels: Mapping[str, str] | None = None) -> Figure:
    """Variant minus baseline in seat win shares (VariantDifference + Holm with an interval).

    Thick pale bars: the Holm-adjusted interval (`adj_lo`, `adj_hi`); thin bars with caps:
    the unadjusted 95% interval. A marker is filled exactly when the comparison is
    significant (`significant`), which is exactly when its thick bar clears zero. Artists
    carry gids (`adjusted`, `unadjusted`, `significant`, `not significant`) for checks.
    """
    with mpl.rc_context(RC):
        d = diffs[diffs["measure"].str.endswith("win share")].copy()
        d["row"] = d["n_players"].astype(str) + "p · " + d["measure"].str.replace(
            " win share", "")
        rows = list(dict.fromkeys(d["row"]))
        variants = list(dict.fromkeys(d["variant"].astype(str)))
        all_variants = [str(d["baseline"].iloc[0]), *variants] if len(d) else variants
        colours = variant_colours(all_variants)
        fig = Figure(figsize=(WIDTH * 0.8, 0.42 * len(rows) + 1.6), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        k = len(variants)
        has_adj = {"adj_lo", "adj_hi"} <= set(d.columns)
        for i, v in enumerate(variants):
            dv = d[d["variant"].astype(str) == v]
            y = np.array([rows.index(r) for r in dv["row"]]) + (i - (k - 1) / 2) * 0.24
            x = 100 * dv["diff"].to_numpy()
            if has_adj:
                adj = ax.errorbar(x, y, xerr=_err(x, 100 * dv["adj_lo"], 100 * dv["adj_hi"]),
                                  fmt="none", ecolor=colours[v], alpha=0.35, lw=7,
                                  capsize=0)
                adj.lines[2][0].set_gid("adjusted")
            raw = ax.errorbar(x, y, xerr=_err(x, 100 * dv["lo"], 100 * dv["hi"]), fmt="none",
                              ecolor=colours[v], capsize=3, lw=1.3)
            raw.lines[2][0].set_gid("unadjusted")
            sig = dv["significant"].to_numpy(dtype=bool) if "significant" in dv else \
                np.zeros(len(dv), bool)
            ax.scatter(x[sig], y[sig], color=colours[v], s=40, zorder=3, gid="significant")
            ax.scatter(x[~sig], y[~sig], facecolor="white", edgecolor=colours[v], s=40,
                       zorder=3, lw=1.5, gid="not significant")
        ax.axvline(0, color="#333333", lw=1)
        ax.set_yticks(range(len(rows)), rows)
        ax.invert_yaxis()
        ax.set_xlabel("change in win share vs baseline (percentage points)")
        base = _label(labels, all_variants[0]) if all_variants else ""
        ax.set_title(f"Seat win shares: each variant minus {base}")
        handles = [Line2D([], [], color=colours[v], marker="o", lw=1.5) for v in variants]
        names = [_label(labels, v) for v in variants]
        if has_adj:
            m = int(d["holm_m"].max()) if "holm_m" in d and len(d) else 0
            handles.append(Line2D([], [], color="#333333", alpha=0.35, lw=7))
            names.append(f"Holm-adjusted interval ({m} comparisons)")
        handles += [Line2D([], [], color="#333333", lw=1.3, marker="|", ms=8),
                    Line2D([], [], color="#333333", marker="o", lw=0),
                    Line2D([], [], color="#333333", marker="o", mfc="white", lw=0)]
        names += ["unadjusted 95% interval", "significant (Holm): adjusted bar clears 0",
                  "not significant"]
        fig.legend(handles, names, loc="outside lower center", ncols=3, fontsize=8.5)
        return fig


def end_reasons(props: pd.DataFrame, labels: Mapping[str, str] | None = None) -> Figure:
    """How games end: share of each end reason per cell (Proportions of end_reason)."""
    with mpl.rc_context(RC):
        rows = _cells_top_down(props)
        reasons = sorted(props["value"].unique())
        colours = dict(zip(reasons, sns.color_palette("Set2", len(reasons)), strict=True))
        fig = Figure(figsize=(WIDTH * 0.75, 0.4 * len(rows) + 1.4), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        for y, r in enumerate(rows.itertuples(index=False)):
            d = props[(props["variant"] == r.variant) & (props["n_players"] == r.n_players)]
            left = 0.0
            for reason in reasons:
                s = float(d[d["value"] == reason]["share"].sum())
                ax.barh(y, s, left=left, color=colours[reason], height=0.7)
                if s > 0.08:
                    ax.text(left + s / 2, y, f"{100 * s:.0f}%", ha="center", va="center",
                            fontsize=8)
                left += s
        ax.set_yticks(range(len(rows)), [f"{r.n_players}p · {_label(labels, str(r.variant))}"
                                         for r in rows.itertuples(index=False)])
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_xlim(0, 1)
        ax.grid(axis="y", visible=False)
        ax.set_title("How games end")
        ax.legend([Line2D([], [], color=colours[r], lw=8) for r in reasons],
                  [r.replace("_", " ") for r in reasons], loc="upper center", ncols=3,
                  bbox_to_anchor=(0.5, -0.15))
        return fig


def to_png(fig: Figure, dpi: int = 90) -> bytes:
    """A figure as PNG bytes (reduced to a 256-colour palette when Pillow is available)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return shrink_png(buf.getvalue())


def shrink_png(data: bytes) -> bytes:
    """Quantise a PNG to 256 colours without dithering (charts have few colours)."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow comes with matplotlib
        return data
    img = Image.open(io.BytesIO(data)).convert("RGB")
    small = img.quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                         dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue() if out.tell() < len(data) else data
