"""A population study's charts: the 2-player meta-game as a heatmap of seat 0's share (with
its interval in every cell), and the skill curve (self-play at each budget beside the
answer whoever plays)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.figure import Figure

LABEL_CHARS = 22  # a bot's name is cut to this on the axes


def _short(name: str) -> str:
    text = name.replace("fastmcts:iterations=", "search ").replace("heuristic:weights=",
                                                                    "heuristic ")
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def heatmap(block: Mapping[str, Any], bots: Sequence[str], title: str) -> Figure:
    """Seat 0's share when seat 0 plays the row's bot and seat 1 the column's, each cell
    with its 95% bootstrap interval; the equilibrium's supports marked by their weights."""
    m = np.array(block["matrix"])
    lo, hi = np.array(block["matrix_lo"]), np.array(block["matrix_hi"])
    k = len(bots)
    notes = np.array([[f"{m[i, j]:.2f}\n[{lo[i, j]:.2f}, {hi[i, j]:.2f}]" for j in range(k)]
                      for i in range(k)])
    size = 1.6 + 1.5 * k
    fig, ax = plt.subplots(figsize=(size + 1.5, size * 0.8 + 1))
    sns.heatmap(m, ax=ax, annot=notes, fmt="", cmap="RdBu_r", vmin=0, vmax=1, center=0.5,
                cbar_kws={"label": "seat 0's win share"}, annot_kws={"size": 9})
    rows = [f"{_short(b)}\n(seat 0 picks {w:.0%})" for b, w in
            zip(bots, block["mixtures"]["seat 0"], strict=True)]
    cols = [f"{_short(b)}\n(seat 1 picks {w:.0%})" for b, w in
            zip(bots, block["mixtures"]["seat 1"], strict=True)]
    ax.set_yticklabels(rows, rotation=0, fontsize=8)
    ax.set_xticklabels(cols, rotation=0, fontsize=8)
    ax.set_ylabel("seat 0 (first player) plays")
    ax.set_xlabel("seat 1 plays")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def skill_curve(curve: Sequence[Mapping[str, Any]], answers: Mapping[str, Mapping[str, Any]],
                labels: Mapping[str, str], players: int) -> Figure:
    """Seat 0's share under self-play at each curve bot (weakest first, with Wilson
    intervals), per variant, beside the population's answer (a band: its interval)."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    variants = list(dict.fromkeys(c["variant"] for c in curve))
    bots = list(dict.fromkeys(c["bot"] for c in curve))
    colours = sns.color_palette("colorblind", len(variants))
    for k, (v, colour) in enumerate(zip(variants, colours, strict=True)):
        rows = [c for c in curve if c["variant"] == v]
        x = np.arange(len(rows)) + (k - (len(variants) - 1) / 2) * 0.08
        y = np.array([c["share"] for c in rows])
        err = np.array([[c["share"] - c["lo"] for c in rows], [c["hi"] - c["share"]
                                                                for c in rows]])
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, color=colour,
                    label=f"{labels.get(v, v)}: self-play")
        ans = answers.get(v)
        if ans:
            ax.axhspan(ans["lo"], ans["hi"], color=colour, alpha=0.15)
            ax.axhline(ans["estimate"], color=colour, linestyle="--", linewidth=1,
                       label=f"{labels.get(v, v)}: whoever plays")
    ax.axhline(1 / players, color="grey", linewidth=0.8, linestyle=":", label="fair")
    ax.set_xticks(range(len(bots)), [_short(b) for b in bots], fontsize=8)
    ax.set_ylabel("first player's win share")
    ax.set_title(f"{players} players: self-play at each level of play, and the answer "
                 "whoever plays (band: 95% interval)", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
