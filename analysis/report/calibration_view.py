"""The calibration section as the page shows it: its table, the section's text and its
figure, from what `analysis.report.calibration` computed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from analysis import plots as P
from analysis.metrics.calibration import FAR_RATIO
from analysis.metrics.calibration import REAL_PLAY
from analysis.report.calibration import REF
from analysis.report.calibration import _band
from analysis.report.calibration import _where
from analysis.report.calibration import far_levels
from analysis.report.model import Analysis
from analysis.report.table import Table
from analysis.report.table import frame_table


def calibration_tables(a: Analysis) -> dict[str, Table]:
    """The section's table (`calibration`): one row per cell (and level), in study order."""

    cal = a.tables.get("calibration")
    if cal is None or cal.empty:
        return {}
    df = cal.copy()
    levels = getattr(a.skill, "level_labels", {}) if a.skill is not None else {}
    pct = lambda x: "–" if pd.isna(x) else f"{100 * x:.0f}%"  # noqa: E731
    num = lambda x: "–" if pd.isna(x) else f"{x:.1f}"  # noqa: E731
    df["tpp"] = [f"{m:.2f} ({lo:.2f}–{hi:.2f})" for m, lo, hi in
                 zip(df["turns_per_player"], df["tpp_lo"], df["tpp_hi"], strict=True)]
    df["ratio_text"] = ["–" if pd.isna(x) else f"{x:.2f}x (of {r:g})"
                        for x, r in zip(df["ratio"], df["reference"], strict=True)]
    df["flag"] = ["no reference" if f is None or (isinstance(f, float) and np.isnan(f))
                  else "FAR from real play" if f else "close" for f in df["far"]]
    df["acts"] = [" · ".join(num(r[f"{k}_per_player"]) for k in ("stalls", "customers",
                                                                   "districts"))
                  for _, r in df.iterrows()]
    df["shares"] = [" / ".join(pct(r[f"{k}_share"]) for k in ("stalls", "customers",
                                                                "districts"))
                    for _, r in df.iterrows()]
    df["far_hl"] = df["far"].astype(object).eq(True)
    df["variant"] = [a.labels.get(str(v), str(v)) for v in df["variant"]]
    columns: dict[str, tuple[str, Any]] = {}
    if "level" in df.columns:
        df["level"] = [levels.get(str(x), str(x)) for x in df["level"]]
        columns["level"] = ("skill level", None)
    columns |= {"n_players": ("players", str), "variant": ("variant", None),
                "games": ("games", lambda x: f"{x:,}"),
                "tpp": ("turns per player (95% CI)", None),
                "ratio_text": ("against real play", None),
                "flag": (f"{FAR_RATIO[0]:g}x–{FAR_RATIO[1]:g}x", None),
                "acts": ("stalls · customers · districts per player", None),
                "shares": ("share of actions (same order)", None),
                "round_limit_share": ("round-limit games", pct)}
    return {"calibration": frame_table(df, columns, highlight="far_hl")}

def calibration_context(a: Analysis) -> dict[str, Any]:
    """What the page's calibration section says besides its table: the references and
    their sources, the band, and the far levels."""
    cal = a.tables.get("calibration")
    levels = getattr(a.skill, "level_labels", {}) if a.skill is not None else {}
    far = [levels.get(x, x) for x in far_levels(cal)] if cal is not None else []
    has_ref = cal is not None and bool(cal["reference"].notna().any())
    far_cells = ([_where(r, a.labels, levels) + f", {r['n_players']} players"
                  for _, r in cal[cal["far"].astype(object).eq(True)].iterrows()]
                 if cal is not None else [])
    return {"turns": REF["value"], "turns_source": REF["source"],
            "turns_players": " and ".join(map(str, REF["players"])),
            "minutes": REAL_PLAY["minutes"]["value"],
            "minutes_source": REAL_PLAY["minutes"]["source"],
            "band": _band(), "ratio": f"{FAR_RATIO[0]:g}x–{FAR_RATIO[1]:g}x",
            "far_levels": far, "far_cells": far_cells, "has_reference": has_ref,
            "figure": "calibration" if a.skill is not None else None}

def calibration_figure(cal: pd.DataFrame, levels: Sequence[str], level_labels: dict[str, str],
                       labels: dict[str, str]) -> Figure:
    """Turns per player against skill level, one panel per player count, a line per
    variant with 95% intervals; where real play has a reference, its value (dashed) and the
    band of `FAR_RATIO` around it (shaded)."""
    with mpl.rc_context(P.RC):
        counts = sorted(cal["n_players"].unique())
        fig, axes = P._facets(len(counts), height=3.3, width=max(6.0, 4.0 * len(counts)))
        variants = list(dict.fromkeys(cal["variant"].astype(str)))
        colours = P.variant_colours(variants)
        x_of = {lv: i for i, lv in enumerate(levels)}
        for ax, n in zip(axes, counts, strict=True):
            sub = cal[cal["n_players"] == n]
            for j, v in enumerate(variants):
                d = sub[sub["variant"].astype(str) == v]
                d = d.assign(_x=d["level"].astype(str).map(x_of)).sort_values("_x")
                x = d["_x"].to_numpy(dtype=float) + (j - (len(variants) - 1) / 2) * 0.06
                y = d["turns_per_player"].to_numpy(dtype=float)
                ax.errorbar(x, y, yerr=P._err(y, d["tpp_lo"], d["tpp_hi"]), color=colours[v],
                            marker="o", ms=5, capsize=3, lw=1.6)
            ref = sub["reference"].dropna()
            if not ref.empty:
                r = float(ref.iloc[0])
                ax.axhspan(r * FAR_RATIO[0], r * FAR_RATIO[1], color="#e8f4ec", zorder=0, lw=0)
                ax.axhline(r, **P.FAIR_STYLE)
            names = [level_labels.get(lv, lv) for lv in levels]
            # Long level names slant (as in the skill figures) rather than overlap.
            ax.set_xticks(range(len(levels)), names,
                          rotation=0 if sum(len(x) for x in names) < 28 else 20,
                          ha="center" if sum(len(x) for x in names) < 28 else "right")
            ax.set_xlim(-0.4, len(levels) - 0.6)
            ax.set_title(f"{n} players")
            ax.set_xlabel("skill level (weakest first)")
        axes[0].set_ylabel("turns per player (95% CI)")
        handles = [Line2D([], [], color=colours[v], marker="o", lw=2) for v in variants]
        names = [labels.get(v, v) for v in variants]
        if cal["reference"].notna().any():
            handles += [Line2D([], [], **{k: v for k, v in P.FAIR_STYLE.items() if k != "zorder"}),
                        Patch(color="#e8f4ec")]
            names += ["real play (reported)", f"{FAR_RATIO[0]:g}x–{FAR_RATIO[1]:g}x of it"]
        fig.legend(handles, names, loc="outside lower center", ncols=min(len(handles), 5))
        fig.suptitle("Game length against skill, beside real play", fontsize=11,
                     fontweight="bold")
        return fig
