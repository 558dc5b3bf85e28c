"""The report's sweep section, computed: each headline measure against a swept switch
(`analysis.report.sweep_view` draws and tabulates it).

A study that sweeps a switch (`sweep = { stalls_per_player = [12, 14, 16, 18] }`, see
`analysis.study.switches`) or runs that differ in one switch only get this section: every
seat's win share, the first player's advantage, game length in rounds and the points by
source, each with its 95% interval, against the swept value (one panel per player count;
with two swept switches or several explicit variants, one line per value of the second
switch or per variant). The numbers come from the report's own tables (`analyse`), so the
section and the rest of the page agree; `sweep_summary` is summary.json's `sweep` block.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis.report.model import Analysis
from analysis.study import sweep_value
from analysis.study.switches import value_text

MEASURES: dict[str, str] = {
    "win share": "Win share by seat",
    "first player advantage": "First player's advantage (seat 0's share minus 1/n)",
    "rounds": "Game length (rounds, games that ended by the rules)",
    "points": "Points per player by source",
}


def _cells(a: Analysis) -> pd.DataFrame:
    """One row per cell: its variant, player count, swept value (`x`, as the rules have
    it, and `x_text`) and line (`group`: the explicit variant and/or second switch)."""
    info = a.data.sweep
    assert info is not None
    rows = []
    for c in a.data.cells:
        rules = c.run.rules()
        x = sweep_value(rules, info.keys[0], a.data.game)
        parts = [info.bases[c.variant]] if info.bases.get(c.variant) else []
        named = info.points.get(c.variant, {})
        parts += [f"{k} {named.get(k) or value_text(sweep_value(rules, k, a.data.game))}"
                  for k in info.keys[1:]]
        rows.append({"variant": c.variant, "n_players": c.players, "x": x,
                     "x_text": value_text(x), "group": " · ".join(parts)})
    return pd.DataFrame(rows)


def sweep_table(a: Analysis) -> pd.DataFrame | None:
    """The sweep in long form, or None without a sweep: `n_players, variant, label, x,
    x_text, group, measure, series, value, lo, hi` (series: `seat k`, a point source, or
    empty). Cached in the analysis' tables as `sweep`."""
    if a.data.sweep is None:
        return None
    if "sweep" in a.tables:
        return a.tables["sweep"]
    t = a.tables
    parts = []
    ws = t["win_shares"].assign(measure="win share", series="seat " + t["win_shares"][
        "seat"].astype(str), value=t["win_shares"]["share"])
    parts.append(ws)
    fp = t["first_player"].assign(measure="first player advantage", series="",
                                  value=t["first_player"]["advantage"],
                                  lo=t["first_player"]["adv_lo"], hi=t["first_player"]["adv_hi"])
    parts.append(fp)
    length = t["length"][t["length"]["measure"] == "rounds"]
    parts.append(length.assign(measure="rounds", series="", value=length["mean"]))
    if "points" in t:  # a game with point sources
        parts.append(t["points"].assign(measure="points", series=t["points"]["source"],
                                        value=t["points"]["mean"]))
    cols = ["variant", "n_players", "measure", "series", "value", "lo", "hi"]
    long = pd.concat([p[cols] for p in parts], ignore_index=True)
    long["variant"] = long["variant"].astype(str)
    out = _cells(a).merge(long, on=["variant", "n_players"], how="inner")
    out.insert(2, "label", out["variant"].map(lambda v: a.labels.get(v, v)))
    t["sweep"] = out
    return out
















def sweep_summary(a: Analysis) -> dict[str, Any] | None:
    """summary.json's `sweep` block: the swept switches, which one is the x axis, and
    every point of the section's charts (None without a sweep)."""
    df = sweep_table(a)
    if df is None or a.data.sweep is None:
        return None
    rows = json.loads(df.to_json(orient="records"))
    return {"keys": list(a.data.sweep.keys), "x": a.data.sweep.keys[0],
            "lines": a.data.sweep.keys[1] if len(a.data.sweep.keys) > 1 else None,
            "baseline": a.data.baseline, "measures": list(MEASURES), "points": rows}






