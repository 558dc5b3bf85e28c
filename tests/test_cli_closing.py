"""What the long commands tell the user at the end, and the defaults they run with.

- `simulate`, `study` and `report` end with the first player's (seat 0's) win share and
  95% interval, checked here against the runs' own tables read independently with
  `analysis.load`; `tournament` ends by naming its results file; all of them even with
  `--quiet`, and `--json` stays one JSON object;
- the first compile of the compiled engine is announced on stderr, on a cold cache only
  (the detection on a fresh and on a copied cache, and the line from a real cold start);
- `simulate` without `--agents` plays the documented default; `play` prints its summary and
  writes a record only where asked; `rules show` prints a rules file that loads back to the
  same rules.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from analysis.load import load_run
from analysis.metrics import wilson_interval
from sim.cli.command import main
from sim.games.portobello import engines
from sim.games.portobello.engines import COMPILE_NOTICE
from sim.games.portobello.engines import COMPILE_NOTICE_PLANNER
from sim.games.portobello.records import replay_file
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules
from sim.games.portobello.rules import preset

ROOT = Path(__file__).resolve().parent.parent
SHARE = re.compile(r"(\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]")


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def seat_zero(run_dir: Path) -> tuple[str, int]:
    """Seat 0's win share and interval in a run, as the summaries print it, from the run's
    players table (read whole, summed by hand): (`share [lo, hi]`, games)."""
    players = load_run(run_dir).pandas("players")
    first = players[players["seat"] == 0]
    wins, games = float(first["win_share"].astype(float).sum()), len(first)
    lo, hi = wilson_interval(wins, games)
    return f"{wins / games:.3f} [{float(lo):.3f}, {float(hi):.3f}]", games


def env_with(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env | changes


def warm_cache() -> Path:
    """The folder of this machine's cache that holds the compiled games of these sources,
    random-only and with the planner (compiled first if they are not there yet), relative
    to a cache root as numba lays it out: the returned path's parent is the root."""
    from sim.games.portobello.agents.compiled.play import _play
    from sim.games.portobello.board import load_board

    for lineup in (["random", "random"], ["greedy", "random"]):
        engines.CompiledEngine(load_board("standard"), Rules(), lineup).play([1], [lineup])
    assert engines.compiled_code_cached(True) and engines.compiled_code_cached(False)
    return Path(_play._cache._cache_path)


# -- simulate ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def random_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A 3-player random run made with --quiet, and what the command printed."""
    out = tmp_path_factory.mktemp("closing") / "run"
    with contextlib.redirect_stdout(io.StringIO()) as text:
        assert main(["simulate", "--players", "3", "--agents", "random", "--games", "90",
                     "--shard-size", "30", "--seed", "5", "--quiet", "--out", str(out)]) == 0
    return out, text.getvalue()


def test_simulate_ends_with_games_agents_seat_zero_and_folder(
        random_run: tuple[Path, str]) -> None:
    out, text = random_run
    lines = text.strip().splitlines()
    assert len(lines) == 3, text
    assert lines[0].startswith("90 games of 3 players (90 played in ")
    assert lines[0].endswith("random in every seat, compiled engine")
    share, games = seat_zero(out)
    assert games == 90
    assert lines[1].startswith(f"the first player (seat 0) wins {share}")
    assert "(95% interval; fair share 0.333)" in lines[1]
    assert lines[2] == f"run folder: {out}"


def test_simulate_resumed_says_so_and_json_stays_one_object(
        random_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = random_run
    args = ["simulate", "--players", "3", "--agents", "random", "--games", "90",
            "--shard-size", "30", "--seed", "5", "--out", str(out)]
    code, text, _ = run_cli(capsys, *args, "--quiet")
    assert code == 0
    assert "(0 played in " in text and "90 already there" in text
    assert seat_zero(out)[0] in text
    code, text, _ = run_cli(capsys, *args, "--json")
    assert code == 0
    info = json.loads(text)  # one object, nothing else on stdout
    assert info["out"] == str(out) and info["games_resumed"] == 90


def test_simulate_without_agents_plays_the_documented_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli.simulate import DEFAULT_AGENTS

    assert DEFAULT_AGENTS == "heuristic"
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert "the strongest agent with a compiled version plays every seat (default: " \
        "heuristic; River Market: heuristic)" in helptext
    assert "Without --agents, heuristic plays every seat" in helptext
    out = tmp_path / "run"
    code, text, _ = run_cli(capsys, "simulate", "--games", "4", "--quiet", "--out", str(out))
    assert code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agents"] == ["heuristic", "heuristic"]
    assert manifest["timings"]["engine"] == "compiled"
    assert "heuristic in every seat, compiled engine" in text


# -- the first compile ------------------------------------------------------------------------
def test_compile_detection_follows_the_cache(tmp_path: Path) -> None:
    """A fresh cache folder is cold; a copy of this machine's warm cache is warm; the notice
    is for the compiled engine only, and says the planner compiles only when it does."""
    script = textwrap.dedent("""
        import json
        from sim.games.portobello.engines import compiled_code_cached, compile_notice
        print(json.dumps([compiled_code_cached(True), compiled_code_cached(False),
                          compile_notice(["random", "greedy"]), compile_notice(["random"]),
                          compile_notice(["random"], "python"), compile_notice(["mcts"])]))
    """)

    def ask(cache: Path) -> list[object]:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env_with(NUMBA_CACHE_DIR=str(cache)), timeout=300)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    (tmp_path / "cold").mkdir()
    assert ask(tmp_path / "cold") == [False, False, COMPILE_NOTICE_PLANNER, COMPILE_NOTICE,
                                      None, None]
    folder = warm_cache()
    shutil.copytree(folder, tmp_path / "warm" / folder.name)
    assert ask(tmp_path / "warm") == [True, True, None, None, None, None]


def test_a_cold_start_announces_the_compile_at_once_and_is_never_silent(tmp_path: Path
                                                                       ) -> None:
    """A real cold cache (a fresh XDG_CACHE_HOME): the notice is the first line on stderr
    even with --quiet, before the compile, and a line follows every 10 s while it goes on
    (the heuristic's cold compile takes about half a minute on a fast machine, random
    agents' about 10 s, too close to the first line; the process is stopped at the second
    line)."""
    env = env_with(XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "simulate", "--agents", "heuristic",
                             "--games", "2", "--quiet", "--out", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        shown = time.monotonic()
        second = proc.stderr.readline()
        silent = time.monotonic() - shown
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    assert first == COMPILE_NOTICE_PLANNER + "\n"
    assert re.fullmatch(r"  still compiling the fast engine \(1\d s\)\n", second), second
    assert silent < 15


def compile_lines(err: str) -> list[str]:
    """A command's standard error read as the first compile's lines: "notice", "compiled"
    (the time it took) or "other"; the "still compiling" lines between them (a compile
    that is not in this machine's cache takes minutes) are left out."""
    kinds = []
    for line in err.splitlines():
        if re.fullmatch(r"  still compiling the fast engine \(\d+ s\)", line):
            continue
        kinds.append("notice" if line in (COMPILE_NOTICE, COMPILE_NOTICE_PLANNER) else
                     "compiled" if re.fullmatch(r"compiled in \d+ s", line) else "other")
    return kinds


def test_a_long_step_says_it_goes_on_and_stops_saying_it_after() -> None:
    said: list[str] = []
    with engines.still_saying(said.append, "working", every=0.05):
        time.sleep(0.4)
    assert len(said) >= 2 and all(re.fullmatch(r"  still working \(0 s\)", x) for x in said)
    after = len(said)
    time.sleep(0.2)
    assert len(said) == after


def test_a_warm_cache_prints_no_notice(tmp_path: Path) -> None:
    warm_cache()
    proc = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--agents", "random",
                           "--games", "2", "--quiet", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, env=env_with(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.strip().splitlines()[-1] == f"run folder: {tmp_path / 'run'}"


@pytest.mark.parametrize("cached", [False, True])
def test_simulate_and_study_notice_only_when_games_compile(
        cached: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engines, "compiled_code_cached",
                        lambda planner=True, networks=False: cached)
    run = ["simulate", "--agents", "random", "--games", "4", "--quiet", "--out",
           str(tmp_path / "run")]
    _, _, err = run_cli(capsys, *run)
    assert compile_lines(err) == ([] if cached else ["notice", "compiled"]), err
    _, _, err = run_cli(capsys, *run)  # nothing left to play: nothing compiles
    assert COMPILE_NOTICE not in err
    _, _, err = run_cli(capsys, "simulate", "--agents", "random", "--games", "4", "--quiet",
                        "--engine", "python", "--out", str(tmp_path / "python"))
    assert COMPILE_NOTICE not in err
    spec = write_study(tmp_path, games=4)
    _, _, err = run_cli(capsys, "study", str(spec), "--out", str(tmp_path / "study"),
                        "--quiet", "--no-report")
    assert err.count(COMPILE_NOTICE) == (0 if cached else 1)
    assert cached or err.splitlines()[0] == COMPILE_NOTICE  # before the first cell


# -- study and report -------------------------------------------------------------------------
def write_study(root: Path, games: int = 30) -> Path:
    path = root / "tiny.toml"
    path.write_text(textwrap.dedent(f"""
        name = "tiny"
        title = "Tiny study"
        players = [2, 3]
        agents = "random"
        games = {games}
        seed = 3
        shard_size = 10
        events = false

        [[variants]]
        name = "standard"
        label = "Standard"

        [[variants]]
        name = "known"
        label = "Known order"
        preset = "known-order"
    """))
    return path


def check_study_lines(err: str, study: Path, title: str) -> None:
    """Seat 0's line for every cell, in player-count then variant order, with the numbers
    of that cell's own run."""
    lines = err.strip().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{title}: "))
    assert "the first player's (seat 0's) win share, 95% interval" in lines[start]
    cells = [(2, "standard", "Standard"), (2, "known", "Known order"),
             (3, "standard", "Standard"), (3, "known", "Known order")]
    body = lines[start + 1:start + 1 + len(cells)]
    for line, (n, variant, label) in zip(body, cells, strict=True):
        share, games = seat_zero(study / "runs" / f"{variant}-{n}p")
        assert re.match(rf"  {n} players  {label} +{re.escape(share)}", line), line
        assert f"(fair {1 / n:.3f}, {games:,} games)" in line


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A tiny study run with --quiet: (study folder, stdout, stderr)."""
    root = tmp_path_factory.mktemp("study")
    spec = write_study(root)
    out = root / "out"
    with contextlib.redirect_stdout(io.StringIO()) as text, \
            contextlib.redirect_stderr(io.StringIO()) as err:
        assert main(["study", str(spec), "--out", str(out), "--quiet"]) == 0
    return out, text.getvalue(), err.getvalue()


def test_study_ends_with_seat_zero_per_cell_and_the_report(
        tiny_study: tuple[Path, str, str]) -> None:
    out, text, err = tiny_study
    assert text == f"{out / 'report' / 'index.html'}\n"  # stdout: the path alone
    check_study_lines(err, out, "Tiny study")
    assert "games, agents" not in err  # --quiet: no per-cell progress lines


def test_study_without_report_still_summarises(tiny_study: tuple[Path, str, str],
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = tiny_study
    code, text, err = run_cli(capsys, "study", str(write_study(tmp_path)), "--out", str(out),
                              "--no-report")
    assert code == 0 and text == f"{out}\n"
    check_study_lines(err, out, "Tiny study")


def test_report_ends_with_seat_zero_per_cell_and_its_page(
        tiny_study: tuple[Path, str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = tiny_study
    code, text, err = run_cli(capsys, "report", str(out), "--out", str(tmp_path / "rep"),
                              "--title", "Again")
    assert code == 0
    assert text == f"{tmp_path / 'rep' / 'index.html'}\n"
    check_study_lines(err, out, "Again")
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    firsts = [r for r in summary["win_shares"] if r["seat"] == 0]
    assert len(firsts) == len(SHARE.findall(err)) == 4
    for row in firsts:  # the report's own numbers, to the digit shown
        assert f"{row['share']:.3f} [{row['lo']:.3f}, {row['hi']:.3f}]" in err


def test_the_closing_lines_give_each_variants_change_with_the_reports_numbers(
        tiny_study: tuple[Path, str, str]) -> None:
    out, _, err = tiny_study
    summary = json.loads((out / "report" / "summary.json").read_text())
    rows = [r for r in summary["comparisons"] if r["measure"] == "seat 0 win share"]
    assert len(rows) == 2  # known order against standard, at 2 and 3 players
    for r in rows:  # the report's comparisons table, Holm-adjusted, to the digit shown
        verdict = "significant" if r["significant"] else "not significant"
        line = (f"  {r['n_players']} players  Known order − Standard: {100 * r['diff']:+.1f} pp "
                f"[{100 * r['adj_lo']:+.1f}, {100 * r['adj_hi']:+.1f}] (Holm-adjusted, "
                f"{r['adj_level']:.1%}): {verdict}")
        assert line in err.splitlines(), (line, err)
    assert "reduced" not in err  # the spec's own games


def test_a_reduced_study_says_so_in_its_closing_lines(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "study", str(write_study(tmp_path)), "--games", "24",
                           "--out", str(tmp_path / "r"), "--quiet", "--no-report")
    assert code == 0
    assert err.strip().splitlines()[-1].startswith("  reduced: 24 games per cell, the spec "
                                                   "asks for")


def test_study_plays_some_of_its_player_counts(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    spec = write_study(tmp_path)
    monkeypatch.chdir(tmp_path)  # the default folder is data/runs/studies/<name>-3p
    code, text, err = run_cli(capsys, "study", str(spec), "--players", "3", "--games", "24",
                              "--quiet", "--no-report")
    assert code == 0
    folder = Path(text.strip())
    name = json.loads((folder / "study.json").read_text())["spec"]["name"]
    assert folder == Path("data/runs/studies") / f"{name}-3p"
    assert sorted(p.name for p in (folder / "runs").iterdir()) == ["known-3p", "standard-3p"]
    assert "2 players" not in err and "3 players  Known order" in err
    code, _, err = run_cli(capsys, "study", str(spec), "--players", "4")
    assert code == 1 and "--players: this study plays 2, 3 players, not 4" in err


# -- tournament -------------------------------------------------------------------------------
def test_tournament_ends_by_naming_its_results(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.parquet"
    code, text, _ = run_cli(capsys, "tournament", "--agents", "greedy,random", "--games", "4",
                            "--quiet", "--out", str(out))
    assert code == 0 and out.exists()
    import pandas as pd

    rows = len(pd.read_parquet(out))
    assert text.strip().splitlines()[-1] == f"results: {out} ({rows} rows, one per game and " \
                                            "seat)"


# -- play -------------------------------------------------------------------------------------
def test_play_prints_the_summary_and_writes_a_record_only_when_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, text, _ = run_cli(capsys, "play", "--players", "3", "--seed", "7")
    assert code == 0 and list(tmp_path.iterdir()) == []
    lines = text.splitlines()
    assert lines[0].startswith("board standard, 3 players, seed 7: ended by ")
    assert "{" not in text and "..." not in text  # no record, whole or cut
    assert lines[-1].startswith("record: not written")
    record = tmp_path / "game.json"
    code, again, _ = run_cli(capsys, "play", "--players", "3", "--seed", "7", "--record",
                             str(record))
    assert code == 0 and record.exists()
    assert again.splitlines()[:-1] == lines[:-1] and again.splitlines()[-1] == f"record: {record}"
    _, outcome = replay_file(record)
    end = re.match(r".*ended by (\w+) after (\d+) rounds", lines[0])
    assert end and end.groups() == (outcome["end_reason"], str(outcome["round"]))
    for seat, score in enumerate(outcome["scores"]):
        mark = "  winner" if seat in outcome["winners"] else ""
        assert re.fullmatch(rf"  seat {seat}  random +{score}{mark}", lines[1 + seat])
    winner = outcome["winners"][0]
    assert lines[4] == f"winner: seat {winner} (random) with {outcome['scores'][winner]} points"
    code, as_json, _ = run_cli(capsys, "play", "--players", "3", "--seed", "7", "--json")
    assert code == 0 and json.loads(as_json) == json.loads(record.read_text())


# -- rules show -------------------------------------------------------------------------------
@pytest.mark.parametrize("flags, expected", [
    ([], Rules()),
    (["--preset", "spanish"], preset("spanish")),
    (["--preset", "known-order", "--players", "4"], preset("known-order", players=4)),
    (["--players", "3"], Rules(players=3)),
    (["--preset", "negative-scores", "--rules", "FILE"],
     preset("negative-scores", stalls_per_player=12, customers={"aristocrat": 6},
            multipliers={"aristocrat-citizen": 5}, customer_sequence=["citizen"] * 5
            + ["aristocrat"] * 6)),
])
def test_rules_show_prints_a_rules_file_that_loads_back(
        flags: list[str], expected: Rules, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    given = tmp_path / "given.toml"
    given.write_text('stalls_per_player = 12\ncustomer_sequence = ["citizen", "citizen", '
                     '"citizen", "citizen", "citizen", "aristocrat", "aristocrat", '
                     '"aristocrat", "aristocrat", "aristocrat", "aristocrat"]\n'
                     "[customers]\naristocrat = 6\n[multipliers]\naristocrat-citizen = 5\n")
    flags = [str(given) if f == "FILE" else f for f in flags]
    code, text, _ = run_cli(capsys, "rules", "show", *flags)
    assert code == 0
    saved = tmp_path / "shown.toml"
    saved.write_text(text)
    assert load_rules(saved) == expected
    assert f"players = {expected.players}\n" in text
    stalls = f"stalls_per_player = {expected.stalls}"
    if expected.stalls_per_player is None:  # shown at its effective value, as a comment
        assert f"\n# {stalls}  (the rulebook's count for {expected.players} players" in text
    else:
        assert f"\n{stalls}\n" in text
    code, as_json, _ = run_cli(capsys, "rules", "show", *flags, "--json")
    assert code == 0 and json.loads(as_json) == expected.to_dict()


def test_tunings_compile_first_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`agents tune` plays compiled games as well (as `tune` does, through the same helper):
    with a cold cache it compiles before any game, saying so."""
    monkeypatch.setattr(engines, "compiled_code_cached", lambda planner=True, networks=False: False)
    _, _, err = run_cli(capsys, "agents", "tune", "--players", "2", "--generations", "1",
                        "--population", "2", "--blocks", "1", "--final-blocks", "1",
                        "--quiet", "--out", str(tmp_path / "weights"))
    assert compile_lines(err)[:2] == ["notice", "compiled"], err


@pytest.mark.parametrize(("line", "cached", "compiled"), [
    # The learned agent's games hold the planner's, which hold the random agents': a cold
    # first compile of the learned agent's games compiles both after them, a cold one of
    # the heuristic's the random agents' only, and a random one nothing more.
    (engines.COMPILE_NOTICE_NETWORKS, set(),
     [engines.COMPILE_NOTICE_NETWORKS, COMPILE_NOTICE_PLANNER, COMPILE_NOTICE]),
    (COMPILE_NOTICE_PLANNER, set(), [COMPILE_NOTICE_PLANNER, COMPILE_NOTICE]),
    (COMPILE_NOTICE, set(), [COMPILE_NOTICE]),
    # What the cache holds already is not compiled again.
    (engines.COMPILE_NOTICE_NETWORKS, {(False, False)},
     [engines.COMPILE_NOTICE_NETWORKS, COMPILE_NOTICE_PLANNER]),
    (engines.COMPILE_NOTICE_NETWORKS, {(True, False), (False, False)},
     [engines.COMPILE_NOTICE_NETWORKS]),
])
def test_a_first_compile_compiles_the_simpler_line_ups_it_holds_once(
        line: str, cached: set[tuple[bool, bool]], compiled: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After `make demo` compiled the learned agent's games, `simulate` with heuristics
    compiled its own for 10 s more: the first compile now compiles the simpler kinds its
    code holds, so no later command compiles again (the compile itself stubbed: each kind
    is announced, compiled once, and what is cached is left alone)."""
    from sim.cli import summary
    from sim.games.portobello import precompile

    done: list[str] = []
    monkeypatch.setattr(precompile, "start_helper", lambda networks=False: None)
    said: list[str] = []
    monkeypatch.setattr(engines, "compiled_code_cached",
                        lambda planner=True, networks=False: (planner, networks) in cached)
    monkeypatch.setattr(engines, "compile_for", done.append)
    monkeypatch.setattr(summary, "notice", said.append)
    summary.compile_first(line)
    assert done == compiled
    assert said[0] == line and re.fullmatch(r"compiled in \d+ s", said[1])
    if len(compiled) > 1:
        assert said[2].startswith("compiling the games of ") and "too (once" in said[2]
        assert ("greedy and heuristic agents" in said[2]) == (COMPILE_NOTICE_PLANNER in
                                                              compiled[1:])
        assert re.fullmatch(r"compiled in \d+ s", said[-1])
    else:
        assert len(said) == 2
