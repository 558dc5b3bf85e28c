"""What a report shows, as data: every table and finding (`analyse`), the exact
configuration and seeds, and `summary.json`'s content.

Nothing here draws or formats: the views (`analysis.report.tables`, `figures` and the
sections' `*_view` modules) show this analysis, and `analysis.report.page` writes the page.
The notebooks call `analyse` and `figures` directly, so they show the report's own numbers
and charts.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis import compare as C
from analysis import metrics as M
from analysis.facets import EVENT_SECTIONS
from analysis.facets import declared
from analysis.facets import point_measures
from analysis.facets import report_facet
from analysis.facets import sections
from analysis.facets import sources
from analysis.metrics.calibration import Calibration
from analysis.metrics.common import Sources
from analysis.report.calibration import calibration_finding
from analysis.report.model import Analysis
from analysis.report.precision import cell_precision
from analysis.report.precision import precision_findings
from analysis.report.precision import precision_summary
from analysis.report.precision import runs_target
from analysis.report.provenance import reduced_run
from analysis.report.provenance import report_title
from analysis.report.skill import analyse_levels
from analysis.report.skill import skill_summary
from analysis.report.sweep import sweep_summary
from analysis.study import StudyData
from sim.run.store import manifest_cost

# The page's sections in order; calibration, districts, luck and lanes only for a game that
# offers them (`analysis.facets.OPTIONAL_SECTIONS`), points for one with point sources.
SECTIONS = ("findings", "win-shares", "balance", "comparisons", "scores", "length",
            "calibration", "points", "districts", "endings", "luck", "lanes", "anomalies",
            "configuration", "method")
# What each event section measures, for the note on runs without the events table.
EVENT_WORDS = {"districts": "district timing", "luck": "customer luck",
               "lanes": "lane usage"}


def analyse(data: StudyData, target_half_width: float | None = None) -> Analysis:
    """Compute the report's tables and findings. A study with skill levels is analysed
    level by level (`analysis.report.skill.analyse_levels`): the result is the strongest
    level's analysis with the levels compared in `Analysis.skill`."""
    if data.skill is not None:
        return analyse_levels(data, target_half_width, analyse)
    study = data.study or {}
    target = float(target_half_width or study.get("spec", {}).get("target_half_width")
                   or runs_target(data) or 0.015)
    a = Analysis(data=data, labels=data.labels, target=target, title=report_title(data),
                 reduced=reduced_run(data))
    t = a.tables
    games, players = data.games(), data.players()
    t["win_shares"] = M.WinShare()(players)
    t["precision"] = cell_precision(data, t["win_shares"])
    t["balance"] = C.Holm()(M.SeatBalance()(players))
    fp = C.Holm(interval=C.WilsonInterval())(M.FirstPlayerAdvantage()(players))
    t["first_player"] = fp.assign(adv_adj_lo=fp["adj_lo"] - fp["fair"],
                                  adv_adj_hi=fp["adj_hi"] - fp["fair"])
    t["scores"] = M.Describe(("score",))(players)
    t["margins_games"] = M.Margins()(players)
    margins = M.Describe(("margin",))(t["margins_games"])
    ties = t["margins_games"].groupby(list(M.BY), observed=True)["tied"].mean()
    t["margins"] = margins.merge(ties.rename("tie_share").reset_index(), on=list(M.BY))
    # Length of the games that ended by the rules (round-limit games are anomalies).
    t["length"] = M.Describe(("rounds", "turns"))(
        games[games["end_reason"].astype(str) != "round_limit"])
    game = data.game
    offered = sections(game)  # the optional sections the game offers
    points = sources(game)
    if points is not None:
        t["points"] = M.PointsBySource(sources=points)(players)
    t["endings"] = M.Proportions("end_reason")(games)
    if "calibration" in offered:  # the game has a reference of real play
        t["calibration"] = Calibration()(games, players)
    t["anomalies"] = M.Anomalies(sources=points or Sources(()),
                                 ends=declared(game, "ANOMALOUS_ENDS", {}))(games, players)
    if len(data.variants) > 1:
        measures = C.GameMeasures(points=point_measures(game))(games, players)
        diffs = C.VariantDifference(data.baseline)(measures)
        uncompared = [v for v in data.variants[1:]
                      if diffs.empty or v not in set(diffs["variant"].astype(str))]
        if uncompared:
            a.notes.append(_no_common_count(data, uncompared))
        if diffs.empty:
            a.no_comparisons = a.notes[-1]
        else:
            t["comparisons"] = C.Holm(interval=C.TInterval("diff"))(diffs)
    else:
        a.no_comparisons = "Only one variant: nothing to compare."
    from_events = [s for s in EVENT_SECTIONS if s in offered]
    if from_events and data.has_events:
        t.update(_event_tables(data, offered, games, players))
    elif from_events:
        words = [EVENT_WORDS[s] for s in from_events]
        listed = (", ".join(words[:-1]) + " and " + words[-1]) if len(words) > 1 else words[0]
        a.notes.append(f"These runs have no events table, so {listed} are left out (run "
                       "studies with events = true).")

    for name, df in t.items():
        if {"variant", "n_players"} <= set(df.columns) and name not in ("exposure",
                                                                       "district_scorings"):
            df = df.assign(variant=pd.Categorical(df["variant"].astype(str),
                                                  categories=data.variants, ordered=True))
            keys = ["n_players", "variant"] + [k for k in ("seat", "measure", "source", "token",
                                                           "order", "spot_value")
                                               if k in df.columns and k != "measure"]
            t[name] = df.sort_values(keys, kind="stable").reset_index(drop=True)

    findings = [C.precision_finding(t["win_shares"], target, a.labels),
                *precision_findings(t["precision"], a.labels)]
    if "comparisons" in t:
        findings += C.difference_findings(t["comparisons"], a.labels)
    findings += C.balance_findings(t["first_player"], t["balance"], a.labels)
    if "luck_effects" in t:
        drawn = t["luck_effects"]
        drawn = drawn[drawn["column"] == "aristocrat_surplus"]
        findings += C.luck_findings(drawn, a.labels)
    calibration = calibration_finding(a)
    if calibration is not None:
        findings.append(calibration)
    a.findings = findings
    return a


def _event_tables(data: StudyData, offered: frozenset[str], games: pd.DataFrame,
                  players: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The event sections' tables the game offers, from its events table (the events it
    names, `EVENT_ACTIONS`) and its board (`lane_ids`, `lane_ends`): when districts are
    scored, customer luck, lanes and spots."""
    facet = report_facet(data.game)
    assert facet is not None  # a game offers sections through its report facet
    t: dict[str, pd.DataFrame] = {}
    ev = data.events(facet.EVENT_ACTIONS)
    if "districts" in offered:
        timing = M.DistrictTiming()
        t["district_scorings"] = timing.scorings(ev, games)
        t["districts"] = timing(ev, games)
    if "lanes" in offered:
        t["lanes"] = M.LaneUsage(lanes=facet.lane_ids(data.board))(ev, games)
        t["spots"] = M.SpotUsage()(ev)
    if "luck" in offered:
        exposure = M.CustomerExposure(facet.lane_ends(data.board))(players, ev)
        t["exposure"] = exposure
        t["luck_ends"] = M.ShareByLevel("aristocrat_ends", cap=12, width=2)(exposure)
        t["luck_drawn"] = M.ShareByLevel("aristocrat_surplus", cap=3, floor=-3)(exposure)
        effects = pd.concat([M.LuckEffect("aristocrat_surplus", scale=2)(exposure),
                             M.LuckEffect("aristocrat_ends")(exposure)], ignore_index=True)
        t["luck_effects"] = C.Holm(interval=C.TInterval("slope"))(effects)
    return t


def _no_common_count(data: StudyData, uncompared: list[str]) -> str:
    """Why some variants (or all) are not compared: they were not played at any player count
    the baseline was played at."""
    counts = {v: sorted(c.players for c in data.cells if c.variant == v)
              for v in [data.baseline, *uncompared]}
    base = data.labels.get(data.baseline, data.baseline)
    where = "; ".join(f"{data.labels.get(v, v)}: {', '.join(map(str, n))} players"
                      for v, n in counts.items())
    if len(uncompared) == len(data.variants) - 1:
        return (f"No variant was played at a player count of the baseline ({base}), so "
                f"there are no comparisons ({where}); each cell is reported on its own.")
    names = ", ".join(data.labels.get(v, v) for v in uncompared)
    return (f"Not compared with the baseline ({base}): {names}, played at none of its player "
            f"counts ({where}).")








TOPIC_TITLES = {"precision": "Precision", "variant": "Variant effects",
                "balance": "Seat balance and first-player advantage", "luck": "Customer luck",
                "calibration": "Calibration against real play"}


def topics(findings: list[C.Finding]) -> list[tuple[str, str, list[C.Finding]]]:
    """Findings grouped by topic, in the order of TOPIC_TITLES: (key, heading, findings)."""
    return [(k, title, [f for f in findings if f.topic == k])
            for k, title in TOPIC_TITLES.items() if any(f.topic == k for f in findings)]


def configuration(a: Analysis) -> dict[str, Any]:
    """What was run, cell by cell (agents, games, seed, run id, changed rules, code version,
    speed), and the agents, board, seeds and games of the whole report (with skill levels:
    every level's cells, and the strongest level's saturation check)."""
    data = a.skill.data if a.skill is not None else a.data
    cells = []
    played = [(c, "") for c in data.cells] + [(c, " · saturation check") for c in data.checks]
    for c, check in played:
        m = c.run.manifest
        rules = c.run.rules()
        changed = rules.to_dict(changed_only=True)
        changed.pop("players", None)
        timings = m.get("timings", {})
        cells.append({
            "variant": a.labels.get(c.variant, c.variant)
            + (f" · {a.skill.label(c.level)}" if a.skill is not None and c.level else "")
            + check,
            "players": c.players,
            "agents": (f"{m['agents'][0]} (every seat)" if len(set(m["agents"])) == 1
                       else ", ".join(m["agents"])),
            "games": m["games"], "seed": m["seed"],
            "run_id": m["run_id"], "path": str(c.run.paths[0]),
            "rules": ", ".join(f"{k} = {json.dumps(v)}" for k, v in changed.items())
            or "(all defaults)",
            "code": f"{m.get('code_version')} @ {str(m.get('git_commit') or '?')[:10]}",
            "speed": (f"{timings.get('games_per_second') or 0:.0f} games/s, "
                      f"{timings.get('jobs', '?')} jobs") if timings.get("games_per_second")
            else "resumed",
            # what playing the cell has cost over every command that played some of it
            **cell_cost(m)})
    agents = sorted({s for c, _ in played for s in c.run.manifest["agents"]})
    names = sorted({s.partition(":")[0] for s in agents})
    return {"cells": cells, "agents": agents, "agent_names": names,
            "pinned": any(":" in s for s in agents),
            "board": data.cells[0].run.manifest["board"],
            "seeds": sorted({c.run.manifest["seed"] for c, _ in played}),
            "games": int(sum(c.run.manifest["games"] for c, _ in played))}


def cell_cost(manifest: dict[str, Any]) -> dict[str, Any]:
    """`seconds` and `jobs` a cell's games cost (None: not recorded), from the run's
    manifest (`sim.run.store.manifest_cost`)."""
    cost = manifest_cost(manifest)
    jobs = ", ".join(str(j) for j in cost["jobs"] if j)
    return {"seconds": cost["seconds"] or None, "jobs": jobs or None}


def _to_jsonable(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Table rows as JSON-ready dicts (categorical columns as their text)."""
    return json.loads(df.astype({c: str for c in df.columns
                                 if isinstance(df[c].dtype, pd.CategoricalDtype)})
                      .to_json(orient="records"))


def summary(a: Analysis) -> dict[str, Any]:
    """The content of summary.json: the findings and main tables as data."""
    data = a.data
    r = a.reduced
    return {
        "title": a.title or data.title,
        "study_title": data.title,
        "reduced": None if r is None else {
            "text": r.sentence, "games_played": {str(n): g for n, g in r.played.items()},
            "games_in_spec": {str(n): g for n, g in r.asked.items()},
            "agents": list(r.agents), "spec_agents": list(r.spec_agents)},
        "significance": {
            "alpha": C.ALPHA, "rule": "significant when the Holm-adjusted p-value is below "
            "alpha, which is exactly when the adjusted interval [adj_lo, adj_hi] leaves out "
            "no change", "lo_hi": "unadjusted 95% interval",
            "adj_lo_adj_hi": C.METHOD + "; adj_level is each row's confidence level, holm_m "
            "the number of tests in its family"},
        "no_comparisons": a.no_comparisons,
        "partial": data.partial,
        "findings": [{"text": f.text, "topic": f.topic, "significant": f.significant,
                      **({"label": f.label} if f.label else {}),
                      **({"label_source": f.label_source} if f.label_source else {})}
                     for f in a.findings],
        "win_shares": _to_jsonable(a.tables["win_shares"]),
        "first_player": _to_jsonable(a.tables["first_player"]),
        "balance": _to_jsonable(a.tables["balance"]),
        "comparisons": _to_jsonable(a.tables["comparisons"]) if "comparisons" in a.tables
        else [],
        "anomalies": _to_jsonable(a.tables["anomalies"]),
        "failed_cells": data.failed,
        "configuration": configuration(a),
        "sweep": sweep_summary(a),
        "precision": precision_summary(a.tables["precision"]),
        "skill": skill_summary(a),
        "calibration": (_to_jsonable(a.tables["calibration"]) if "calibration" in a.tables
                        else []),
        "ladder": a.ladder.to_dict() if a.ladder is not None else None,
        "variants": variant_rules(a.skill.data if a.skill is not None else a.data),
    }


def variant_rules(data: StudyData) -> list[dict[str, Any]]:
    """Each variant's name, label and the rules it changes (players left out): how another
    report (one beside a skill ladder) tells which of its variants is which of these."""
    out = []
    for v in data.variants:
        cell = next(c for c in data.cells if c.variant == v)
        rules = cell.run.rules().to_dict(changed_only=True)
        rules.pop("players", None)
        out.append({"name": v, "label": data.labels.get(v, v), "rules": rules})
    return out
