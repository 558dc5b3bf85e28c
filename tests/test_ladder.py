"""A report measured at one level of play, beside a skill ladder (`analysis.report.ladder`):
each finding the ladder examined carries its label (page, summary.json, the closing lines),
the banner names the ladder level the report's agents play (matched by what they play, so
pinned weights are their weight set), and a bad ladder is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.report.ladder import LadderError
from analysis.report.ladder import play_fingerprint
from analysis.report.ladder import read_ladder
from sim.cli import main

SPEC = """name = "tiny"
players = [2]
agents = "random"
games = 40
seed = 9
shard_size = 20
{ladder}
[[variants]]
name = "standard"

[[variants]]
name = "known"
preset = "known-order"
"""


def ladder_summary(label: str = "reversed") -> dict[str, Any]:
    """A planted ladder: two levels, random and greedy, and its word on two findings of
    the tiny study (and one it does not have, at 3 players)."""
    def finding(kind: str, n: int, variant: str, label: str) -> dict[str, Any]:
        return {"kind": kind, "n_players": n, "variant": variant, "baseline": "standard",
                "measure": "seat 0 win share", "value_kind": "share", "label": label,
                "verdict": label, "reason": "planted for the test",
                "levels": [{"level": "random", "estimate": 0.01, "adj_lo": -0.02,
                            "adj_hi": 0.04, "significant": False},
                           {"level": "greedy", "estimate": -0.05, "adj_lo": -0.09,
                            "adj_hi": -0.01, "significant": True}]}
    return {"title": "Planted ladder", "variants": [
        {"name": "standard", "label": "Standard", "rules": {}},
        {"name": "known", "label": "Known", "rules": {"customer_order": "known"}}],
            "skill": {
        "levels": [{"name": "random", "label": "Random", "agents": "random"},
                   {"name": "greedy", "label": "Greedy", "agents": "greedy"}],
        "counts": {"robust": 1, "skill-dependent": 0, "reversed": 1, "not found": 1},
        "findings": [{**finding("effect", 2, "known", label), "convergence": {
            "label": "converged", "text": "converged", "missing": [],
            "reason": "planted for the test"}},
                     finding("first player", 2, "standard", "robust"),
                     finding("effect", 3, "known", "not found")]}}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("ladder")
    ladder = root / "ladder"
    ladder.mkdir()
    (ladder / "summary.json").write_text(json.dumps(ladder_summary()))
    (ladder / "index.html").write_text("<html>the ladder</html>")
    spec = root / "tiny.toml"
    spec.write_text(SPEC.format(ladder='ladder = "ladder"'))
    out = root / "study"
    assert main(["study", str(spec), "--out", str(out), "--quiet"]) == 0
    return out, ladder


def test_examined_findings_carry_the_ladders_label(made: tuple[Path, Path]) -> None:
    out, _ = made
    summary = json.loads((out / "report" / "summary.json").read_text())
    labelled = {f["label"]: f["text"] for f in summary["findings"] if f.get("label")}
    assert set(labelled) == {"reversed", "robust"}
    assert "Skill ladder: reversed: planted for the test; at its strongest level, Greedy: " \
           "-5.0 pp (-9.0 pp to -1.0 pp), significant; at the top: converged." \
           in labelled["reversed"]
    # A ladder finding without a convergence (an older ladder) says nothing of it.
    assert "at the top" not in labelled["robust"]
    assert labelled["reversed"].startswith("2 players, known vs standard")
    assert summary["ladder"] == {"report": "../../ladder/index.html", "title": "Planted ladder",
                                 "level": "Random", "levels": ["Random", "Greedy"],
                                 "counts": {"robust": 1, "skill-dependent": 0, "reversed": 1,
                                            "not found": 1}, "examined": 2}
    page = (out / "report" / "index.html").read_text()
    assert 'href="../../ladder/index.html"' in page and "<b>Random</b> level" in page
    assert "· reversed · converged</td>" in page  # the at-a-glance change carries both


def test_the_closing_lines_name_the_ladders_label(made: tuple[Path, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = made
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(out.parent / "again")]) == 0
    err = capsys.readouterr().err
    assert "known − standard: " in err
    assert "; skill ladder: reversed; at the top: converged" in err


def test_report_takes_a_ladder_for_loose_runs_and_refuses_a_bad_one(
        made: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, ladder = made
    rep = tmp_path / "rep"
    assert main(["report", str(out / "runs" / "standard-2p"), str(out / "runs" / "known-2p"),
                 "--out", str(rep), "--ladder", str(ladder)]) == 0
    assert json.loads((rep / "summary.json").read_text())["ladder"]["examined"] == 2
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "x"), "--ladder",
                 str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no summary.json here" in err[0] and "ladder" in err[0]
    with pytest.raises(LadderError, match="without skill levels"):
        (tmp_path / "summary.json").write_text(json.dumps({"skill": None}))
        read_ladder(tmp_path)


def test_a_spec_naming_a_missing_ladder_is_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.format(ladder='ladder = "nowhere"'))
    assert main(["study", str(spec), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "s.toml: ladder: 'nowhere' holds no summary.json" in err


def test_agents_are_matched_by_what_they_play() -> None:
    pinned = ("heuristic:lane=1.0,fill=0.8,end=0.85,district=0.8,horizon=3.0,majority=0.4,"
              "growth=0.15,stall=0.6,tempo=1.5,bobby=0.2,rival=1.0,min_gain=0.0,simulate=true")
    for n in (2, 3, 4):
        assert play_fingerprint(pinned, n) == play_fingerprint("heuristic:weights=classic", n)
        assert play_fingerprint(pinned, n) != play_fingerprint("heuristic", n)  # tuned
    assert play_fingerprint("fastmcts:iterations=100", 2) == "fastmcts:iterations=100"


def test_a_badge_says_whose_label_it_is_and_never_contradicts_its_sentence(
        tmp_path: Path) -> None:
    # The tiny study's 40 random games find no change from the known order, while a planted
    # ladder labels that change robust: the badge names the ladder, the sentence says this
    # study's own games do not show it, and the advice box does not advise the change.
    ladder = tmp_path / "ladder"
    ladder.mkdir()
    (ladder / "summary.json").write_text(json.dumps(ladder_summary("robust")))
    (ladder / "index.html").write_text("<html>the ladder</html>")
    spec = tmp_path / "tiny.toml"
    spec.write_text(SPEC.format(ladder='ladder = "ladder"'))
    out = tmp_path / "study"
    assert main(["study", str(spec), "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "report" / "summary.json").read_text())
    change = next(f for f in summary["findings"] if f.get("label") == "robust"
                  and f["text"].startswith("2 players, known"))
    assert change["label_source"] == "skill ladder"
    assert not change["significant"]
    assert "The label is the ladder's, from its own games; this study's games do not show " \
           "the finding significantly." in change["text"]
    page = (out / "report" / "index.html").read_text()
    assert ">skill ladder: robust</span>" in page
    box = page[page.index('<div id="advice"'):page.index("<!-- advice: end -->")]
    assert page.index('<div id="advice"') < page.index("<nav>")
    assert "unknown</b>" in box and "candidate" not in box.split("How the advice")[0]
