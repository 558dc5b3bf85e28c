"""Population studies (`population = [...]`): clear refusals of bad specs, the rounds of
adaptive sampling on real games (the same bytes whatever the jobs, and after a kill at any
moment), the report, and River Market."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from analysis.metagame.spec import load_population
from analysis.metagame.spec import population_from_dict
from analysis.metagame.study import run_population
from analysis.metagame.summary import summarise
from analysis.study.switches import StudyError
from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]

SMALL = """name = "pop"
players = [2, 3]
population = ["random", "greedy", "heuristic"]
next = "heuristic:weights=classic"
curve = ["random", "heuristic", "random:move_chance=0.5"]
seed = 7
shard_size = 20
round_games = 30
max_games = 90
curve_games = 60
margin = 0.05
events = false
baseline = "standard"

[[variants]]
name = "standard"

[[variants]]
name = "known"
preset = "known-order"
"""


def spec_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "pop", "players": [2], "population": ["random", "greedy"], "seed": 1,
        "variants": [{"name": "standard"}, {"name": "known", "preset": "known-order"}]}
    base.update(changes)
    return base


@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"population": ["random", "nobody"]}, "population", "unknown agent 'nobody'"),
    ({"population": ["random", "greedy", "random"]}, "population", "listed twice"),
    ({"population": ["greedy"]}, "population", "at least two bots"),
    ({"population": "greedy"}, "population", "must be a list of agent specs"),
    ({"next": "greedy"}, "next", "already in the population"),
    ({"next": "nobody"}, "next", "unknown agent 'nobody'"),
    ({"margin": 0}, "margin", "must be a number from 0.005 to 0.25"),
    ({"margin": 0.5}, "margin", "must be a number from 0.005 to 0.25"),
    ({"margin": True}, "margin", "must be a number"),
    ({"round_games": 0}, "round_games", "must be an integer from 1"),
    ({"max_games": 10 ** 12}, "max_games", "must be an integer from 1"),
    ({"round_games": 100, "max_games": 50}, "max_games", "at least round_games"),
    ({"profiles": "every"}, "profiles", "must be \"deviations\""),
    ({"agents": "random"}, "agents", "give population or agents, not both"),
    ({"population": ["random", "fastmcts:iterations=100,time=1"]}, "population",
     "time budget"),
])
def test_bad_population_specs_name_file_field_and_reason(changes: dict[str, Any], field: str,
                                                         reason: str) -> None:
    with pytest.raises(StudyError) as err:
        population_from_dict(spec_dict(**changes), source="p.toml")
    msg = err.value.message
    assert msg.startswith(f"p.toml: {field}: "), msg
    assert reason in msg, msg
    assert "\n" not in msg


def test_a_bad_population_spec_through_the_command_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "p.toml"
    bad.write_text(SMALL.replace('next = "heuristic:weights=classic"', 'next = "greedy"'))
    r = subprocess.run([sys.executable, "-m", "sim.cli", "study", str(bad), "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"portobello: error: {bad}: next: 'greedy' is already in the population: next is "
        "the stronger bot the convergence check adds"]
    assert not (tmp_path / "o").exists()


def _tables(out: Path) -> list[tuple[str, str]]:
    """Every table file a population study wrote, with its SHA-256."""
    files = sorted(p for p in (out / "runs").rglob("part-*") if "checksums" not in str(p))
    return [(p.relative_to(out).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
            for p in files]


def _answers(summary: dict[str, Any]) -> str:
    """The summary's answers, without what the machine or the folder decides (its cost,
    load and the command that continues it)."""
    return json.dumps({k: v for k, v in summary.items() if k not in ("cost", "load", "command")},
                      sort_keys=True)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The small population study played once, uninterrupted, with one job."""
    root = tmp_path_factory.mktemp("pop")
    spec = root / "pop.toml"
    spec.write_text(SMALL)
    assert main(["study", str(spec), "--out", str(root / "one"), "--report",
                 str(root / "report"), "--jobs", "1", "--quiet"]) == 0
    return spec, root


def test_rounds_stop_profiles_that_cannot_move_an_answer(played: tuple[Path, Path]) -> None:
    _, root = played
    record = json.loads((root / "one" / "population.json").read_text())
    rounds = record["rounds"]
    assert len(rounds) >= 2
    # The last round decided that nothing more could move an answer, or the profiles were
    # spent; every round after the first played fewer profiles than there are.
    assert rounds[-1]["profiles_on"] == 0
    # A curve bot outside the population plays its self-play games once: curve_games.
    curve = [r for r in record["runs"] if "-curve-" in r["key"]]
    assert curve and {r["games"] for r in curve} == {60}
    levels = [r["level"] for r in record["runs"] if "-curve-" not in r["key"]]
    assert min(levels) == 30 and max(levels) <= 90 and len(set(levels)) > 1
    summary = json.loads((root / "report" / "summary.json").read_text())
    assert summary["cost"]["games"] < summary["uniform_games"]
    # The heuristic beats random and greedy from either seat: neither seat ever picks them.
    two = summary["players"][0]
    assert two["players"] == 2
    for v in two["variants"]:
        assert v["mixtures"]["seat 0"][:2] == [0.0, 0.0]
        assert v["mixtures"]["seat 1"][:2] == [0.0, 0.0]
        lo, est, hi = v["answer"]["lo"], v["answer"]["estimate"], v["answer"]["hi"]
        assert lo <= est <= hi
    # Every change: the adjusted interval leaves 0 out exactly when significant.
    for c in summary["changes"]:
        assert c["significant"] == (c["adj_lo"] > 0 or c["adj_hi"] < 0)
    html = (root / "report" / "index.html").read_text()
    assert "Whoever plays" in html and "meta-game heatmap" in html and "skill curve" in html


def test_two_jobs_give_the_same_bytes(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec_path, root = played
    assert main(["study", str(spec_path), "--out", str(tmp_path / "two"), "--no-report",
                 "--jobs", "2", "--quiet"]) == 0
    assert _tables(tmp_path / "two") == _tables(root / "one")
    spec = load_population(spec_path)
    assert _answers(summarise(spec, tmp_path / "two")) == \
        _answers(json.loads((root / "report" / "summary.json").read_text()))


def test_killed_at_random_moments_it_resumes_to_the_same_bytes(played: tuple[Path, Path],
                                                                tmp_path: Path) -> None:
    spec_path, root = played
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "sim.cli", "study", str(spec_path), "--out", str(out),
               "--no-report", "--jobs", "2", "--quiet"]
    rng = random.Random(3)
    for _ in range(3):
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(rng.uniform(1.5, 6.0))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert subprocess.run(command, cwd=ROOT, capture_output=True, timeout=600).returncode == 0
    assert _tables(out) == _tables(root / "one")


def test_a_folder_of_another_population_study_is_refused(played: tuple[Path, Path],
                                                         tmp_path: Path) -> None:
    _, root = played
    other = population_from_dict({**_toml(SMALL), "margin": 0.1}, source="p.toml")
    with pytest.raises(StudyError, match="another configuration"):
        run_population(other, root / "one", quiet=True)


def _toml(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


def test_river_market_plays_a_small_population(tmp_path: Path) -> None:
    spec = tmp_path / "river.toml"
    spec.write_text('name = "river-pop"\ngame = "river-market"\nplayers = [2, 3]\n'
                    'population = ["random", "greedy"]\nseed = 3\nshard_size = 20\n'
                    'round_games = 20\nmax_games = 40\nmargin = 0.1\n'
                    '[[variants]]\nname = "standard"\n[[variants]]\nname = "short"\n'
                    'preset = "short"\n')
    assert main(["study", str(spec), "--out", str(tmp_path / "o"), "--report",
                 str(tmp_path / "r"), "--jobs", "1", "--quiet"]) == 0
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert [b["players"] for b in summary["players"]] == [2, 3]
    three = summary["players"][1]["variants"][0]
    assert three["profile"]["bot"] in ("random", "greedy")
    assert len(three["seats"]) == 3


def test_fewer_rounds_on_a_folder_that_played_more_read_only_their_games(
        played: tuple[Path, Path], tmp_path: Path) -> None:
    # A study stopped at round 1 (--rounds 1) on a folder that played every round: no run
    # is asked for fewer games than it holds, nothing is played, and the answers are those
    # of round 1's games; the same command without --rounds gives the full answers again.
    import shutil

    spec_path, root = played
    out = tmp_path / "again"
    shutil.copytree(root / "one", out)
    before = _tables(out)
    assert main(["study", str(spec_path), "--out", str(out), "--report", str(tmp_path / "r1"),
                 "--rounds", "1", "--quiet"]) == 0
    assert _tables(out) == before
    record = json.loads((out / "population.json").read_text())
    assert record["status"] == "stopped" and len(record["rounds"]) == 1
    # Nothing was played: the load and time recorded are still those of the play.
    played_record = json.loads((root / "one" / "population.json").read_text())
    assert (record["load"], record["seconds"]) == (played_record["load"],
                                                   played_record["seconds"])
    first = json.loads((tmp_path / "r1" / "summary.json").read_text())
    assert first["status"] == "stopped" and "--out" in first["command"]
    html = (tmp_path / "r1" / "index.html").read_text()
    assert "Not finished" in html
    assert main(["study", str(spec_path), "--out", str(out), "--report", str(tmp_path / "r2"),
                 "--quiet"]) == 0
    assert _answers(json.loads((tmp_path / "r2" / "summary.json").read_text())) == \
        _answers(json.loads((root / "report" / "summary.json").read_text()))


def test_the_shipped_population_specs_validate() -> None:
    for name, players, bots in (("customer-order-population", (2,), 5),
                                ("first-player-population", (2, 3, 4), 3)):
        spec = load_population(ROOT / "data" / "studies" / f"{name}.toml")
        assert spec.study.players == players and len(spec.bots) == bots
        assert spec.margin == 0.03


@pytest.mark.parametrize("name", ["customer-order-population", "first-player-population"])
def test_the_committed_report_is_what_its_committed_games_say(name: str) -> None:
    # The run folder behind each committed population report is committed beside it, so a
    # later sitting tops it up: its games, read again, give the report's answers.
    folder = ROOT / "data" / "runs" / "studies" / name
    spec = load_population(ROOT / "data" / "studies" / f"{name}.toml")
    committed = json.loads((ROOT / "reports" / name / "summary.json").read_text())
    again = summarise(spec, folder, command=committed["command"])
    keep = ("players", "changes", "curve", "rounds", "bots", "uniform_games")
    assert json.dumps({k: again[k] for k in keep}, sort_keys=True) == \
        json.dumps({k: committed[k] for k in keep}, sort_keys=True)


@pytest.mark.parametrize("name", ["customer-order-population", "first-player-population"])
def test_the_committed_run_folders_can_be_topped_up_by_this_code(name: str) -> None:
    # Each committed population report says "the same command continues it": that holds
    # only while every run of its folder was played by the playing code of today (a run is
    # never finished by other code). A change of the rules or the agents must play these
    # folders again (or leave them, and their reports, as a record of older code).
    from sim.run.config import play_code

    folder = ROOT / "data" / "runs" / "studies" / name
    held = {json.loads(m.read_text())["identity"]["play_code"]
            for m in (folder / "runs").glob("*/manifest.json")}
    assert held == {play_code()}
