"""The report's skill section, computed: "does it hold for stronger play?"
(`analysis.report.skill_view` and `skill_figures` show it).

A study with skill levels (`analysis.study.skill`) is analysed level by level: each level's
cells are an ordinary study of variants x player counts, and `analyse` runs on each, so
every level has the tables, tests and Holm families the report shows for one set of agents.
The page's body (tables, charts and the findings on top) is the strongest level's; this
section sets the levels side by side:

- every seat's win share, the first player's advantage and game length (rounds), and each
  variant's effect on them (variant minus baseline, paired on common seeds), each against
  the level with its 95% interval, one figure per player count;
- every finding (the first player's advantage, each other seat's share against fair at 3
  and 4 players, each variant effect of the comparisons table) labelled robust,
  skill-dependent, reversed or not found by `analysis.metrics.robustness.classify`.

Statistics. At each level a finding's verdict is its family's, at that level: the first
player's advantage Holm-corrected over the level's cells (as the balance table), each other
seat against fair over the level's seats and cells, a variant effect over the level's whole
comparisons table (as the comparisons table). The interval shown beside a level's verdict
is the Holm-adjusted one of that family, so it leaves out 0 exactly when the verdict says
significant; at the strongest level these are the body's own numbers. The size change of a
finding is the strongest level's value minus the weakest level's on the games both played
(the same seeds: a paired t test), Holm-corrected over every size change of the section
(game length's too), its adjusted interval beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from analysis import compare as C
from analysis import metrics as M
from analysis.metrics.common import mean_ci
from analysis.metrics.convergence import CONVERGED
from analysis.metrics.convergence import MARGIN
from analysis.metrics.convergence import NOT_CONVERGED
from analysis.metrics.convergence import RULE as CONVERGENCE_RULE
from analysis.metrics.convergence import SATURATION_MARGIN
from analysis.metrics.convergence import Interval
from analysis.metrics.convergence import Saturation
from analysis.metrics.convergence import classify as converged
from analysis.metrics.robustness import LABELS
from analysis.metrics.robustness import RULE
from analysis.metrics.robustness import LevelEstimate
from analysis.metrics.robustness import SizeChange
from analysis.metrics.robustness import Verdict
from analysis.metrics.robustness import classify
from analysis.report.calibration import calibration_finding
from analysis.report.model import Analysis
from analysis.report.model import SkillAnalysis
from analysis.report.provenance import reduced_run
from analysis.report.provenance import report_title
from analysis.study import StudyData
from analysis.study.skill import first_strong

FID = ["kind", "n_players", "variant", "measure"]
ROUNDS = "rounds (round-limit games left out)"
SIGNIFICANCE = ("At each level a finding is significant when its Holm-adjusted p-value is "
                "below 0.05 in its family at that level (the first player's advantage: the "
                "level's cells; another seat against fair: the level's seats and cells; a "
                "variant effect: the level's comparisons table), exactly when the "
                "Holm-adjusted interval shown leaves out 0. The size change (strongest level "
                "minus weakest, paired on the games both played) is Holm-corrected over every "
                "size change of the section.")




# -- analysis -------------------------------------------------------------------------------
def analyse_levels(data: StudyData, target: float | None,
                   analyse: Callable[[StudyData, float | None], Analysis]) -> Analysis:
    """Analyse every level; the strongest level's analysis, carrying the whole study's
    title, configuration and calibration and the skill section (`Analysis.skill`), is the
    report's. A study with fewer than two levels with data gets no section (a note says so)."""

    levels = data.levels
    if not levels:
        raise ValueError("a study with skill levels but no complete cells at any level")
    per: dict[str, Analysis] = {}
    for lv in levels:
        per[lv] = analyse(data.at_level(lv), target)
        per[lv].data.release_events()  # every table from them is made
    head = per[levels[-1]]
    head.title, head.reduced = report_title(data), reduced_run(data)
    if "calibration" in head.tables:  # a game with a reference of real play
        cal = pd.concat([per[lv].tables["calibration"].assign(level=lv) for lv in levels],
                        ignore_index=True)
        order = {lv: i for i, lv in enumerate(levels)}
        cal = cal.assign(_v=cal["variant"].astype(str).map({v: i for i, v in
                                                            enumerate(data.variants)}),
                         _l=cal["level"].map(order))
        head.tables["calibration"] = cal.sort_values(["n_players", "_v", "_l"],
                                                     kind="stable").drop(
            columns=["_v", "_l"]).reset_index(drop=True)
    # Anomalies of every level: a weak level's round-limit games matter too.
    head.tables["anomalies"] = pd.concat(
        [per[lv].tables["anomalies"].assign(level=lv) for lv in levels], ignore_index=True)
    info = data.skill
    assert info is not None
    labels = {lv: info.labels.get(lv, lv) for lv in levels}
    if len(levels) < 2:
        head.notes.append(f"Only one skill level has complete cells ({labels[levels[0]]}), so "
                          "there is no comparison across levels; the report shows that level.")
    else:
        strong = [info.strong[info.names.index(lv)] for lv in levels]
        est = pd.concat([_level_estimates(per[lv]).assign(level=lv) for lv in levels],
                        ignore_index=True)
        changes = _size_changes(per, levels, est)
        tops = _size_changes(per, levels, est, top=True)
        checks = saturation(data)
        head.skill = SkillAnalysis(
            data=data, levels=levels, level_labels=labels,
            level_agents={lv: info.agents_text(lv) for lv in levels}, start=first_strong(strong),
            analyses=per, estimates=est,
            findings=_verdicts(est, changes, levels, labels, first_strong(strong), tops,
                               checks),
            saturation=checks,
            length=_length(per, levels, changes))
        head.findings = label_findings(head.findings, head.skill)
    head.findings = [f for f in head.findings if f.topic != "calibration"]
    found = calibration_finding(head)
    if found is not None:
        head.findings.append(found)
    return head


def _seat_family(players: pd.DataFrame) -> pd.DataFrame:
    """Seats 1 to 3 against the fair share (at 2 players seat 1 mirrors seat 0 and is left
    out), Holm-corrected over the level's seats and cells, with Wilson-adjusted intervals."""
    parts = [M.FirstPlayerAdvantage(seat=k)(players).assign(seat=k) for k in (1, 2, 3)]
    seats = pd.concat([p for p in parts if not p.empty], ignore_index=True) if any(
        not p.empty for p in parts) else pd.DataFrame()
    if seats.empty:
        return seats
    seats = seats[~((seats["n_players"] == 2) & (seats["seat"] == 1))].reset_index(drop=True)
    out = C.Holm(interval=C.WilsonInterval())(seats)
    return out.assign(adv_adj_lo=out["adj_lo"] - out["fair"],
                      adv_adj_hi=out["adj_hi"] - out["fair"])


def _level_estimates(a: Analysis) -> pd.DataFrame:
    """Every finding of one level's analysis: `kind, n_players, variant, baseline, measure,
    value_kind, estimate, lo, hi` (95%), `adj_lo, adj_hi, adj_level, p_holm, holm_m,
    significant` (its family's Holm)."""
    cols = ["kind", "n_players", "variant", "baseline", "measure", "value_kind", "estimate",
            "lo", "hi", "adj_lo", "adj_hi", "adj_level", "p_holm", "holm_m", "significant"]
    parts = []

    def shares(df: pd.DataFrame, kind: str, measure: Any) -> pd.DataFrame:
        return pd.DataFrame({
            "kind": kind, "n_players": df["n_players"].astype(int), "variant":
            df["variant"].astype(str), "baseline": "", "measure": measure,
            "value_kind": C.SHARE, "estimate": df["advantage"], "lo": df["adv_lo"],
            "hi": df["adv_hi"], "adj_lo": df["adv_adj_lo"], "adj_hi": df["adv_adj_hi"],
            "adj_level": df["adj_level"], "p_holm": df["p_holm"], "holm_m": df["holm_m"],
            "significant": df["significant"].astype(bool)})

    parts.append(shares(a.tables["first_player"], "first player", "seat 0 win share"))
    seats = _seat_family(a.data.players())
    if not seats.empty:
        parts.append(shares(seats, "seat", "seat " + seats["seat"].astype(str) + " win share"))
    cmp_ = a.tables.get("comparisons")
    if cmp_ is not None and not cmp_.empty:
        parts.append(pd.DataFrame({
            "kind": "effect", "n_players": cmp_["n_players"].astype(int),
            "variant": cmp_["variant"].astype(str), "baseline": cmp_["baseline"].astype(str),
            "measure": cmp_["measure"].astype(str), "value_kind": cmp_["kind"],
            "estimate": cmp_["diff"], "lo": cmp_["lo"], "hi": cmp_["hi"],
            "adj_lo": cmp_["adj_lo"], "adj_hi": cmp_["adj_hi"], "adj_level": cmp_["adj_level"],
            "p_holm": cmp_["p_holm"], "holm_m": cmp_["holm_m"],
            "significant": cmp_["significant"].astype(bool)}))
    return pd.concat(parts, ignore_index=True)[cols]


def _per_game(a: Analysis) -> dict[str, pd.DataFrame]:
    """One level's per-game values: seat win shares and the comparisons' game measures,
    each with the game's seed (what a size change pairs on)."""
    data = a.data
    shares = data.players()[["variant", "n_players", "seat", "seed", "win_share"]].copy()
    shares["variant"] = shares["variant"].astype(str)
    measures = C.GameMeasures(points=C.GAME_POINTS[data.game])(data.games(), data.players())
    measures["variant"] = measures["variant"].astype(str)
    games = data.games()
    rounds = games.assign(value=games["rounds"].astype(float).where(
        games["end_reason"].astype(str) != "round_limit"))[["variant", "n_players", "seed",
                                                              "value"]]
    rounds["variant"] = rounds["variant"].astype(str)
    return {"shares": shares, "measures": measures, "rounds": rounds}


def _values(pg: Mapping[str, pd.DataFrame], kind: str, n: int, variant: str, baseline: str,
            measure: str) -> pd.Series:
    """A finding's per-game values at one level, indexed by seed: a seat's win share, a
    variant's effect (variant minus baseline on the same seed), or the game's rounds."""
    if kind in ("first player", "seat"):
        s = pg["shares"]
        seat = int(measure.split()[1])
        d = s[(s["n_players"] == n) & (s["variant"] == variant) & (s["seat"] == seat)]
        return d.set_index("seed")["win_share"].astype(float)
    if kind == "length":
        r = pg["rounds"]
        return r[(r["n_players"] == n) & (r["variant"] == variant)].set_index("seed")["value"]
    m = pg["measures"]
    d = m[(m["n_players"] == n) & (m["measure"] == measure)]
    wide = d.pivot_table(index="seed", columns="variant", values="value", aggfunc="first",
                         dropna=False)
    if variant not in wide or baseline not in wide:
        return pd.Series(dtype=float)
    return (wide[variant] - wide[baseline]).dropna()


def _size_changes(per: Mapping[str, Analysis], levels: Sequence[str],
                  est: pd.DataFrame, top: bool = False) -> pd.DataFrame:
    """Every finding's (and every cell's game length's) strongest level minus weakest level
    (with `top`, minus the level below the strongest: the convergence check's pair) on the
    seeds both played, paired t, Holm over them all: `kind, n_players, variant, measure,
    weak, strong, games, diff, lo, hi, se, dof, p_value`, Holm's columns."""
    pgs = {lv: _per_game(per[lv]) for lv in levels}
    held = est.dropna(subset=["estimate"])
    targets = [(k, int(n), str(v), str(b), str(m), list(g["level"]))
               for (k, n, v, b, m), g in held.groupby(["kind", "n_players", "variant",
                                                        "baseline", "measure"], sort=False)]
    for lv in levels:  # game length of every cell
        length = per[lv].tables["length"]
        for r in length[length["measure"] == "rounds"].itertuples(index=False):
            targets.append(("length", int(r.n_players), str(r.variant), "", "rounds", [lv]))
    merged: dict[tuple[Any, ...], list[str]] = {}
    for k, n, v, b, m, lvs in targets:
        merged.setdefault((k, n, v, b, m), []).extend(lvs)
    rows = []
    diff = C.VariantDifference("weakest")
    for (k, n, v, b, m), lvs in merged.items():
        order = [lv for lv in levels if lv in lvs]
        if len(order) < 2:
            continue
        weak, strong = order[-2 if top else 0], order[-1]
        a = _values(pgs[weak], k, n, v, b, m).dropna()
        z = _values(pgs[strong], k, n, v, b, m).dropna()
        common = a.index.intersection(z.index).sort_values()
        if len(common) < 2:
            continue
        base = pd.DataFrame({"seed": common, "value": a.loc[common].to_numpy()}, index=common)
        other = pd.DataFrame({"seed": common, "value": z.loc[common].to_numpy()}, index=common)
        res = diff.difference(base, other)
        rows.append({"kind": k, "n_players": n, "variant": v, "baseline": b, "measure": m,
                     "weak": weak, "strong": strong, "games": len(common), "diff": res["diff"],
                     "lo": res["lo"], "hi": res["hi"], "se": res["se"], "dof": res["dof"],
                     "p_value": res["p_value"]})
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=[*FID, "baseline", "weak", "strong", "games", "diff", "lo",
                                     "hi", "se", "dof", "p_value", "p_holm", "significant",
                                     "holm_m", "holm_step", "adj_level", "adj_lo", "adj_hi"])
    return C.Holm(interval=C.TInterval("diff"))(out)


def doubled_agent(data: StudyData) -> str:
    """The saturation check's agent ("" when the study has none)."""
    sat = (data.study or {}).get("spec", {}).get("saturation")
    return str(sat["agents"]) if sat else ""


def saturation(data: StudyData) -> dict[int, Saturation]:
    """The strongest level's saturation check by player count: the doubled agent's win
    share (the mean over its games of its seat's share, a t interval) against 1/n."""
    out: dict[int, Saturation] = {}
    doubled = doubled_agent(data)
    if not data.checks or not doubled:
        return out
    players = StudyData(cells=list(data.checks)).players()
    for n, g in players.groupby("n_players", observed=True, sort=True):
        x = g.loc[g["agent"].astype(str) == doubled, "win_share"].astype(float).to_numpy()
        if len(x) < 2:
            continue
        mean, _, lo, hi = mean_ci(x, 0.95)
        out[int(n)] = Saturation(Interval(mean, lo, hi), 1 / int(n), len(x))
    return out


def _verdicts(est: pd.DataFrame, changes: pd.DataFrame, levels: Sequence[str],
              labels: Mapping[str, str], start: int, tops: pd.DataFrame,
              checks: Mapping[int, Saturation]) -> pd.DataFrame:
    """One row per finding: its key, the size change and the verdict (`label`, `trend`,
    `verdict` as shown, `direction`, `reason`), and its convergence (`convergence`,
    `convergence_text`, `convergence_reason`, the top pair's difference `top_*`), in the
    order the estimates come."""
    ch = {(r.kind, int(r.n_players), r.variant, r.measure): r
          for r in changes.itertuples(index=False)}
    top_ch = {(r.kind, int(r.n_players), r.variant, r.measure): r
              for r in tops.itertuples(index=False)}
    rows = []
    for (k, n, v, b, m), g in est.groupby(["kind", "n_players", "variant", "baseline",
                                           "measure"], sort=False):
        by_level = {r.level: r for r in g.itertuples(index=False)}
        nan = float("nan")
        points = [LevelEstimate(labels.get(lv, lv), *(
            (float(by_level[lv].estimate), float(by_level[lv].adj_lo),
             float(by_level[lv].adj_hi), bool(by_level[lv].significant))
            if lv in by_level else (nan, nan, nan, False))) for lv in levels]
        c = ch.get((k, int(n), v, m))
        size = None if c is None else SizeChange(float(c.diff), float(c.adj_lo),
                                                 float(c.adj_hi), bool(c.significant))
        verdict: Verdict = classify(points, start, size)
        t = top_ch.get((k, int(n), v, m))
        conv = converged(points[-2], points[-1], None if t is None else Interval(
            float(t.diff), float(t.adj_lo), float(t.adj_hi)), checks.get(int(n)))
        rows.append({"kind": k, "n_players": int(n), "variant": v, "baseline": b,
                     "measure": m, "value_kind": g["value_kind"].iloc[0],
                     "label": verdict.label, "trend": verdict.trend, "verdict": verdict.text,
                     "direction": verdict.direction, "reason": verdict.reason,
                     **({f"change_{c_}": getattr(c, c_) for c_ in
                         ("weak", "strong", "games", "diff", "lo", "hi", "adj_lo", "adj_hi",
                          "adj_level", "p_holm", "significant")} if c is not None else {}),
                     "convergence": conv.label, "convergence_text": conv.text,
                     "convergence_missing": list(conv.missing),
                     "convergence_reason": conv.reason,
                     **({f"top_{c_}": getattr(t, c_) for c_ in
                         ("weak", "strong", "games", "diff", "adj_lo", "adj_hi", "adj_level",
                          "significant")} if t is not None else {})})
    return pd.DataFrame(rows)


def _length(per: Mapping[str, Analysis], levels: Sequence[str],
            changes: pd.DataFrame) -> pd.DataFrame:
    """Game length (rounds of the games that ended by the rules) per cell and level, with
    each cell's change from the weakest to the strongest level (Holm-adjusted)."""
    rows = []
    for lv in levels:
        length = per[lv].tables["length"]
        for r in length[length["measure"] == "rounds"].itertuples(index=False):
            rows.append({"n_players": int(r.n_players), "variant": str(r.variant), "level": lv,
                         "mean": r.mean, "lo": r.lo, "hi": r.hi, "n": int(r.n)})
    out = pd.DataFrame(rows)
    ch = changes[changes["kind"] == "length"][["n_players", "variant", "weak", "strong",
                                               "games", "diff", "adj_lo", "adj_hi",
                                               "significant"]]
    return out.merge(ch.rename(columns={c: f"change_{c}" for c in ch.columns
                                        if c not in ("n_players", "variant")}),
                     on=["n_players", "variant"], how="left")


def games_played(sk: SkillAnalysis, level: str) -> dict[int, tuple[int, int]]:
    """The games a level's cells played, per player count: (fewest, most) over its
    variants (cells played to a precision stop where their own intervals are narrow
    enough, so variants may differ)."""
    out: dict[int, tuple[int, int]] = {}
    for c in sk.data.cells:
        if c.level != level:
            continue
        g = int(c.run.manifest["games"])
        lo, hi = out.get(c.players, (g, g))
        out[c.players] = (min(lo, g), max(hi, g))
    return dict(sorted(out.items()))


def label_findings(findings: Sequence[C.Finding], sk: SkillAnalysis) -> list[C.Finding]:
    """The report's findings (the strongest level's) with their label across the levels,
    appended to the sentence and kept as `label`."""
    verdicts = {(r.kind, int(r.n_players), r.variant, r.measure): r
                for r in sk.findings.itertuples(index=False)}
    span = f"{sk.label(sk.levels[0])} to {sk.label(sk.levels[-1])}"
    out = []
    for f in findings:
        r = verdicts.get(tuple(f.key)) if f.key else None
        if r is None:
            out.append(f)
            continue
        out.append(replace(f, label=r.label, text=f"{f.text} Across skill levels ({span}): "
                                                 f"{r.verdict}: {r.reason}. At the top: "
                                                 f"{r.convergence_text}."))
    return out






def finding_name(r: Any, labels: Mapping[str, str]) -> str:
    """A finding as the table names it: `first player's advantage · Standard`, `seat 2 vs
    fair · Known order`, `Known order vs Standard: seat 0 win share`."""
    v = labels.get(r.variant, r.variant)
    if r.kind == "first player":
        return f"first player's advantage · {v}"
    if r.kind == "seat":
        return f"{r.measure.replace(' win share', '')} vs fair · {v}"
    measure = "game length (rounds)" if r.measure == ROUNDS else r.measure
    return f"{v} vs {labels.get(r.baseline, r.baseline)}: {measure}"








def skill_counts(sk: SkillAnalysis) -> list[tuple[str, int]]:
    """How many findings got each label, in `LABELS` order."""
    counts = sk.findings["label"].value_counts()
    return [(lab, int(counts.get(lab, 0))) for lab in LABELS]




def skill_summary(a: Analysis) -> dict[str, Any] | None:
    """summary.json's `skill` block: the levels, the rule, and every finding with its
    estimate at every level, its size change and its label (None without levels)."""
    sk = a.skill
    if sk is None:
        return None
    est = json.loads(sk.estimates.to_json(orient="records"))
    by: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for e in est:
        by.setdefault((e["kind"], e["n_players"], e["variant"], e["measure"]), []).append(
            {k: e[k] for k in ("level", "estimate", "lo", "hi", "adj_lo", "adj_hi", "adj_level",
                               "p_holm", "holm_m", "significant")})
    findings = []
    for r in json.loads(sk.findings.to_json(orient="records")):
        key = (r["kind"], r["n_players"], r["variant"], r["measure"])
        change = {k[len("change_"):]: v for k, v in r.items() if k.startswith("change_")}
        if change.get("diff") is None:  # no level pair to compare (or a constant measure)
            change = None
        top = {k[len("top_"):]: v for k, v in r.items() if k.startswith("top_")}
        findings.append({**{k: r[k] for k in ("kind", "n_players", "variant", "baseline",
                                               "measure", "value_kind", "label", "trend",
                                               "verdict", "direction", "reason")},
                         "levels": by.get(key, []), "change": change,
                         "convergence": {"label": r["convergence"],
                                         "text": r["convergence_text"],
                                         "missing": r["convergence_missing"],
                                         "reason": r["convergence_reason"],
                                         "top_difference": top if top.get("diff") is not None
                                         else None}})
    return {
        "levels": [{"name": lv, "label": sk.label(lv), "agents": sk.level_agents[lv],
                    "games": {str(n): span for n, span in games_played(sk, lv).items()},
                    "from_heuristic_up": i >= sk.start} for i, lv in enumerate(sk.levels)],
        "from_heuristic_up": sk.levels[sk.start], "headline_level": sk.headline,
        "rule": RULE, "significance": SIGNIFICANCE,
        "counts": dict(skill_counts(sk)), "findings": findings,
        "convergence": {
            "rule": CONVERGENCE_RULE, "margin": MARGIN, "saturation_margin": SATURATION_MARGIN,
            "counts": {lab: int((sk.findings["convergence"] == lab).sum())
                       for lab in (CONVERGED, NOT_CONVERGED)},
            "saturation": {str(n): {"agent": doubled_agent(sk.data), "share": c.share.estimate,
                                    "lo": c.share.lo, "hi": c.share.hi, "fair": c.fair,
                                    "games": c.games, "state": c.state()}
                           for n, c in sk.saturation.items()}},
        "length": json.loads(sk.length.to_json(orient="records")),
    }
