"""Bad command-line flags: the shared validators of `sim.cli.options` refuse them in every
command with one line of one form, `portobello CMD: error: argument --FLAG: must be ...,
got 'TEXT' (see --help)`, and exit status 2, before anything runs. Shared pieces:
`bad_input.py`; the same exit path in real processes: `test_bad_input_cli.py`.
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import pytest
from bad_input import cli_fails

from sim.cli import options as O
from sim.cli.command import main

INT = "must be an integer, got {!r}"
POSITIVE = "must be a positive integer, got {!r}"
AT_LEAST = "must be at least {}, got {!r}"
LIST = "must be a comma-separated list of integers like {}, got {!r}"
EVERY = "every entry must be at least {}, got {!r}"

# (id, arguments, the command's prog, flag, expected message after the flag)
FLAG_CASES: list[tuple[str, list[str], str, str, str]] = [
    # simulate
    ("simulate-games-zero", ["simulate", "--games", "0"], "simulate", "--games",
     AT_LEAST.format(1, "0")),
    ("simulate-games-negative", ["simulate", "--games", "-4"], "simulate", "--games",
     AT_LEAST.format(1, "-4")),
    ("simulate-games-text", ["simulate", "--games", "ten"], "simulate", "--games",
     POSITIVE.format("ten")),
    ("simulate-games-float", ["simulate", "--games", "2.5"], "simulate", "--games",
     POSITIVE.format("2.5")),
    ("simulate-jobs-zero", ["simulate", "--jobs", "0"], "simulate", "--jobs",
     AT_LEAST.format(1, "0")),
    ("simulate-shard-size-zero", ["simulate", "--shard-size", "0"], "simulate",
     "--shard-size", AT_LEAST.format(1, "0")),
    ("simulate-seed-float", ["simulate", "--seed", "1.5"], "simulate", "--seed",
     INT.format("1.5")),
    ("simulate-one-player", ["simulate", "--players", "1"], "simulate", "--players",
     AT_LEAST.format(2, "1")),
    ("simulate-players-text", ["simulate", "--players", "two"], "simulate", "--players",
     "must be an integer of at least 2, got 'two'"),
    ("simulate-players-list", ["simulate", "--players", "2,3"], "simulate", "--players",
     "must be an integer of at least 2, got '2,3'"),
    ("simulate-neutral-zero", ["simulate", "--neutral-stack", "3,0"], "simulate",
     "--neutral-stack", EVERY.format(1, "3,0")),
    ("simulate-neutral-text", ["simulate", "--neutral-stack", "a,b"], "simulate",
     "--neutral-stack", LIST.format("3,3,2,2,1,1,1,1", "a,b")),
    # play
    ("play-seed-text", ["play", "--seed", "x"], "play", "--seed", INT.format("x")),
    ("play-no-players", ["play", "--players", "0"], "play", "--players",
     AT_LEAST.format(2, "0")),
    # tournament: several player counts
    ("tournament-one-player", ["tournament", "--agents", "a,b", "--players", "2,1"],
     "tournament", "--players", EVERY.format(2, "2,1")),
    ("tournament-players-empty", ["tournament", "--agents", "a,b", "--players", ""],
     "tournament", "--players", LIST.format("2,3,4", "")),
    ("tournament-players-text", ["tournament", "--agents", "a,b", "--players", "2,x"],
     "tournament", "--players", LIST.format("2,3,4", "2,x")),
    ("tournament-games-zero", ["tournament", "--agents", "a,b", "--games", "0"],
     "tournament", "--games", AT_LEAST.format(1, "0")),
    ("tournament-jobs-negative", ["tournament", "--agents", "a,b", "--jobs", "-1"],
     "tournament", "--jobs", AT_LEAST.format(1, "-1")),
    ("tournament-seed-text", ["tournament", "--agents", "a,b", "--seed", "s"],
     "tournament", "--seed", INT.format("s")),
    # study
    ("study-jobs-zero", ["study", "x.toml", "--jobs", "0"], "study", "--jobs",
     AT_LEAST.format(1, "0")),
    ("study-games-zero", ["study", "x.toml", "--games", "0"], "study", "--games",
     AT_LEAST.format(1, "0")),
    # bench
    ("bench-games-zero", ["bench", "--games", "0"], "bench", "--games",
     AT_LEAST.format(1, "0")),
    ("bench-agents-one-player", ["bench", "agents", "--players", "1"], "bench agents",
     "--players", AT_LEAST.format(2, "1")),
    ("bench-simulate-jobs-zero", ["bench", "simulate", "--jobs", "0,1"], "bench simulate",
     "--jobs/--jobs-list", EVERY.format(1, "0,1")),
    ("bench-simulate-jobs-list-text", ["bench", "simulate", "--jobs-list", "x"],
     "bench simulate", "--jobs/--jobs-list", LIST.format("1,2", "x")),
    ("bench-simulate-games-text", ["bench", "simulate", "--games", "lots"], "bench simulate",
     "--games", POSITIVE.format("lots")),
    ("bench-mcts-positions-zero", ["bench", "mcts", "--positions", "0"], "bench mcts",
     "--positions", AT_LEAST.format(1, "0")),
    ("bench-load-games-negative", ["bench", "load", "--games", "-3"], "bench load",
     "--games", AT_LEAST.format(1, "-3")),
    # report
    ("report-target-too-wide", ["report", "r", "--out", "o", "--target", "0.7"], "report",
     "--target", "must be between 0 and 0.5 (e.g. 0.015), got '0.7'"),
    ("report-target-text", ["report", "r", "--out", "o", "--target", "x"], "report",
     "--target", "must be a number, got 'x'"),
]


@pytest.mark.parametrize("case", FLAG_CASES, ids=[c[0] for c in FLAG_CASES])
def test_bad_flag_is_one_line_and_exit_2(case: tuple[str, list[str], str, str, str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    _, argv, prog, flag, message = case
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"portobello {prog}: error: argument {flag}: {message} (see --help)\n"


@pytest.mark.parametrize("argv, prog, reason", [
    (["report", "r"], "report", "the following arguments are required: --out"),
    (["rules"], "rules", "the following arguments are required: action"),
    (["rules", "list", "--preset", "spanish"], "portobello",
     "unrecognized arguments: --preset spanish"),
    (["bench", "simulate", "--", "--nosuch"], "bench simulate",
     "unrecognized arguments: --nosuch"),
    (["simulate", "--engine", "fast"], "simulate",
     "argument --engine: invalid choice: 'fast' (choose from 'auto', 'compiled', 'python')"),
], ids=["report-no-out", "rules-no-action", "rules-list-preset",
        "bench-simulate-bad-tail", "simulate-bad-engine"])
def test_missing_and_unknown_flags(argv: list[str], prog: str, reason: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    expected_prog = prog if prog == "portobello" else f"portobello {prog}"
    assert out == "" and err == f"{expected_prog}: error: {reason} (see --help)\n"


def test_a_tournament_needs_agents_or_a_probe(capsys: pytest.CaptureFixture[str]) -> None:
    """`--agents` is no longer an argparse requirement (`--probe AGENT` stands in for it),
    so the command says which of the two to give, in one line, with the usage exit 2."""
    from sim.cli import main

    assert main(["tournament"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("portobello: error: --agents: give --agents (two or more "
                                 "agents) or --probe AGENT\n")


# -- the validators themselves -----------------------------------------------------------------
@pytest.mark.parametrize("validator, text, value", [
    (O.integer, "-7", -7), (O.integer, "0", 0), (O.integer, " 12 ", 12),
    (O.positive_int, "1", 1), (O.positive_int, "30000", 30000),
    (O.player_count, "2", 2), (O.player_count, "5", 5),
    (O.positive_int_list, "1,2", [1, 2]), (O.positive_int_list, "3", [3]),
    (O.positive_int_list, "1, 2,", [1, 2]), (O.player_counts, "2,3,4", [2, 3, 4]),
    (O.IntegerList(1, empty_ok=True), "", []),
])
def test_validators_accept(validator: object, text: str, value: object) -> None:
    assert validator(text) == value  # type: ignore[operator]


@pytest.mark.parametrize("validator, text, message", [
    (O.integer, "x", INT.format("x")),
    (O.integer, "", INT.format("")),
    (O.positive_int, "0", AT_LEAST.format(1, "0")),
    (O.positive_int, "1e3", POSITIVE.format("1e3")),
    (O.player_count, "1", AT_LEAST.format(2, "1")),
    (O.Integer(3), "x", "must be an integer of at least 3, got 'x'"),
    (O.positive_int_list, "", LIST.format("1,2", "")),
    (O.positive_int_list, ",", LIST.format("1,2", ",")),
    (O.positive_int_list, "1;2", LIST.format("1,2", "1;2")),
    (O.positive_int_list, "2,0", EVERY.format(1, "2,0")),
    (O.player_counts, "3,1", EVERY.format(2, "3,1")),
])
def test_validators_refuse(validator: object, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as info:
        validator(text)  # type: ignore[operator]
    assert str(info.value) == message


# -- flags a game does not take ------------------------------------------------------------------
NO_BOARD = "--board: River Market has no board: its river is its cards"
RIVER_ONLY = ["--game", "river-market"]


@pytest.mark.parametrize("argv, message", [
    (["simulate", *RIVER_ONLY, "--board", "standard"], NO_BOARD),
    (["simulate", *RIVER_ONLY, "--engine", "auto"], "--engine: River Market plays in its own "
     "compiled batches: the choice of engine is Portobello Market's"),
    (["simulate", *RIVER_ONLY, "--neutral-stack", ""], "--neutral-stack: River Market has no "
     "neutral tokens: the neutral stack is Portobello Market's"),
    (["bench", "simulate", "--", *RIVER_ONLY, "--board", "standard"], NO_BOARD),
    (["play", *RIVER_ONLY, "--board", "standard"], NO_BOARD),
    (["tournament", *RIVER_ONLY, "--agents", "random,greedy", "--board", "standard"], NO_BOARD),
    (["agents", "tune", *RIVER_ONLY, "--board", "standard"], NO_BOARD),
], ids=["simulate-board", "simulate-engine", "simulate-neutral-stack", "bench-simulate-board",
        "play-board", "tournament-board", "agents-tune-board"])
def test_a_flag_the_game_does_not_take_is_refused_whatever_its_value(
        argv: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The default's own value given on the command line (`--board standard`) is refused as
    a board file would be: one line naming the flag and the game, before anything is
    written."""
    out = tmp_path / "out"
    if argv[0] == "play":
        argv = [*argv, "--record", str(out)]
    elif argv[0] != "bench":
        argv = [*argv, "--out", str(out)]
    line = cli_fails(capsys, argv, 2 if argv[0] == "bench" else 1)
    assert line == f"portobello: error: {message}"
    assert not out.exists()


def test_a_default_is_told_from_the_same_value_given() -> None:
    parser = O.Parser()
    O.add_board(parser)
    O.add_engine(parser)
    left = parser.parse_args([])
    named = parser.parse_args(["--board", "standard", "--engine", "auto"])
    assert left.board == named.board == "standard" and left.engine == named.engine == "auto"
    assert not O.given(left, "--board") and not O.given(left, "--engine")
    assert O.given(named, "--board") and O.given(named, "--engine")
    assert "(default: standard)" in " ".join(parser.format_help().split())
    assert type(pickle.loads(pickle.dumps(left.board))) is str  # a worker gets plain text
