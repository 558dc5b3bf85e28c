"""One self-contained HTML report per study: findings on top, then tables, charts, the exact
configuration and seeds, and anomalies.

`analyse(data)` computes every table and finding from a `StudyData` (the same objects the
notebooks use); `figures(analysis)` draws the charts; `build_report(data, out)` writes
`out/index.html` (figures embedded as PNG data URIs, no external files, opens offline) and
`out/summary.json` (the findings and main tables as data).
"""

from __future__ import annotations

import base64
import html
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from analysis import compare as C
from analysis import metrics as M
from analysis import plots as P
from analysis.study import StudyData

TEMPLATE = "report.html.j2"
EVENT_ACTIONS = ("score_district", "place_stall", "score_lane", "score_lane_baron",
                 "draw_customer", "place_customer", "place_baron")
SECTIONS = ("findings", "win-shares", "balance", "comparisons", "scores", "length", "points",
            "districts", "endings", "luck", "lanes", "anomalies", "configuration", "method")


@dataclass
class Analysis:
    """Every table and finding of a report."""

    data: StudyData
    labels: dict[str, str]
    target: float
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    findings: list[C.Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def lane_ends(data: StudyData) -> dict[str, tuple[str, str]]:
    b = data.board
    return {b.lane_ids[i]: (b.square_ids[x], b.square_ids[y])
            for i, (x, y) in enumerate(b.lane_ends)}


def analyse(data: StudyData, target_half_width: float | None = None) -> Analysis:
    """Compute the report's tables and findings."""
    study = data.study or {}
    target = float(target_half_width or study.get("spec", {}).get("target_half_width", 0.015))
    a = Analysis(data=data, labels=data.labels, target=target)
    t = a.tables
    games, players = data.games(), data.players()
    t["win_shares"] = M.WinShare()(players)
    t["balance"] = C.Holm()(M.SeatBalance()(players))
    t["first_player"] = C.Holm()(M.FirstPlayerAdvantage()(players))
    t["scores"] = M.Describe(("score",))(players)
    t["margins_games"] = M.Margins()(players)
    margins = M.Describe(("margin",))(t["margins_games"])
    ties = t["margins_games"].groupby(list(M.BY), observed=True)["tied"].mean()
    t["margins"] = margins.merge(ties.rename("tie_share").reset_index(), on=list(M.BY))
    # Length of the games that ended by the rules (round-limit games are anomalies).
    t["length"] = M.Describe(("rounds", "turns"))(
        games[games["end_reason"].astype(str) != "round_limit"])
    t["points"] = M.PointsBySource()(players)
    t["endings"] = M.Proportions("end_reason")(games)
    t["anomalies"] = M.Anomalies()(games, players)
    if len(data.variants) > 1:
        diffs = C.VariantDifference(data.baseline)(C.GameMeasures()(games, players))
        t["comparisons"] = C.Holm()(diffs)
    if data.has_events:
        ev = data.events(EVENT_ACTIONS)
        timing = M.DistrictTiming()
        t["district_scorings"] = timing.scorings(ev, games)
        t["districts"] = timing(ev, games)
        lanes = M.LaneUsage(lanes=data.board.lane_ids)(ev, games)
        t["lanes"] = lanes
        t["spots"] = M.SpotUsage()(ev)
        exposure = M.CustomerExposure(lane_ends(data))(players, ev)
        t["exposure"] = exposure
        t["luck_ends"] = M.ShareByLevel("aristocrat_ends", cap=12, width=2)(exposure)
        t["luck_drawn"] = M.ShareByLevel("aristocrat_surplus", cap=3, floor=-3)(exposure)
        effects = pd.concat([M.LuckEffect("aristocrat_surplus", scale=2)(exposure),
                             M.LuckEffect("aristocrat_ends")(exposure)], ignore_index=True)
        t["luck_effects"] = C.Holm()(effects)
    else:
        a.notes.append("These runs have no events table, so district timing, customer luck "
                       "and lane usage are left out (run studies with events = true).")

    for name, df in t.items():
        if {"variant", "n_players"} <= set(df.columns) and name not in ("exposure",
                                                                       "district_scorings"):
            df = df.assign(variant=pd.Categorical(df["variant"].astype(str),
                                                  categories=data.variants, ordered=True))
            keys = ["n_players", "variant"] + [k for k in ("seat", "measure", "source", "token",
                                                           "order", "spot_value")
                                               if k in df.columns and k != "measure"]
            t[name] = df.sort_values(keys, kind="stable").reset_index(drop=True)

    findings = [C.precision_finding(t["win_shares"], target, a.labels)]
    if "comparisons" in t:
        findings += C.difference_findings(t["comparisons"], a.labels)
    findings += C.balance_findings(t["first_player"], t["balance"], a.labels)
    if "luck_effects" in t:
        drawn = t["luck_effects"]
        drawn = drawn[drawn["column"] == "aristocrat_surplus"]
        findings += C.luck_findings(drawn, a.labels)
    a.findings = findings
    return a


def figures(a: Analysis) -> dict[str, Any]:
    """The report's charts: name -> matplotlib Figure (or PNG bytes for the board)."""
    t, L = a.tables, a.labels
    data = a.data
    figs: dict[str, Any] = {
        "win_shares": P.seat_win_shares(t["win_shares"], L),
        "scores": P.score_distributions(data.players(), L),
        "margins": P.margins(t["margins_games"], L),
        "length": P.game_length(data.games(), L),
        "points": P.points_by_source(t["points"], L),
        "endings": P.end_reasons(t["endings"], L),
    }
    if "comparisons" in t:
        figs["comparisons"] = P.seat_differences(t["comparisons"], L)
    if "district_scorings" in t:
        figs["districts"] = P.district_timing(t["district_scorings"], L)
        figs["luck_drawn"] = P.share_by_level(
            t["luck_drawn"], "aristocrats minus citizens the player drew",
            "Win share by the luck of the draw (chance in the drawn order; chosen in the "
            "known order)", L)
        figs["luck_ends"] = P.share_by_level(
            t["luck_ends"], "aristocrats at the player's scored lanes",
            "Win share by aristocrats at the player's own lanes", L)
        lanes = t["lanes"]
        for v in data.variants:
            per_lane = lanes[lanes["variant"].astype(str) == v].groupby("lane")[
                "points_per_game"].mean()
            counts = ", ".join(map(str, data.player_counts))
            figs[f"board_{v}"] = P.board_heat(
                data.board, per_lane.to_dict(),
                f"{L.get(v, v)}: points scored per game on each lane "
                f"(mean over {counts} players)")
    return figs


# -- formatting -------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _ci(lo: float, hi: float, pct: bool = True) -> str:
    if pct:
        return f"{100 * lo:.1f}–{100 * hi:.1f}%"
    return f"{lo:.2f} to {hi:.2f}"


def _p(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def _num(digits: int = 1) -> Callable[[Any], str]:
    def f(x: Any) -> str:
        if x is None or (isinstance(x, float) and math.isnan(x)):
            return "–"
        return f"{x:,.{digits}f}"
    return f


def table_html(df: pd.DataFrame, columns: Mapping[str, tuple[str, Callable[[Any], str] | None]],
               highlight: str | None = None, wrap: tuple[str, ...] = ()) -> str:
    """An HTML table of chosen columns: {column: (header, formatter)}; rows where the
    `highlight` column is true are marked; `wrap` columns may break long text."""
    heads = "".join(f"<th>{html.escape(h)}</th>" for h, _ in columns.values())
    body = []
    for _, row in df.iterrows():
        cells = []
        for col, (_, fmt) in columns.items():
            v = row[col]
            text = fmt(v) if fmt else str(v)
            num = isinstance(v, int | float | np.integer | np.floating) and not isinstance(
                v, bool | np.bool_)
            cls = "num" if num else "txt wrap" if col in wrap else "txt"
            cells.append(f'<td class="{cls}">{html.escape(text)}</td>')
        cls = ' class="hl"' if highlight and bool(row.get(highlight, False)) else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f'<table><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def _lab(a: Analysis) -> Callable[[Any], str]:
    return lambda v: a.labels.get(str(v), str(v))


def _tables_html(a: Analysis) -> dict[str, str]:
    t = a.tables
    lab = _lab(a)
    out: dict[str, str] = {}
    ws = t["win_shares"].copy()
    ws["ci"] = [_ci(lo, hi) for lo, hi in zip(ws["lo"], ws["hi"], strict=True)]
    ws["ok"] = ws["half_width"] > a.target
    out["win_shares"] = table_html(ws, {
        "n_players": ("players", str), "variant": ("variant", lab), "seat": ("seat", str),
        "games": ("games", _num(0)), "share": ("win share", _pct), "ci": ("95% CI", None),
        "half_width": ("± pp", lambda x: f"{100 * x:.2f}"), "fair": ("fair", _pct)},
        highlight="ok")
    fp = t["first_player"].merge(t["balance"], on=list(M.BY), suffixes=("", "_bal"))
    fp["ci"] = [_ci(lo, hi) for lo, hi in zip(fp["lo"], fp["hi"], strict=True)]
    fp["adv_ci"] = [f"{100 * lo:+.1f} to {100 * hi:+.1f}" for lo, hi in
                    zip(fp["adv_lo"], fp["adv_hi"], strict=True)]
    out["balance"] = table_html(fp, {
        "n_players": ("players", str), "variant": ("variant", lab), "games": ("games", _num(0)),
        "share": ("seat 0 share", _pct), "ci": ("95% CI", None),
        "advantage": ("advantage (pp)", lambda x: f"{100 * x:+.1f}"),
        "adv_ci": ("95% CI (pp)", None), "p_holm": ("p (Holm)", _p),
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
        cmp_["ci"] = [f"{val(r, 'lo', True)} to {val(r, 'hi', True)}"
                      for _, r in cmp_.iterrows()]
        out["comparisons"] = table_html(cmp_, {
            "n_players": ("players", str), "measure": ("measure", None),
            "variant": ("variant", lab), "base": ("baseline", None), "var": ("variant value",
                                                                            None),
            "d": ("difference", None), "ci": ("95% CI", None), "test": ("test", None),
            "p_value": ("p", _p), "p_holm": ("p (Holm)", _p)}, highlight="significant")
    out["headline"] = _headline(a)
    sc = t["scores"]
    out["scores"] = table_html(sc, {
        "n_players": ("players", str), "variant": ("variant", lab), "n": ("player-games",
                                                                           _num(0)),
        "mean": ("mean", _num(1)), "lo": ("95% CI low", _num(1)), "hi": ("high", _num(1)),
        "sd": ("sd", _num(1)), "q10": ("10%", _num(0)), "median": ("median", _num(0)),
        "q90": ("90%", _num(0)), "min": ("min", _num(0)), "max": ("max", _num(0))})
    mg = t["margins"]
    out["margins"] = table_html(mg, {
        "n_players": ("players", str), "variant": ("variant", lab), "n": ("games", _num(0)),
        "mean": ("mean margin", _num(1)), "lo": ("95% CI low", _num(1)),
        "hi": ("high", _num(1)), "median": ("median", _num(0)), "q90": ("90%", _num(0)),
        "tie_share": ("ties for the win", _pct)})
    out["length"] = table_html(t["length"], {
        "n_players": ("players", str), "variant": ("variant", lab), "measure": ("measure",
                                                                                 None),
        "mean": ("mean", _num(2)), "lo": ("95% CI low", _num(2)), "hi": ("high", _num(2)),
        "sd": ("sd", _num(2)), "min": ("min", _num(0)), "median": ("median", _num(0)),
        "max": ("max", _num(0))})
    pts = t["points"].pivot_table(index=["n_players", "variant"], columns="source",
                                  values="mean", observed=True).reset_index()
    pts["total"] = pts[list(M.SOURCES)].sum(axis=1)
    out["points"] = table_html(pts, {
        "n_players": ("players", str), "variant": ("variant", lab),
        **{s: (s, _num(1)) for s in M.SOURCES}, "total": ("= mean score", _num(1))})
    end = t["endings"].copy()
    end["ci"] = [_ci(lo, hi) for lo, hi in zip(end["lo"], end["hi"], strict=True)]
    out["endings"] = table_html(end, {
        "n_players": ("players", str), "variant": ("variant", lab),
        "value": ("end reason", lambda x: str(x).replace("_", " ")),
        "count": ("games", _num(0)), "share": ("share", _pct), "ci": ("95% CI", None)})
    if "districts" in t:
        out["districts"] = table_html(t["districts"], {
            "n_players": ("players", str), "variant": ("variant", lab), "token": ("token",
                                                                                 str),
            "scorings": ("scorings", _num(0)),
            "per_player_game": ("per player and game", _num(2)),
            "mean_round": ("mean round", _num(2)), "median_round": ("median", _num(0)),
            "q25_round": ("25%", _num(0)), "q75_round": ("75%", _num(0)),
            "mean_fraction": ("share of game elapsed", _pct),
            "mean_points": ("mean points", _num(2)), "mean_stalls": ("stalls bordering",
                                                                     _num(2))})
        eff = t["luck_effects"].copy()
        eff["ci"] = [f"{100 * lo:+.2f} to {100 * hi:+.2f}" for lo, hi in
                     zip(eff["lo"], eff["hi"], strict=True)]
        out["luck"] = table_html(eff, {
            "n_players": ("players", str), "variant": ("variant", lab),
            "column": ("per extra", lambda x: C.LUCK_PHRASES.get(x, x)),
            "players": ("player-games", _num(0)),
            "slope": ("win share change (pp)", lambda x: f"{100 * x:+.2f}"),
            "ci": ("95% CI (pp)", None), "r": ("correlation r", _num(3)),
            "p_holm": ("p (Holm)", _p)}, highlight="significant")
        lanes = t["lanes"].copy()
        wide = lanes.pivot_table(index="lane", columns=["n_players", "variant"],
                                 values="points_per_game", observed=True)
        wide.columns = [f"{n}p · {a.labels.get(str(v), v)}" for n, v in wide.columns]
        wide = wide.reset_index()
        board = a.data.board
        spots = {board.lane_ids[i]: "-".join(map(str, s))
                 for i, s in enumerate(board.lane_spots)}
        wide.insert(1, "spots", wide["lane"].map(spots))
        out["lanes"] = table_html(wide, {"lane": ("lane", None), "spots": ("spot values",
                                                                           None),
                                         **{c: (c, _num(1)) for c in wide.columns[2:]}})
        stalls = lanes.pivot_table(index="lane", columns=["n_players", "variant"],
                                   values="stalls_per_game", observed=True)
        stalls.columns = [f"{n}p · {a.labels.get(str(v), v)}" for n, v in stalls.columns]
        stalls = stalls.reset_index()
        out["lane_stalls"] = table_html(stalls, {"lane": ("lane", None),
                                                 **{c: (c, _num(2)) for c in stalls.columns[1:]}})
        out["spots"] = table_html(t["spots"], {
            "n_players": ("players", str), "variant": ("variant", lab),
            "spot_value": ("spot value", str), "stalls": ("stalls", _num(0)),
            "share": ("share of stalls", _pct)})
    an = t["anomalies"]
    if not an.empty:
        out["anomalies"] = table_html(an, {
            "n_players": ("players", str), "variant": ("variant", lab), "kind": ("what", None),
            "games": ("games", _num(0)), "share": ("share", _pct),
            "examples": ("examples: game (seed)", None)}, wrap=("examples",))
    return out


def _headline(a: Analysis) -> str:
    """One row per player count and variant: the first player's share, the spread between
    the best and worst seat, and the change in the first player's share from the baseline."""
    t = a.tables
    fp = t["first_player"].merge(t["balance"][["variant", "n_players", "spread", "best_seat",
                                               "p_holm"]],
                                 on=["variant", "n_players"], suffixes=("", "_bal"))
    cmp_ = t.get("comparisons")
    rows = []
    for r in fp.itertuples(index=False):
        v = str(r.variant)
        row = {"n_players": r.n_players, "variant": a.labels.get(v, v),
               "first": f"{100 * r.share:.1f}% ({100 * r.lo:.1f}–{100 * r.hi:.1f})",
               "fair": f"{100 * r.fair:.1f}%",
               "spread": f"{100 * r.spread:.1f} pp" + (" *" if r.p_holm_bal < 0.05 else ""),
               "best": f"seat {r.best_seat}", "change": "baseline"}
        if v != a.data.baseline:
            d = None if cmp_ is None else cmp_[(cmp_["variant"] == v)
                                               & (cmp_["n_players"] == r.n_players)
                                               & (cmp_["measure"] == "seat 0 win share")]
            if d is not None and not d.empty:
                d0 = d.iloc[0]
                row["change"] = (f"{100 * d0['diff']:+.1f} pp ({100 * d0['lo']:+.1f} to "
                                 f"{100 * d0['hi']:+.1f})" + (" *" if d0["significant"] else ""))
            else:
                row["change"] = "–"
        rows.append(row)
    return table_html(pd.DataFrame(rows), {
        "n_players": ("players", str), "variant": ("variant", None),
        "first": ("first player wins (95% CI)", None), "fair": ("fair", None),
        "best": ("best seat", None), "spread": ("best − worst seat", None),
        "change": (f"first player vs {a.labels.get(a.data.baseline, a.data.baseline)} "
                   "(95% CI)", None)})


def _configuration(a: Analysis) -> dict[str, Any]:
    cells = []
    for c in a.data.cells:
        m = c.run.manifest
        rules = c.run.rules()
        changed = rules.to_dict(changed_only=True)
        changed.pop("players", None)
        timings = m.get("timings", {})
        cells.append({
            "variant": a.labels.get(c.variant, c.variant), "players": c.players,
            "agents": (f"{m['agents'][0]} (every seat)" if len(set(m["agents"])) == 1
                       else ", ".join(m["agents"])),
            "games": m["games"], "seed": m["seed"],
            "run_id": m["run_id"], "path": str(c.run.paths[0]),
            "rules": ", ".join(f"{k} = {json.dumps(v)}" for k, v in changed.items())
            or "(all defaults)",
            "code": f"{m.get('code_version')} @ {str(m.get('git_commit') or '?')[:10]}",
            "speed": (f"{timings.get('games_per_second') or 0:.0f} games/s, "
                      f"{timings.get('jobs', '?')} jobs") if timings.get("games_per_second")
            else "resumed"})
    agents = sorted({s for c in a.data.cells for s in c.run.manifest["agents"]})
    names = sorted({s.partition(":")[0] for s in agents})
    return {"cells": cells, "agents": agents, "agent_names": names,
            "pinned": any(":" in s for s in agents),
            "board": a.data.cells[0].run.manifest["board"],
            "seeds": sorted({c.run.manifest["seed"] for c in a.data.cells}),
            "games": int(sum(c.run.manifest["games"] for c in a.data.cells))}


def _img(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _to_jsonable(df: pd.DataFrame) -> list[dict[str, Any]]:
    out = json.loads(df.astype({c: str for c in df.columns
                                if isinstance(df[c].dtype, pd.CategoricalDtype)})
                     .to_json(orient="records"))
    return out


def render(a: Analysis, figs: Mapping[str, Any], dpi: int = 100) -> str:
    """The report as one HTML string."""
    images: dict[str, str] = {}
    for name, fig in figs.items():
        data = P.shrink_png(fig) if isinstance(fig, bytes) else P.to_png(fig, dpi=dpi)
        images[name] = _img(data)
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    study = a.data.study or {}
    spec = study.get("spec", {})
    failed = a.data.failed
    config = _configuration(a)
    return env.get_template(TEMPLATE).render(
        title=a.data.title, description=spec.get("description", ""), spec=spec,
        spec_text=study.get("spec_text", ""), generated=time.strftime("%Y-%m-%d %H:%M"),
        findings=a.findings, topics=_topics(a.findings), tables=_tables_html(a),
        images=images, config=config,
        failed=failed, notes=a.notes, target=a.target, labels=a.labels,
        variants=a.data.variants, player_counts=a.data.player_counts,
        baseline=a.labels.get(a.data.baseline, a.data.baseline),
        board_images=[(a.labels.get(v, v), images.get(f"board_{v}")) for v in a.data.variants
                      if f"board_{v}" in images],
        version=_version(), sections=SECTIONS)


TOPIC_TITLES = {"precision": "Precision", "variant": "Variant effects",
                "balance": "Seat balance and first-player advantage", "luck": "Customer luck"}


def _topics(findings: list[C.Finding]) -> list[tuple[str, str, list[C.Finding]]]:
    """Findings grouped by topic, in the order above."""
    return [(k, title, [f for f in findings if f.topic == k])
            for k, title in TOPIC_TITLES.items() if any(f.topic == k for f in findings)]


def _version() -> str:
    try:
        return metadata.version("portobello")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_report(data: StudyData, out: str | Path, target_half_width: float | None = None,
                 dpi: int = 100) -> Path:
    """Write `out/index.html` and `out/summary.json`; returns the HTML path."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    a = analyse(data, target_half_width)
    figs = figures(a)
    page = render(a, figs, dpi=dpi)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    path = root / "index.html"
    path.write_text(page, encoding="utf-8")
    summary = {
        "title": data.title,
        "findings": [{"text": f.text, "topic": f.topic, "significant": f.significant}
                     for f in a.findings],
        "win_shares": _to_jsonable(a.tables["win_shares"]),
        "first_player": _to_jsonable(a.tables["first_player"]),
        "balance": _to_jsonable(a.tables["balance"]),
        "comparisons": _to_jsonable(a.tables["comparisons"]) if "comparisons" in a.tables
        else [],
        "anomalies": _to_jsonable(a.tables["anomalies"]),
        "failed_cells": data.failed,
        "configuration": _configuration(a),
    }
    (root / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return path
