"""One set of caps on what an agent spec may ask of a decision, for every command of both
games (`sim.games.portobello.budgets`): a budget over its cap (or below its least value) is refused
in one line naming the parameter, the value and the cap, before any game, by the command line
(simulate, tournament, play, bench, River Market's commands), by a training spec's `teacher`
(naming the spec file and the field) and under restriction wrappers; the play server keeps
its tighter caps, checked by the same function. docs/agents.md lists the caps."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from bad_input import REPO
from bad_input import check_error
from bad_input import cli_fails
from bad_input import write

from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.budgets import CAPS
from sim.games.portobello.budgets import budget_error
from sim.games.portobello.session import served_spec
from sim.games.river.play import RiverAgentError
from sim.games.river.play import parse_agent
from sim.learning.spec import TrainingError
from sim.learning.spec import load_spec
from sim.web.limits import LimitError

SPEC = 'name = "tiny"\nplayers = 2\nteacher = {teacher}\n'
HUGE = "fastmcts:iterations=1000000000000"
OVER = "iterations=1,000,000,000,000 is over the cap of 1,000,000"


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The real command line, apart: a budget let through would run for days, so the
    timeout turns a hang into a failure."""
    try:
        return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True,
                              text=True, cwd=REPO, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"portobello {' '.join(args)} did not stop")


@pytest.mark.parametrize(("spec", "words"), [
    (HUGE, OVER),
    ("mcts:time=7200", "time=7,200 is over the cap of 3,600 seconds"),
    ("fastmcts:time=inf", "time=inf is over the cap of 3,600 seconds"),
    ("fastmcts:nodes=100000000", "nodes=100,000,000 is over the cap of 10,000,000"),
    ("fastmcts:width=100000", "width=100,000 is over the cap of 256"),
    ("fastmcts:horizon=5000", "horizon=5,000 is over the cap of 100"),
    ("fastmcts:chunk=10000000", "chunk=10,000,000 is over the cap of 100,000"),
    ("fastmcts:expand=1000000", "expand=1,000,000 is over the cap of 1,000"),
    ("expert-search:iterations=5000000", "iterations=5,000,000 is over the cap"),
    ("expert:width=1000", "width=1,000 is over the cap of 256"),
    ("openspiel-mcts:simulations=99999999", "simulations=99,999,999 is over the cap"),
    ("openspiel-ismcts:rollouts=100000", "rollouts=100,000 is over the cap of 1,000"),
    ("no-district(first-end(mcts:iterations=2000000))", "iterations=2,000,000 is over"),
    ("fastmcts:iterations=-5,time=1", "iterations=-5 is below the least value of 0"),
    ("fastmcts:time=-1", "time=-1 is below the least value of 0"),
    ("openspiel-mcts:simulations=-3,time=1", "simulations=-3 is below the least value"),
    ("fastmcts:horizon=-2", "horizon=-2 is below the least value of -1"),
])
def test_every_budget_over_its_cap_is_refused_where_specs_are_read(
        spec: str, words: str) -> None:
    with pytest.raises(AgentSpecError) as info:
        parse_spec(spec)
    assert words in info.value.reason and info.value.field == "agents", info.value


def test_within_the_caps_a_spec_is_as_before() -> None:
    for spec in ("fastmcts:iterations=1000000,time=3600,nodes=10000000,horizon=-1",
                 "fastmcts:horizon=auto", "openspiel-mcts:simulations=0,time=2",
                 "heuristic:horizon=500"):  # the heuristic's horizon is a weight
        parse_spec(spec)


def test_river_markets_search_has_the_same_cap() -> None:
    with pytest.raises(RiverAgentError) as info:
        parse_agent("search:iterations=2000000")
    assert info.value.reason.endswith(budget_error("iterations", 2_000_000) or "no cap")
    assert "iterations=2,000,000 is over the cap of 1,000,000" in info.value.reason
    assert parse_agent("search:iterations=1000000").iterations == CAPS["iterations"]


def test_the_server_keeps_its_tighter_caps() -> None:
    parse_spec("mcts:iterations=50000")  # within every command's cap
    with pytest.raises(LimitError, match="iterations=50,000 is over this server's cap of"):
        served_spec("mcts:iterations=50000")
    with pytest.raises(LimitError, match="horizon=50 is over this server's cap of 12"):
        served_spec("fastmcts:horizon=50")


@pytest.mark.parametrize("args", [
    ["simulate", "--agents", HUGE, "--games", "2"],
    ["tournament", "--agents", f"{HUGE},random", "--games", "2"],
    ["play", "--agents", HUGE, "--seed", "1"],
    ["bench", "mcts", "--agent", HUGE, "--positions", "1"],
    ["simulate", "--game", "river-market", "--agents", "search:iterations=2000000",
     "--games", "2"],
], ids=["simulate", "tournament", "play", "bench", "river-simulate"])
def test_a_command_refuses_a_budget_over_the_cap_in_one_line(
        tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "out"
    writes = [] if args[0] in ("play", "bench") else ["--out", str(out)]
    done = _run([*args, *writes])
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.search(r"iterations=\S+ is over the cap of 1,000,000", lines[0]), lines[0]
    assert not out.exists()


def test_a_teacher_over_the_cap_names_the_spec_file_and_its_teacher_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write(tmp_path / "tiny.toml", SPEC.format(teacher=f'"{HUGE}"'))
    with pytest.raises(TrainingError) as info:
        load_spec(spec)
    check_error(info.value, spec, "teacher", OVER)
    line = cli_fails(capsys, ["agents", "train", str(spec), "--out", str(tmp_path / "t")], 1)
    assert line == f"portobello: error: {spec}: teacher: agent fastmcts: {OVER}"
    assert not (tmp_path / "t").exists()


def test_an_unknown_teacher_names_the_spec_file_and_its_teacher_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write(tmp_path / "tiny.toml", SPEC.format(teacher='"alphazero:iterations=10"'))
    with pytest.raises(TrainingError) as info:
        load_spec(spec)
    check_error(info.value, spec, "teacher", "unknown agent 'alphazero'")
    line = cli_fails(capsys, ["agents", "train", str(spec), "--out", str(tmp_path / "t")], 1)
    assert f"{spec}: teacher: unknown agent 'alphazero'" in line
    assert not (tmp_path / "t").exists()


def test_the_caps_are_the_ones_docs_agents_md_lists() -> None:
    text = (REPO / "docs" / "agents.md").read_text()
    limits = text[text.index("## Limits"):]
    limits = limits[:limits.find("\n## ", 1)]
    for key, cap in CAPS.items():
        assert re.search(rf"`{key}`\s*\|\s*{cap:,}\b", limits), key
