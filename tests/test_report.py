"""The report builds from a small study, has every section and embedded figures, opens
offline; `portobello report` refuses folders that are not runs and runs on other boards."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

from analysis.report import SECTIONS, build_report, page
from analysis.study import cells_from_runs, open_study, run_study, study_from_dict
from sim.agents import registry
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
    """index.html and summary.json replace the old files in one step: a write that fails
    (here the disk refuses to flush) leaves the old report and no temporary file."""
    assert sorted(p.name for p in (study_dir / "report").iterdir()) == ["index.html",
                                                                        "summary.json"]
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("the old report")

    def refuse(fd: int) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(page, "render", lambda a, figs, dpi=100: "<html>new</html>")
    monkeypatch.setattr(page, "figures", lambda a: {})
    monkeypatch.setattr(page.os, "fsync", refuse)
    with pytest.raises(OSError, match="no space left"):
        build_report(open_study(study_dir), out)
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text() == "the old report"
    monkeypatch.undo()
    monkeypatch.setattr(page, "render", lambda a, figs, dpi=100: "<html>new</html>")
    monkeypatch.setattr(page, "figures", lambda a: {})
    build_report(open_study(study_dir), out)
    assert (out / "index.html").read_text() == "<html>new</html>"
    assert json.loads((out / "summary.json").read_text())["title"] == "Small study"


def test_analysis_never_imports_the_command_line() -> None:
    """The layers: analysis builds on sim.engine, sim.agents and sim.run, never on sim.cli
    (the command line calls analysis, not the other way round)."""
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
    from sim.cli.main import main

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
    assert r.returncode == 1 and "is not a portobello-run/1 manifest" in r.stderr
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
