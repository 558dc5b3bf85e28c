"""Where commands write (`sim.core.outputs`): an output never overwrites one of the
command's inputs or a file inside a folder another command owns, and a report folder is
replaced whole, so a killed `report` leaves the old report or the new one (never the new
page beside the old summary) and a report rebuilt over an older one keeps none of its
pages."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.report import page as report_page
from analysis.study.spec import STUDY_FILE
from sim.cli import main
from sim.core.outputs import OWNED
from sim.core.outputs import OutputError
from sim.core.outputs import check_output
from sim.core.outputs import replace_folder
from sim.tuning import search as agent_tuning
from sim.tuning.fairness import run as fairness

ARGS = ["simulate", "--players", "2", "--agents", "random,greedy", "--seed", "8",
        "--shard-size", "20", "--records", "--quiet"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("outputs") / "run"
    assert main([*ARGS, "--games", "60", "--out", str(out)]) == 0
    return out


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_the_owned_markers_are_the_commands_own_files() -> None:
    assert set(OWNED) == {"manifest.json", STUDY_FILE, fairness.LOG, agent_tuning.LOG}


# -- inputs and other commands' folders ----------------------------------------------------
def test_view_never_overwrites_its_record_or_a_run_folders_files(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    assert main(["play", "--agents", "random", "--seed", "2", "--record", str(record)]) == 0
    kept = record.read_bytes()
    capsys.readouterr()
    assert main(["view", str(record), "--out", str(record)]) == 1
    assert "is also this command's input" in one_line(capsys)
    assert record.read_bytes() == kept
    manifest = run / "manifest.json"
    before = manifest.read_bytes()
    for out in (manifest, run / "game3.html", run / "games" / "page.html"):
        assert main(["view", str(run), "--game", "3", "--out", str(out)]) == 1
        line = one_line(capsys)
        assert f"lies inside {run}, a run folder" in line and "--out" in line
    assert manifest.read_bytes() == before
    assert not (run / "game3.html").exists()
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0  # still whole
    assert main(["view", str(run), "--game", "3", "--out", str(tmp_path / "g3.html")]) == 0


def test_report_and_simulate_refuse_inputs_and_foreign_folders(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(run), "--out", str(run)]) == 1
    assert "is also this command's input" in one_line(capsys)
    assert main(["report", str(run), "--out", str(run / "report")]) == 1
    assert "lies inside this command's input" in one_line(capsys)
    assert main(["report", str(run), "--out", str(run.parent)]) == 1
    assert "holds this command's input" in one_line(capsys)
    mine = tmp_path / "documents"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    assert main(["report", str(run), "--out", str(mine)]) == 1
    assert "holding files that are not a report's (thesis.tex)" in one_line(capsys)
    assert (mine / "thesis.tex").read_text() == "years of work"
    capsys.readouterr()
    assert main([*ARGS, "--games", "20", "--out", str(run / "inner")]) == 1
    assert "lies inside" in one_line(capsys)
    assert main(["board", "show", str(run / "manifest.json"), "--out",
                 str(run / "manifest.json")]) == 1
    assert "input" in one_line(capsys)


def test_a_study_or_tuning_writes_its_report_in_its_own_folder_only(tmp_path: Path) -> None:
    study = tmp_path / "study"
    study.mkdir()
    (study / STUDY_FILE).write_text("{}")
    # the study's own report folder may be written by a report command...
    assert check_output(study / "report", report=True) == study / "report"
    # ... nothing else inside it
    with pytest.raises(OutputError, match="a study folder"):
        check_output(study / "runs" / "x", report=True)
    with pytest.raises(OutputError, match="a study folder"):
        check_output(study / "page.html")
    # a command writes inside the folder it owns
    assert check_output(study / "runs", owned=[study]) == study / "runs"


# -- a report replaced whole -----------------------------------------------------------------
def test_a_failed_rebuild_leaves_the_old_report_whole(
        run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rep = tmp_path / "rep"
    assert main(["report", str(run), "--out", str(rep), "--title", "Old"]) == 0
    old = {p.relative_to(rep).as_posix(): p.read_bytes() for p in rep.rglob("*")
           if p.is_file()}
    real = report_page._write_text

    def killed_between_the_files(path: Path, text: str) -> None:
        if path.name == "summary.json":  # the new page is written, its summary is not
            raise KeyboardInterrupt
        real(path, text)

    monkeypatch.setattr(report_page, "_write_text", killed_between_the_files)
    assert main(["report", str(run), "--out", str(rep), "--title", "New"]) == 130
    now = {p.relative_to(rep).as_posix(): p.read_bytes() for p in rep.rglob("*")
           if p.is_file()}
    assert now == old
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    monkeypatch.setattr(report_page, "_write_text", real)
    assert main(["report", str(run), "--out", str(rep), "--title", "New"]) == 0
    assert json.loads((rep / "summary.json").read_text())["title"] == "New"
    assert "New" in (rep / "index.html").read_text()


def test_a_killed_report_leaves_the_old_pair_or_the_new_pair(run: Path, tmp_path: Path) -> None:
    rep = tmp_path / "rep"
    assert main(["report", str(run), "--out", str(rep), "--title", "Old"]) == 0
    rng = random.Random(5)
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "report", str(run),
                                 "--out", str(rep), "--title", "Again"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.0, 4.0))  # a report takes about 2.5 s here
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        title = json.loads((rep / "summary.json").read_text())["title"]
        page = (rep / "index.html").read_text()
        assert re.search(rf"<title>{title}\b", page), "the page and its summary disagree"
        assert sorted(p.name for p in rep.iterdir()) == ["games", "index.html",
                                                         "summary.json"]
    # what a kill left beside the folder is cleared by the next report
    assert main(["report", str(run), "--out", str(rep), "--title", "Last"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]


def test_a_rebuilt_report_keeps_only_its_own_games_pages(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nplayers = [2]\nagents = "random,greedy"\ngames = 40\n'
                    'seed = 3\nshard_size = 20\nrecords = true\n'
                    '[[variants]]\nname = "standard"\n')
    out = tmp_path / "study"
    assert main(["study", str(spec), "--out", str(out), "--quiet"]) == 0
    stale = out / "report" / "games" / "old-game999.html"
    stale.write_text("<html>a page of an older report</html>")
    assert main(["study", str(spec), "--out", str(out), "--quiet", "--games", "80"]) == 0
    page = (out / "report" / "index.html").read_text()
    linked = set(re.findall(r'href="games/([^"]+)"', page))
    assert linked and {p.name for p in (out / "report" / "games").iterdir()} == linked
    assert not stale.exists()


def test_replace_folder_puts_the_old_folder_back_after_a_half_switch(tmp_path: Path) -> None:
    dest = tmp_path / "rep"
    replace_folder(dest, lambda root: (root / "index.html").write_text("one"))
    # a switch killed between its two renames (where no exchange is offered)
    dest.rename(tmp_path / ".rep.old-999999999")
    (tmp_path / ".rep.new-999999999").mkdir()
    replace_folder(dest, lambda root: (root / "index.html").write_text("two"))
    assert (dest / "index.html").read_text() == "two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
