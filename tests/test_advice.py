"""The advice rules (`analysis.metrics.advice`) on planted evidence, and the advice built from
planted report summaries (`analysis.report.advice`): which label, verdict and population
combinations give recommend, candidate, do not rely on and unknown."""

from __future__ import annotations

from typing import Any

import pytest

from analysis.metrics.advice import CANDIDATE
from analysis.metrics.advice import DO_NOT_RELY
from analysis.metrics.advice import RECOMMEND
from analysis.metrics.advice import UNKNOWN
from analysis.metrics.advice import Edge
from analysis.metrics.advice import Estimate
from analysis.metrics.advice import Evidence
from analysis.metrics.advice import advise
from analysis.metrics.advice import advise_edge
from analysis.metrics.advice import edge_sentence
from analysis.metrics.advice import sentence
from analysis.metrics.advice import towards_fair
from analysis.report.advice import BOX_BEGIN
from analysis.report.advice import Item
from analysis.report.advice import box_html
from analysis.report.advice import fairness_advice
from analysis.report.advice import population_advice
from analysis.report.advice import study_advice
from analysis.report.advice import with_box

CUT = Estimate(-0.10, -0.13, -0.07, True, "with the Learned agent")  # significant, down
RISE = Estimate(0.06, 0.02, 0.10, True, "with the Search")  # significant, up
NONE = Estimate(0.01, -0.02, 0.04, False, "with the Search")  # not significant


def evidence(**changes: Any) -> Evidence:
    # 4 players, the first player wins 0.42 under the baseline (fair 0.25): a cut of the
    # first player's share brings it towards fair.
    base: dict[str, Any] = {"players": 4, "variant": "14 stalls", "baseline": "16 stalls",
                            "base_share": 0.42, "measured": CUT}
    base.update(changes)
    return Evidence(**base)


@pytest.mark.parametrize(("changes", "kind", "action"), [
    # Significant and converged whoever plays, robust across the ladder: recommend.
    ({"label": "robust", "population": Estimate(-0.08, -0.11, -0.05, True, "whoever plays"),
      "converged": True}, RECOMMEND, "change"),
    # The same without a ladder: recommend too (nothing contradicts it).
    ({"population": Estimate(-0.08, -0.11, -0.05, True, "whoever plays"),
      "converged": True}, RECOMMEND, "change"),
    # Converged whoever plays, but the ladder says it depends on the bots: do not rely on.
    ({"label": "skill-dependent", "population": Estimate(-0.08, -0.11, -0.05, True, "w"),
      "converged": True}, DO_NOT_RELY, ""),
    # Robust across the ladder, no population answer: candidate.
    ({"label": "robust"}, CANDIDATE, "change"),
    # Robust and significant whoever plays, not converged: candidate.
    ({"label": "robust", "population": Estimate(-0.08, -0.11, -0.05, True, "w"),
      "converged": False}, CANDIDATE, "change"),
    # Significant whoever plays, measured level not significant, no ladder: candidate.
    ({"measured": NONE, "population": Estimate(-0.08, -0.11, -0.05, True, "w"),
      "converged": False}, CANDIDATE, "change"),
    # Significant at its only level, no ladder: candidate.
    ({}, CANDIDATE, "change"),
    # A rise of the first player's share where it already leads: keep the baseline.
    ({"measured": RISE, "label": "robust"}, CANDIDATE, "keep"),
    ({"label": "skill-dependent"}, DO_NOT_RELY, ""),
    ({"label": "reversed"}, DO_NOT_RELY, ""),
    # Whoever plays it points the other way than at the measured level: do not rely on.
    ({"population": RISE, "converged": False}, DO_NOT_RELY, ""),
    ({"label": "not found", "measured": NONE}, UNKNOWN, ""),
    ({"measured": NONE}, UNKNOWN, ""),
    # Robust across the ladder, but this (reduced) run's own verdict is not significant:
    # the advice does not claim more than the numbers shown beside it.
    ({"label": "robust", "measured": NONE}, UNKNOWN, ""),
])
def test_the_rules(changes: dict[str, Any], kind: str, action: str) -> None:
    e = evidence(**changes)
    a = advise(e)
    assert (a.kind, a.action) == (kind, action), a.reason
    text = sentence(e, a)
    assert "\n" not in text and text.endswith(".")
    if kind == RECOMMEND:
        assert "Recommended" in text and "converged" in text
    if kind == DO_NOT_RELY:
        assert "depends on the bots" in text


def test_towards_fair_by_hand() -> None:
    # 2 players, fair 0.5: from 0.57 a change of -0.05 gives 0.52 (closer), -0.16 gives
    # 0.41 (0.09 off: further), +0.02 gives 0.59 (further).
    assert towards_fair(0.57, -0.05, 2)
    assert not towards_fair(0.57, -0.16, 2)
    assert not towards_fair(0.57, 0.02, 2)


def test_an_interval_and_a_verdict_that_disagree_are_refused() -> None:
    with pytest.raises(ValueError, match="disagree"):
        Estimate(0.05, -0.01, 0.11, True, "x")
    with pytest.raises(ValueError, match="disagree"):
        Estimate(0.05, 0.01, 0.11, False, "x")


def _study(diff: float, lo: float, hi: float) -> dict[str, Any]:
    sig = lo > 0 or hi < 0
    return {"variants": [{"name": "standard", "label": "Standard"},
                         {"name": "known", "label": "Known order"}],
            "ladder": {"level": "Learned agent"},
            "first_player": [{"variant": "standard", "n_players": 3, "share": 0.42}],
            "comparisons": [{"measure": "seat 0 win share", "n_players": 3,
                             "variant": "known", "baseline": "standard", "diff": diff,
                             "adj_lo": lo, "adj_hi": hi, "significant": sig}]}


def _ladder(label: str, top: tuple[float, float, float]) -> dict[str, Any]:
    est, lo, hi = top
    return {"skill": {"levels": [{"name": "expert", "label": "Learned agent"},
                                 {"name": "mcts", "label": "Search"}],
                      "findings": [{"kind": "effect", "measure": "seat 0 win share",
                                    "n_players": 3, "variant": "known",
                                    "baseline": "standard", "label": label,
                                    "levels": [{"level": "mcts", "estimate": est,
                                                "adj_lo": lo, "adj_hi": hi,
                                                "significant": lo > 0 or hi < 0}]}]}}


def test_study_advice_reads_the_ladder_and_the_population() -> None:
    study = _study(-0.05, -0.08, -0.02)
    robust = _ladder("robust", (-0.04, -0.07, -0.01))
    [(kind, text, _), (nxt, settle, _)] = study_advice(study, robust,
                                                       settle="portobello study p.toml")
    assert kind == CANDIDATE and "candidate rule" in text and "with the Search" in text
    assert nxt == "next step" and "portobello study p.toml" in settle
    [(kind, text, _), _] = study_advice(study, _ladder("skill-dependent", (0.02, -0.03, 0.07)),
                                     settle="x")
    assert kind == DO_NOT_RELY and "+2.0 pp [-3.0, +7.0] with the Search" in text
    population = {"bots": ["a", "b", "c"], "next": "c",
                  "players": [{"players": 3, "variants": [
                      {"variant": "known", "convergence": {"converged": True}}]}],
                  "changes": [{"n_players": 3, "variant": "known", "diff": -0.04,
                               "adj_lo": -0.06, "adj_hi": -0.02, "significant": True}]}
    [(kind, text, short)] = study_advice(study, _ladder("robust", (-0.04, -0.07, -0.01)),
                                  population, settle="x")
    assert kind == RECOMMEND and "whoever plays among a, b" in text and "use Known" in text
    assert short == "Known order at 3p: recommend (use it)"


def test_fairness_advice_by_cell() -> None:
    def cell(confirmed: bool, checks: list[bool]) -> dict[str, Any]:
        return {"label": "Standard rules", "players": 2,
                "recommended": {"label": "start_scores[1] +7", "confirmed": confirmed},
                "checks": [{"agents": [f"agent{i}"], "fair": f} for i, f in enumerate(checks)]}
    got = fairness_advice({"agents": "expert", "cells": [
        cell(True, [True]), cell(True, []), cell(True, [True, False]), cell(False, [])]})
    assert [k for k, _, _ in got] == [RECOMMEND, CANDIDATE, DO_NOT_RELY, UNKNOWN]
    assert got[0].short == "Standard rules at 2 players: recommend (start_scores[1] +7)"
    assert "not for agent1" in got[2][1]
    assert "try a wider range" in got[3][1]


def test_the_box_goes_under_the_title_and_is_replaced_whole() -> None:
    page = "<html><body><h1>T</h1><p>rest</p></body></html>"
    once = with_box(page, box_html([Item(CANDIDATE, "a <b>")], "rule"))
    assert once.index(BOX_BEGIN) > once.index("</h1>") and "a &lt;b&gt;" in once
    twice = with_box(once, box_html([Item(UNKNOWN, "c")], "rule"))
    assert twice.count(BOX_BEGIN) == 1 and "a &lt;b&gt;" not in twice and ">c<" not in twice
    assert ": c</li>" in twice
    with pytest.raises(ValueError, match="no title"):
        with_box("<p>no title</p>", "box")


def test_fairness_advice_of_a_tuning_at_several_levels_of_play() -> None:
    # A tuning played at every level (agents = [...]): its levels are its checks. Fair at
    # both: recommend; confirmed at none (the best compromise): do not rely on it.
    def cell(confirmed: bool, fair: list[bool]) -> dict[str, Any]:
        return {"label": "Standard rules", "players": 3,
                "recommended": {"label": "start_scores[1] +5", "confirmed": confirmed,
                                "gap": 0.04, "worst": "expert",
                                "levels": [{"agents": a, "fair": f} for a, f in
                                           zip(("heuristic", "expert"), fair, strict=True)]}}
    got = fairness_advice({"agents": "heuristic, expert",
                           "cells": [cell(True, [True, True]), cell(False, [True, False])]})
    assert [k for k, _, _ in got] == [RECOMMEND, DO_NOT_RELY]
    assert "confirmed fair for heuristic and expert" in got[0].text
    assert "no setting is fair at every level" in got[1].text and "0.040" in got[1].text


def test_a_ladder_reads_a_change_against_the_first_players_share_at_the_same_level() -> None:
    # 4 players (fair 0.25). At the learned agent the first player leads by 16 pp, so a
    # -5 pp change there cuts the edge; at the search the lead is 2 pp, where -5 pp would
    # overshoot fair. The change is read at the level below the top: it cuts.
    from analysis.report.advice import ladder_advice

    def level(name: str, est: float, lo: float, hi: float) -> dict[str, Any]:
        return {"level": name, "estimate": est, "adj_lo": lo, "adj_hi": hi,
                "significant": lo > 0 or hi < 0}
    ladder = {"variants": [{"name": "s12", "label": "12 stalls"},
                           {"name": "s16", "label": "16 stalls"}],
              "skill": {"levels": [{"name": "expert", "label": "Learned agent"},
                                   {"name": "mcts", "label": "Search"}],
                        "findings": [
                            {"kind": "first player", "variant": "s16", "n_players": 4,
                             "measure": "seat 0 win share", "label": "robust",
                             "levels": [level("expert", 0.16, 0.14, 0.18),
                                        level("mcts", 0.02, 0.005, 0.035)]},
                            {"kind": "effect", "variant": "s12", "baseline": "s16",
                             "n_players": 4, "measure": "seat 0 win share", "label": "robust",
                             "levels": [level("expert", -0.05, -0.08, -0.02),
                                        level("mcts", -0.05, -0.1, -0.001)]}]}}
    [(kind, text, _)] = ladder_advice(ladder)
    assert kind == CANDIDATE and "12 stalls cuts the first player's edge" in text


@pytest.mark.parametrize(("share", "lo", "hi", "converged", "kind", "action"), [
    # 2 players (fair 0.50): 0.66 [0.60, 0.72] leaves out 0.50 above, converged: recommend
    # compensating the later seats.
    (0.66, 0.60, 0.72, True, RECOMMEND, "compensate later seats"),
    # The same not converged, or with no next bot to check it: candidate.
    (0.66, 0.60, 0.72, False, CANDIDATE, "compensate later seats"),
    (0.66, 0.60, 0.72, None, CANDIDATE, "compensate later seats"),
    # 0.44 [0.41, 0.47] leaves it out below: the first seat is the one to compensate.
    (0.44, 0.41, 0.47, True, RECOMMEND, "compensate the first seat"),
    # 0.53 [0.47, 0.59] holds 0.50 (and an interval ending exactly at it holds it too):
    # no edge shown, whatever the convergence.
    (0.53, 0.47, 0.59, True, UNKNOWN, ""),
    (0.55, 0.50, 0.60, False, UNKNOWN, ""),
])
def test_the_edge_rules(share: float, lo: float, hi: float, converged: bool | None,
                        kind: str, action: str) -> None:
    e = Edge(2, "Standard rules", share, lo, hi, "whoever plays among a, b", converged)
    a = advise_edge(e)
    assert (a.kind, a.action) == (kind, action)
    text = edge_sentence(e, a)
    assert f"{100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" in text
    assert ("keep the rules" in text) == (kind == UNKNOWN)


def test_population_advice_leads_with_the_first_players_edge() -> None:
    # A population study of the standard rules alone at 2 and 3 players: at 2 players the
    # first player wins 0.795 [0.690, 0.845] (fair 0.50; no next bot: candidate), at 3
    # 0.328 [0.243, 0.420] (holds 1/3: unknown). A study with a variant gets the edge of its
    # baseline only, before the variant's change.
    def answer(est: float, lo: float, hi: float) -> dict[str, Any]:
        return {"answer": {"estimate": est, "lo": lo, "hi": hi}, "convergence": None}

    alone = {"bots": ["a", "b"], "labels": {"standard": "Standard rules"}, "changes": [],
             "command": "portobello study p.toml",
             "players": [{"players": 2, "variants": [{"variant": "standard",
                                                      **answer(0.795, 0.69, 0.845)}]},
                         {"players": 3, "variants": [{"variant": "standard",
                                                      **answer(0.328, 0.243, 0.42)}]}]}
    items = population_advice(alone)
    assert [(i.kind, i.short) for i in items[:2]] == [
        (CANDIDATE, "Standard rules at 2p: candidate (first player 79.5%, compensate later "
                    "seats)"),
        (UNKNOWN, "Standard rules at 3p: unknown (no first-player edge shown)")]
    assert items[-1].kind == "next step" and "portobello study p.toml" in items[-1].text
    paired = {"bots": ["a", "b"], "labels": {}, "command": "",
              "players": [{"players": 2, "variants": [
                  {"variant": "standard", **answer(0.66, 0.60, 0.72)},
                  {"variant": "known", **answer(0.62, 0.56, 0.68)}]}],
              "changes": [{"n_players": 2, "variant": "known", "baseline": "standard",
                           "diff": -0.04, "adj_lo": -0.11, "adj_hi": 0.03,
                           "significant": False}]}
    items = population_advice(paired)
    assert [i.short.split(":")[0] for i in items if i.kind != "next step"] == [
        "standard at 2p", "known at 2p"]
