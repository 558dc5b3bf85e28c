"""The report builds from a small study, has every section and embedded figures, opens
offline; `portobello report` refuses folders that are not runs and runs on other boards."""

from __future__ import annotations

import ast
import html
import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from analysis import compare as C
from analysis import plots as P
from analysis.report import SECTIONS
from analysis.report import analyse
from analysis.report import build_report
from analysis.report import display_tables
from analysis.report import headline
from analysis.report import page
from analysis.report import summary
from analysis.report.provenance import reduced_run
from analysis.report.provenance import report_title
from analysis.study import cells_from_runs
from analysis.study import load_study
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.games.portobello.agents import registry
from tests.test_study import BrokenAgent

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small study with an agent error in one player count (2p fine, 3p fails)."""
    out = tmp_path_factory.mktemp("study")
    registry.AGENTS["broken"] = BrokenAgent
    try:
        spec = study_from_dict({
            "name": "small", "title": "Small study", "players": [2, 3, 4],
            "agents": {"2": "random", "3": "random,random,broken", "4": "random"},
            "games": {"2": 80, "3": 6, "4": 40}, "seed": 4, "shard_size": 40,
            "variants": [{"name": "standard", "label": "Standard"},
                         {"name": "known", "label": "Known order", "preset": "known-order"}]})
        run_study(spec, out, quiet=True)
    finally:
        del registry.AGENTS["broken"]
    return out


@pytest.fixture(scope="module")
def report(study_dir: Path) -> str:
    path = build_report(open_study(study_dir), study_dir / "report")
    return path.read_text(encoding="utf-8")


def test_report_has_every_section_and_embedded_figures(report: str, study_dir: Path) -> None:
    for section in SECTIONS:
        assert f'<section id="{section}">' in report, section
    images = re.findall(r'<img src="([^"]+)"', report)
    # win shares, comparisons, scores, margins, length, points, districts, endings,
    # 2 luck charts, one board per variant.
    assert len(images) == 12
    assert all(src.startswith("data:image/png;base64,") for src in images)
    # Self-contained: nothing is fetched from elsewhere.
    assert not re.search(r'(src|href)="(https?:|//|file:)', report)
    assert "<script" not in report
    # Findings on top, with numbers and intervals.
    assert report.index('id="findings"') < report.index('id="win-shares"')
    assert re.search(r"the first player \(seat 0\) wins \d+\.\d% of games \(95% CI", report)
    assert "Known order vs Standard: seat 0 win share" in report
    # Configuration and seeds, the study file, and the agent error under anomalies.
    assert "Agent errors: cells that did not finish" in report
    assert "standard-3p" in report and "boom" in report
    assert "random" in report and "seed" in report
    summary = json.loads((study_dir / "report" / "summary.json").read_text())
    assert summary["findings"] and {f["topic"] for f in summary["findings"]} >= {
        "precision", "variant", "balance", "luck"}
    assert {c["key"] for c in summary["failed_cells"]} == {"standard-3p", "known-3p"}
    assert len(summary["win_shares"]) == 2 * (2 + 4)
    size = (study_dir / "report" / "index.html").stat().st_size
    assert size < 3_000_000


def test_report_files_are_written_whole(report: str, study_dir: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """index.html and summary.json replace the old report in one step: a write that fails
    (here the disk refuses to flush) leaves the old report and no temporary file or
    folder."""
    assert sorted(p.name for p in (study_dir / "report").iterdir()) == ["index.html",
                                                                        "summary.json"]
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("the old report")

    def refuse(fd: int) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(page, "render",
                        lambda a, figs, dpi=100, watch=(), advice="": "<html>new</html>")
    monkeypatch.setattr(page, "figures", lambda a: {})
    monkeypatch.setattr(os, "fsync", refuse)
    with pytest.raises(OSError, match="no space left"):
        build_report(open_study(study_dir), out)
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["report"]
    assert (out / "index.html").read_text() == "the old report"
    monkeypatch.undo()
    monkeypatch.setattr(page, "render",
                        lambda a, figs, dpi=100, watch=(), advice="": "<html>new</html>")
    monkeypatch.setattr(page, "figures", lambda a: {})
    build_report(open_study(study_dir), out)
    assert (out / "index.html").read_text() == "<html>new</html>"
    assert json.loads((out / "summary.json").read_text())["title"] == "Small study"


def test_analysis_never_imports_the_command_line() -> None:
    """The layers: analysis builds on sim.games.portobello, sim.games.portobello.agents and sim.run,
    never on sim.cli (the command line calls analysis, not the other way round)."""
    offenders = []
    for path in sorted((ROOT / "analysis").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                          if n == "sim.cli" or n.startswith("sim.cli.")]
    assert not offenders


def test_report_command_from_runs(study_dir: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    runs = [str(study_dir / "runs" / k) for k in ("known-2p", "standard-2p", "known-4p")]
    r = _cli(capsys, "report", *runs, "--out", str(tmp_path / "rep"), "--title", "From runs")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "rep" / "index.html")
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "From runs" in page and "customer_order=known vs standard" in page
    data = cells_from_runs(runs)
    assert data.variants == ["standard", "customer_order=known"]
    assert [(c.variant, c.players) for c in data.cells] == [
        ("standard", 2), ("customer_order=known", 2), ("customer_order=known", 4)]


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the command line in this process (faster than a new interpreter)."""
    from sim.cli.command import main

    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out.out, out.err)


def test_report_refuses_folders_that_are_not_runs(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def _report(*args: str) -> subprocess.CompletedProcess[str]:
        return _cli(capsys, "report", *args)

    (tmp_path / "empty").mkdir()
    r = _report(str(tmp_path / "empty"), "--out", str(tmp_path / "o"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == f"portobello: error: {tmp_path / 'empty'}: not a run folder: " \
                               "no manifest.json"
    r = _report(str(tmp_path / "missing"), "--out", str(tmp_path / "o"))
    assert r.returncode == 1 and "no such folder" in r.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text("{}")
    r = _report(str(tmp_path / "bad"), "--out", str(tmp_path / "o"))
    assert r.returncode == 1 and "is not a portobello run manifest" in r.stderr
    assert not (tmp_path / "o").exists()


def test_report_refuses_runs_on_different_boards(study_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    def _report(*args: str) -> subprocess.CompletedProcess[str]:
        return _cli(capsys, "report", *args)

    text = (ROOT / "data" / "boards" / "standard.toml").read_text()
    text = text.replace('name = "standard"', 'name = "variant-board"', 1)
    text = text.replace("spots = [3, 1]", "spots = [3, 2]", 1)
    board = tmp_path / "variant-board.toml"
    board.write_text(text)
    other = tmp_path / "other"
    r = _cli(capsys, "simulate", "--board", str(board), "--games", "4", "--out", str(other),
             "--quiet")
    assert r.returncode == 0, r.stderr
    r = _report(str(study_dir / "runs" / "standard-2p"), str(other), "--out",
                str(tmp_path / "o"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "runs are on different boards" in r.stderr and "variant-board" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = _report(str(study_dir / "runs" / "standard-2p"), str(study_dir / "runs" /
                                                            "standard-2p"), "--out",
                str(tmp_path / "o"))
    assert r.returncode == 1 and "two runs for the same variant" in r.stderr


# -- significance agrees with the adjusted intervals everywhere the report shows them --------
NUMBER = r"([+-]?\d+(?:\.\d+)?)"
SHOWN_INTERVAL = re.compile(NUMBER + r"(?: pp)? to " + NUMBER)


def shown_excludes_zero(text: str) -> bool:
    """Whether the first `a to b` interval written in `text` leaves out 0, as printed."""
    m = SHOWN_INTERVAL.search(text)
    assert m, text
    lo, hi = float(m.group(1)), float(m.group(2))
    return lo > 0 or hi < 0


def planted_measures() -> pd.DataFrame:
    """Per-game values of four measures, paired on seeds, placed so that the paired t tests
    give raw p-values 0.001, 0.0497/3, 0.0503/2 and 0.5: Holm-adjusted 0.004, 0.0497 (2
    players, seat 0: just significant), 0.0503 (4 players, seat 0: just not) and 0.5."""
    rng = np.random.default_rng(3)
    n, sd = 400, 0.3
    z = rng.standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    plan = [(2, "winning margin", C.POINTS, 0.001, 1), (2, "seat 0 win share", C.SHARE,
                                                         0.0497 / 3, -1),
            (4, "seat 0 win share", C.SHARE, 0.0503 / 2, 1), (4, "mean score", C.POINTS, 0.5, 1)]
    frames = []
    for players, measure, kind, p, sign in plan:
        mu = sign * float(st.t.isf(p / 2, n - 1)) * sd / np.sqrt(n)
        base = 0.5 + 0.1 * rng.standard_normal(n)
        for variant, value in (("standard", base), ("known", base + mu + sd * z)):
            frames.append(pd.DataFrame({"n_players": players, "variant": variant,
                                        "game_id": np.arange(n), "seed": np.arange(n) + 7,
                                        "measure": measure, "kind": kind, "value": value}))
    return pd.concat(frames, ignore_index=True)


def test_significant_exactly_when_the_shown_adjusted_interval_excludes_zero(
        study_dir: Path) -> None:
    """On a planted family near the threshold, every place the report shows a comparison
    (table, at-a-glance table, findings, forest plot, summary.json) calls it significant
    exactly when the adjusted interval it shows leaves out 0, and its p (Holm) reads on the
    right side of 0.05."""
    a = analyse(open_study(study_dir))
    table = C.Holm(interval=C.TInterval("diff"))(
        C.VariantDifference("standard")(planted_measures()))
    assert table["p_holm"].round(6).tolist() == [0.004, 0.0497, 0.0503, 0.5]
    a.tables["comparisons"] = table
    a.findings = C.difference_findings(table, a.labels)

    shown = display_tables(a)["comparisons"]
    col = shown.headers.index("Holm-adjusted CI (level)")
    ps = [row.cells[shown.headers.index("p (Holm)")][0] for row in shown.rows]
    assert ps == ["0.004", "0.0497", "0.0503", "0.500"]
    assert [row.highlight for row in shown.rows] == [True, True, False, False]
    for row in shown.rows:
        assert shown_excludes_zero(row.cells[col][0]) == row.highlight, row
    # The unadjusted 95% interval of the just-not-significant row leaves out 0: the old
    # contradiction, now resolved by the adjusted interval beside it.
    assert shown_excludes_zero(shown.rows[2].cells[shown.headers.index("95% CI")][0])

    glance = headline(a)
    change = [r.cells[-1][0] for r in glance.rows if r.cells[1][0] == "Known order"]
    assert len(change) == 2 and change[0].endswith("*") and not change[1].endswith("*")
    for text in change:
        assert shown_excludes_zero(text.split("(", 1)[1]) == text.endswith("*")

    sentences = [f for f in a.findings if "Holm-adjusted for" in f.text]
    assert len(sentences) == 3  # both seat-0 rows, and the significant margin
    for f in sentences:
        adjusted = f.text.split("Holm-adjusted for 4 comparisons ", 1)[1]
        assert shown_excludes_zero(adjusted) == f.significant, f.text
        assert ("), significant (Holm" in f.text) == f.significant
    assert any("(Holm p = 0.0497)" in f.text and f.significant for f in sentences)
    assert any("(Holm p = 0.0503)" in f.text and not f.significant for f in sentences)

    fig = P.seat_differences(table, a.labels)
    ax = fig.axes[0]
    bars = next(c for c in ax.collections if c.get_gid() == "adjusted")
    spans = {round(float(seg[0][1]), 6): (float(seg[0][0]), float(seg[1][0]))
             for seg in bars.get_segments()}
    for gid, filled in (("significant", True), ("not significant", False)):
        markers = next(c for c in ax.collections if c.get_gid() == gid)
        for _x, y in markers.get_offsets():
            lo, hi = spans[round(float(y), 6)]
            assert (lo > 0 or hi < 0) == filled, (gid, lo, hi)
    assert sum(len(c.get_offsets()) for c in ax.collections
               if c.get_gid() in ("significant", "not significant")) == 2

    for r in summary(a)["comparisons"]:
        assert (r["adj_lo"] > 0 or r["adj_hi"] < 0) == r["significant"], r


def test_every_tested_table_agrees_with_its_adjusted_intervals(study_dir: Path) -> None:
    """In a real report, every Holm family with intervals (comparisons, first player against
    fair, luck slopes) is significant exactly where its adjusted interval leaves out the
    tested value; summary.json carries the adjusted fields beside the old ones."""
    a = analyse(open_study(study_dir))
    t = a.tables
    for name, value in (("comparisons", None), ("first_player", "fair"),
                        ("luck_effects", None)):
        df = t[name].dropna(subset=["p_value"])
        assert len(df) and {"p_holm", "adj_lo", "adj_hi", "adj_level", "holm_m"} <= set(df)
        tested = df[value] if value else 0.0
        excl = (df["adj_lo"] > tested) | (df["adj_hi"] < tested)
        assert (excl == df["significant"]).all(), name
    s = summary(a)
    assert {"lo", "hi", "p_holm", "significant", "adj_lo", "adj_hi"} <= set(s["comparisons"][0])
    assert {"adv_lo", "adv_hi", "adv_adj_lo", "adv_adj_hi"} <= set(s["first_player"][0])
    assert "Holm" in s["significance"]["adj_lo_adj_hi"] and s["reduced"] is None


# -- reduced runs say so ----------------------------------------------------------------------
def test_a_reduced_run_says_so_in_its_title_and_header(tmp_path: Path) -> None:
    spec = load_study(ROOT / "data" / "studies" / "customer-order.toml").with_overrides(
        games=4, agents="random")
    run_study(spec, tmp_path / "study", quiet=True)
    data = open_study(tmp_path / "study")
    title = ("Customer order: standard draw vs known order (reduced: 4 games per cell, the "
             "spec asks for 4,400–4,500; agents random instead of the spec's expert)")
    path = build_report(data, tmp_path / "report")
    page = html.unescape(path.read_text(encoding="utf-8"))
    assert f"<h1>{title}</h1>" in page and f"<title>{title} ·" in page
    # No count of 200 games (the shard size) anywhere; a speed such as "1,200 games/s" in
    # the provenance table is a rate, not a count, and depends on the machine.
    assert not re.search(r"(?<![\d,])200 games(?!/s)", page)
    assert ("4 games per cell were played, where the study spec asks for 4,400 at 2 players, "
            "4,500 at 3 players, 4,400 at 4 players") in page
    s = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert s["title"] == title and s["study_title"] == data.title
    assert s["reduced"]["games_in_spec"] == {"2": 4400, "3": 4500, "4": 4400}
    assert s["reduced"]["games_played"] == {"2": 4, "3": 4, "4": 4}
    # The same runs against a spec asking for what they played: not reduced.
    text = data.study["spec_text"]
    text = re.sub(r"\[games\]\n2 = 4400\n3 = 4500\n4 = 4400", "games = 4", text)
    text = re.sub(r'(?m)^agents = ".*"$', 'agents = "random"', text)
    same = replace(data, study={**data.study, "spec_text": text}, _cache={})
    assert reduced_run(same) is None and report_title(same) == data.title


# -- variants without a player count in common --------------------------------------------
def test_report_from_runs_sharing_no_player_count(study_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """One variant's 2-player run with another's 4-player run: a report without comparisons
    that says why (it used to stop on `Holm: the table has no column(s) p_value`)."""
    runs = [str(study_dir / "runs" / k) for k in ("standard-2p", "known-4p")]
    r = _cli(capsys, "report", *runs, "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "rep" / "index.html").read_text()
    note = ("No variant was played at a player count of the baseline (standard), so there "
            "are no comparisons (standard: 2 players; customer_order=known: 4 players)")
    section = page[page.index('<section id="comparisons">'):page.index('<section id="scores">')]
    assert note in section and "<table>" not in section
    assert note in page[page.index('id="findings"'):page.index('id="win-shares"')]
    s = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert s["comparisons"] == [] and s["no_comparisons"].startswith(note)


def test_a_variant_whose_games_all_hit_the_round_limit_reports_without_warnings(
        tmp_path: Path) -> None:
    """Every game of one variant stopped by the round limit: its game length is left out
    of the length tables and charts (nothing to average), which the report says without
    numpy's "Mean of empty slice" or degrees-of-freedom warnings."""
    import warnings

    from sim.cli import main

    spec = tmp_path / "s.toml"
    spec.write_text('name = "limit"\nplayers = [2]\nagents = "random"\ngames = 20\nseed = 1\n'
                    'shard_size = 20\n[[variants]]\nname = "standard"\n'
                    '[[variants]]\nname = "short"\nrules = { max_rounds = 1 }\n')
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert main(["study", str(spec), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    summary = json.loads((tmp_path / "o" / "report" / "summary.json").read_text())
    limited = [a for a in summary["anomalies"] if a["variant"] == "short"]
    assert limited and limited[0]["games"] == 20


def test_every_table_fits_the_page_at_1400_pixels(report: str, study_dir: Path,
                                                  browser: Any) -> None:
    """In a 1400-pixel window no table is wider than the page's column: text cells and
    headers wrap (numbers never), so nothing runs off the page."""
    browser.get((study_dir / "report" / "index.html").as_uri())
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    wide = browser.execute_script("""return Array.from(document.querySelectorAll('table'))
        .filter(t => t.offsetWidth > t.closest('section').clientWidth)
        .map(t => [t.closest('section').id, t.offsetWidth]);""")
    assert wide == []
    assert browser.execute_script("return document.querySelectorAll('table').length") > 10
