"""The report's main tables as the page shows them: chosen columns, headers, formatted
numbers and highlighted rows, still as data (`analysis.report.table.Table`);
`analysis.report.page` writes them as HTML.
"""

from __future__ import annotations

import math

import pandas as pd

from analysis import compare as C
from analysis import metrics as M
from analysis.facets import report_facet
from analysis.facets import sources as game_sources
from analysis.report.model import Analysis
from analysis.report.table import Formatter
from analysis.report.table import Table
from analysis.report.table import _ci
from analysis.report.table import _level
from analysis.report.table import _num
from analysis.report.table import _p
from analysis.report.table import _pct
from analysis.report.table import _pp_interval
from analysis.report.table import frame_table


def _lab(a: Analysis) -> Formatter:
    """A formatter of variant names as their labels."""
    return lambda v: a.labels.get(str(v), str(v))


def display_tables(a: Analysis) -> dict[str, Table]:
    """Every table of the page by name (`headline` is the findings' summary table); tables
    of sections the runs cannot fill (no events, one variant, no anomalies) are absent."""
    t = a.tables
    lab = _lab(a)
    out: dict[str, Table] = {}
    ws = t["win_shares"].copy()
    ws["ci"] = [_ci(lo, hi) for lo, hi in zip(ws["lo"], ws["hi"], strict=True)]
    ws["ok"] = ws["half_width"] > a.target
    out["win_shares"] = frame_table(ws, {
        "n_players": ("players", str), "variant": ("variant", lab), "seat": ("seat", str),
        "games": ("games", _num(0)), "share": ("win share", _pct), "ci": ("95% CI", None),
        "half_width": ("± pp", lambda x: f"{100 * x:.2f}"), "fair": ("fair", _pct)},
        highlight="ok")
    fp = t["first_player"].merge(t["balance"], on=list(M.BY), suffixes=("", "_bal"))
    fp["adv_ci"] = [_pp_interval(lo, hi) for lo, hi in
                    zip(fp["adv_lo"], fp["adv_hi"], strict=True)]
    fp["adv_adj"] = [_pp_interval(lo, hi, lev) for lo, hi, lev in
                     zip(fp["adv_adj_lo"], fp["adv_adj_hi"], fp["adj_level"], strict=True)]
    out["balance"] = frame_table(fp, {
        "n_players": ("players", str), "variant": ("variant", lab), "games": ("games", _num(0)),
        "share": ("seat 0 share", _pct),
        "advantage": ("advantage (pp)", lambda x: f"{100 * x:+.1f}"),
        "adv_ci": ("95% CI (pp)", None), "adv_adj": ("Holm-adjusted CI (pp, level)", None),
        "p_holm": ("p (Holm)", _p),
        "chi2": ("χ² equal seats", _num(1)), "dof": ("df", str),
        "p_holm_bal": ("p (Holm)", _p),
        "spread": ("best − worst seat (pp)", lambda x: f"{100 * x:.1f}")},
        highlight="significant_bal")
    if "comparisons" in t:
        cmp_ = t["comparisons"].copy()

        def val(row: pd.Series, col: str, signed: bool = False) -> str:
            x = row[col]
            if row["kind"] == C.SHARE:
                return f"{100 * x:+.2f} pp" if signed else f"{100 * x:.2f}%"
            return f"{x:+.2f}" if signed else f"{x:.2f}"

        cmp_["base"] = [val(r, "base_mean") for _, r in cmp_.iterrows()]
        cmp_["var"] = [val(r, "variant_mean") for _, r in cmp_.iterrows()]
        cmp_["d"] = [val(r, "diff", True) for _, r in cmp_.iterrows()]
        cmp_["ci"] = [f"{C.bound(r['lo'], r['kind'], 2)} to {C.bound(r['hi'], r['kind'], 2)}"
                      for _, r in cmp_.iterrows()]
        cmp_["adj"] = ["–" if math.isnan(r["adj_lo"]) else
                       f"{C.bound(r['adj_lo'], r['kind'], 2)} to "
                       f"{C.bound(r['adj_hi'], r['kind'], 2)} ({_level(r['adj_level'])})"
                       for _, r in cmp_.iterrows()]
        out["comparisons"] = frame_table(cmp_, {
            "n_players": ("players", str), "measure": ("measure", None),
            "variant": ("variant", lab), "base": ("baseline", None), "var": ("variant value",
                                                                            None),
            "d": ("difference", None), "ci": ("95% CI", None),
            "adj": ("Holm-adjusted CI (level)", None), "test": ("test", None),
            "p_value": ("p", _p), "p_holm": ("p (Holm)", _p)}, highlight="significant",
            wrap=("measure", "ci", "adj", "test"))  # the page's width, not wider
    out["headline"] = headline(a)
    if (t["precision"]["mode"] == "precision").any():
        out["precision"] = precision_table(a)
    sc = t["scores"]
    out["scores"] = frame_table(sc, {
        "n_players": ("players", str), "variant": ("variant", lab), "n": ("player-games",
                                                                           _num(0)),
        "mean": ("mean", _num(1)), "lo": ("95% CI low", _num(1)), "hi": ("high", _num(1)),
        "sd": ("sd", _num(1)), "q10": ("10%", _num(0)), "median": ("median", _num(0)),
        "q90": ("90%", _num(0)), "min": ("min", _num(0)), "max": ("max", _num(0))})
    mg = t["margins"]
    out["margins"] = frame_table(mg, {
        "n_players": ("players", str), "variant": ("variant", lab), "n": ("games", _num(0)),
        "mean": ("mean margin", _num(1)), "lo": ("95% CI low", _num(1)),
        "hi": ("high", _num(1)), "median": ("median", _num(0)), "q90": ("90%", _num(0)),
        "tie_share": ("ties for the win", _pct)})
    out["length"] = frame_table(t["length"], {
        "n_players": ("players", str), "variant": ("variant", lab), "measure": ("measure",
                                                                                 None),
        "mean": ("mean", _num(2)), "lo": ("95% CI low", _num(2)), "hi": ("high", _num(2)),
        "sd": ("sd", _num(2)), "min": ("min", _num(0)), "median": ("median", _num(0)),
        "max": ("max", _num(0))})
    points = game_sources(a.data.game)
    if "points" in t and points is not None:
        pts = t["points"].pivot_table(index=["n_players", "variant"], columns="source",
                                      values="mean", observed=True).reset_index()
        sources = list(points.names)  # the game's, in scoring order
        pts["total"] = pts[sources].sum(axis=1)
        out["points"] = frame_table(pts, {
            "n_players": ("players", str), "variant": ("variant", lab),
            **{s: (s, _num(1)) for s in sources}, "total": ("= mean score", _num(1))})
    end = t["endings"].copy()
    end["ci"] = [_ci(lo, hi) for lo, hi in zip(end["lo"], end["hi"], strict=True)]
    out["endings"] = frame_table(end, {
        "n_players": ("players", str), "variant": ("variant", lab),
        "value": ("end reason", lambda x: str(x).replace("_", " ")),
        "count": ("games", _num(0)), "share": ("share", _pct), "ci": ("95% CI", None)})
    out.update(_event_tables(a))
    an = t["anomalies"]
    if not an.empty:
        level = {"level": ("skill level", None)} if "level" in an.columns else {}
        out["anomalies"] = frame_table(an, {
            **level, "n_players": ("players", str), "variant": ("variant", lab),
            "kind": ("what", None),
            "games": ("games", _num(0)), "share": ("share", _pct),
            "examples": ("examples: game (seed)", None)}, wrap=("examples",))
    return out


def _event_tables(a: Analysis) -> dict[str, Table]:
    """The event sections' tables (those the game offers and the runs could fill): when
    districts are scored, customer luck, lanes (with the board's printed spot values, from
    the game's report facet) and spots."""
    t = a.tables
    lab = _lab(a)
    out: dict[str, Table] = {}
    if "districts" in t:
        out["districts"] = frame_table(t["districts"], {
            "n_players": ("players", str), "variant": ("variant", lab), "token": ("token",
                                                                                 str),
            "scorings": ("scorings", _num(0)),
            "per_player_game": ("per player and game", _num(2)),
            "mean_round": ("mean round", _num(2)), "median_round": ("median", _num(0)),
            "q25_round": ("25%", _num(0)), "q75_round": ("75%", _num(0)),
            "mean_fraction": ("share of game elapsed", _pct),
            "mean_points": ("mean points", _num(2)), "mean_stalls": ("stalls bordering",
                                                                     _num(2))})
    if "luck_effects" in t:
        eff = t["luck_effects"].copy()
        eff["ci"] = [f"{100 * lo:+.2f} to {100 * hi:+.2f}" for lo, hi in
                     zip(eff["lo"], eff["hi"], strict=True)]
        eff["adj"] = [_pp_interval(lo, hi, lev, 2) for lo, hi, lev in
                      zip(eff["adj_lo"], eff["adj_hi"], eff["adj_level"], strict=True)]
        out["luck"] = frame_table(eff, {
            "n_players": ("players", str), "variant": ("variant", lab),
            "column": ("per extra", lambda x: C.LUCK_PHRASES.get(x, x)),
            "players": ("player-games", _num(0)),
            "slope": ("win share change (pp)", lambda x: f"{100 * x:+.2f}"),
            "ci": ("95% CI (pp)", None), "adj": ("Holm-adjusted CI (pp, level)", None),
            "r": ("correlation r", _num(3)),
            "p_holm": ("p (Holm)", _p)}, highlight="significant", wrap=("column",))
    if "lanes" in t:
        lanes = t["lanes"].copy()
        wide = lanes.pivot_table(index="lane", columns=["n_players", "variant"],
                                 values="points_per_game", observed=True)
        wide.columns = [f"{n}p · {a.labels.get(str(v), v)}" for n, v in wide.columns]
        wide = wide.reset_index()
        facet = report_facet(a.data.game)
        assert facet is not None  # a game offers the lanes section through its facet
        wide.insert(1, "spots", wide["lane"].map(facet.lane_spots(a.data.board)))
        out["lanes"] = frame_table(wide, {"lane": ("lane", None), "spots": ("spot values",
                                                                           None),
                                         **{c: (c, _num(1)) for c in wide.columns[2:]}})
        stalls = lanes.pivot_table(index="lane", columns=["n_players", "variant"],
                                   values="stalls_per_game", observed=True)
        stalls.columns = [f"{n}p · {a.labels.get(str(v), v)}" for n, v in stalls.columns]
        stalls = stalls.reset_index()
        out["lane_stalls"] = frame_table(stalls, {"lane": ("lane", None),
                                                 **{c: (c, _num(2)) for c in stalls.columns[1:]}})
        out["spots"] = frame_table(t["spots"], {
            "n_players": ("players", str), "variant": ("variant", lab),
            "spot_value": ("spot value", str), "stalls": ("stalls", _num(0)),
            "share": ("share of stalls", _pct)})
    return out


def headline(a: Analysis) -> Table:
    """One row per player count and variant: the first player's share, the spread between
    the best and worst seat, and the change in the first player's share from the baseline
    (with its label across skill levels, where a ladder or the study's levels give one)."""
    t = a.tables
    fp = t["first_player"].merge(t["balance"][["variant", "n_players", "spread", "best_seat",
                                               "significant"]],
                                 on=["variant", "n_players"], suffixes=("", "_bal"))
    cmp_ = t.get("comparisons")
    labels = {tuple(f.key): f.label for f in a.findings if f.key and f.label}
    # Whether the answer has converged at the top of the study's own ladder (if it has one).
    conv = {} if a.skill is None else {
        (r.kind, int(r.n_players), r.variant, r.measure): r.convergence_text
        for r in a.skill.findings.itertuples(index=False)}
    if a.ladder is not None:  # a report at one level: the ladder's word on its findings
        conv.update(a.ladder.convergence)
    rows = []
    for r in fp.itertuples(index=False):
        v = str(r.variant)
        row = {"n_players": r.n_players, "variant": a.labels.get(v, v),
               "first": f"{100 * r.share:.1f}% ({100 * r.lo:.1f}–{100 * r.hi:.1f})",
               "fair": f"{100 * r.fair:.1f}%",
               "spread": f"{100 * r.spread:.1f} pp" + (" *" if r.significant_bal else ""),
               "best": f"seat {r.best_seat}", "change": "baseline"}
        if v != a.data.baseline:
            d = None if cmp_ is None else cmp_[(cmp_["variant"] == v)
                                               & (cmp_["n_players"] == r.n_players)
                                               & (cmp_["measure"] == "seat 0 win share")]
            if d is not None and not d.empty:
                d0 = d.iloc[0]
                label = labels.get(("effect", r.n_players, v, "seat 0 win share"))
                top = conv.get(("effect", int(r.n_players), v, "seat 0 win share"))
                row["change"] = (f"{100 * d0['diff']:+.1f} pp "
                                 f"({_pp_interval(d0['adj_lo'], d0['adj_hi'])})"
                                 + (" *" if d0["significant"] else "")
                                 + (f" · {label}" if label else "")
                                 + (f" · {top}" if top else ""))
            else:
                row["change"] = "–"
        rows.append(row)
    return frame_table(pd.DataFrame(rows), {
        "n_players": ("players", str), "variant": ("variant", None),
        "first": ("first player wins (95% CI)", None), "fair": ("fair", None),
        "best": ("best seat", None), "spread": ("best − worst seat", None),
        "change": (f"first player vs {a.labels.get(a.data.baseline, a.data.baseline)} "
                   "(Holm-adjusted CI)", None)})


STOPPED_TEXT = {"target": "on target", "maximum": "at the maximum"}


def precision_table(a: Analysis) -> Table:
    """What each cell played to a precision reached and cost: its widest seat's
    half-width against its target, its games against its maximum, its rounds and why it
    stopped (cells of a fixed count say so). Highlighted: target not met."""
    pr = a.tables["precision"].copy()
    seq = pr["mode"] == "precision"
    pr["reached"] = [f"±{100 * h:.2f} pp (seat {s})" for h, s in
                     zip(pr["half_width"], pr["widest_seat"], strict=True)]
    pr["aim"] = [f"±{100 * x:.2f} pp" if q else "–" for x, q in
                 zip(pr["target"], seq, strict=True)]
    pr["rounds"] = [f"{int(f):,} then {int(r):,} per round" if q else "–" for f, r, q in
                    zip(pr["first_games"], pr["round_games"], seq, strict=True)]
    pr["most"] = [f"{int(m):,}" if q else "–" for m, q in zip(pr["max_games"], seq,
                                                                strict=True)]
    pr["stop"] = ["fixed count" if not q else STOPPED_TEXT.get(str(x), "unfinished")
                  for x, q in zip(pr["stopped"], seq, strict=True)]
    pr["short"] = seq & (pr["stopped"] != "target")
    return frame_table(pr, {
        "n_players": ("players", str), "variant": ("variant", _lab(a)),
        "reached": ("widest seat ± (95%)", None), "aim": ("target", None),
        "games": ("games played", _num(0)), "most": ("maximum", None),
        "rounds": ("first round, rounds", None), "looks": ("looks", _num(0)),
        "stop": ("stopped", None)}, highlight="short")

