"""The committed reports' convergence labels follow the present rule: each finding's label,
missing points and reason, worked out again by `analysis.metrics.convergence.classify` from
the intervals its `summary.json` stores (the two strongest levels' Holm-adjusted estimates,
their paired difference and the saturation check at its player count), are the ones the
summary, the report page and README show. The ladders' run folders are not committed, so
this is what guards a relabelling done from the summaries alone."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from analysis.metrics.convergence import RULE
from analysis.metrics.convergence import Interval
from analysis.metrics.convergence import Saturation
from analysis.metrics.convergence import classify
from analysis.metrics.robustness import LevelEstimate

REPORTS = Path(__file__).resolve().parents[1] / "reports"
LADDERS = sorted(p.parent.name for p in REPORTS.glob("*/summary.json")
                 if "convergence" in (json.loads(p.read_text()).get("skill") or {}))


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _level(entry: dict[str, Any], label: str) -> LevelEstimate:
    return LevelEstimate(label, _num(entry["estimate"]), _num(entry["adj_lo"]),
                         _num(entry["adj_hi"]), bool(entry["significant"]))


def _words(text: str) -> str:
    return re.sub(r"[-+]?\d[\d.,]*", "#", text)


def _again(skill: dict[str, Any], finding: dict[str, Any]) -> Any:
    labels = {lv["name"]: lv["label"] for lv in skill["levels"]}
    second, top = (_level(e, labels.get(e["level"], e["level"])) for e in finding["levels"][-2:])
    t = finding["convergence"]["top_difference"]
    difference = None if t is None else Interval(_num(t["diff"]), _num(t["adj_lo"]),
                                                 _num(t["adj_hi"]))
    c = skill["convergence"]["saturation"].get(str(finding["n_players"]))
    saturation = None if c is None else Saturation(Interval(c["share"], c["lo"], c["hi"]),
                                                   c["fair"], int(c["games"]))
    conv = skill["convergence"]
    return classify(second, top, difference, saturation, conv["margin"],
                    conv["saturation_margin"])


def test_there_are_committed_ladders() -> None:
    assert {"skill-ladder", "stalls-ladder", "neutral-stack-ladder"} <= set(LADDERS)


@pytest.mark.parametrize("name", LADDERS)
def test_every_committed_label_is_the_present_rule(name: str) -> None:
    summary = json.loads((REPORTS / name / "summary.json").read_text())
    skill = summary["skill"]
    assert skill["convergence"]["rule"] == RULE
    counts = {"converged": 0, "not converged": 0}
    for f in skill["findings"]:
        again = _again(skill, f)
        stored = f["convergence"]
        assert (stored["label"], tuple(stored["missing"]), stored["text"]) == (
            again.label, again.missing, again.text), (name, f["measure"])
        # The reason's words too; its figures from the summary's rounded estimates may
        # differ in the last digit.
        assert _words(stored["reason"]) == _words(again.reason), (name, f["measure"])
        counts[again.label] += 1
    assert skill["convergence"]["counts"] == counts
    page = html.unescape((REPORTS / name / "index.html").read_text())
    assert RULE in page
    assert f"{counts['converged']} converged" in page
    # No label of the earlier rule is left on the page, in the summary or in README.
    for text in (page, json.dumps(summary, ensure_ascii=False),
                 (REPORTS.parent / "README.md").read_text(),
                 (REPORTS / "README.md").read_text()):
        assert "top not saturated" not in text and "no saturation check)" not in text


def test_an_unsaturated_top_is_no_longer_a_missing_point() -> None:
    """Every committed ladder's doubled budget still wins significantly more than 1/n,
    which the reason says, yet no label names it as missing."""
    for name in LADDERS:
        skill = json.loads((REPORTS / name / "summary.json").read_text())["skill"]
        states = {c["state"] for c in skill["convergence"]["saturation"].values()}
        assert states == {"not saturated"}, name
        for f in skill["findings"]:
            assert "the top is not saturated" in f["convergence"]["reason"]
