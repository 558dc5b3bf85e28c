"""Bad precision requests (`analysis.study.precision`): a study spec's `max_games`,
`round_games` and `target_half_width`, and `simulate`'s `--target-half-width`,
`--max-games` and `--round-games`. Each is refused in one line naming the file (or the
flag), the field and the reason, with exit status 2, before anything is written. Shared
pieces: `bad_input.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import to_toml
from bad_input import write

from analysis.study import load_study
from analysis.study.precision import PrecisionError
from sim.cli.command import main


def spec(**changes: Any) -> dict[str, Any]:
    """A valid precision study, then `changes` (a value of None removes the key)."""
    data: dict[str, Any] = {
        "name": "prec", "players": [2, 3], "agents": "random", "seed": 1, "games": 300,
        "target_half_width": 0.015, "max_games": 6000, "round_games": 300,
        "variants": [{"name": "standard"}]}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


# (id, changes, field, piece of the reason)
SPEC_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("max-without-target", {"target_half_width": None}, "target_half_width",
     "missing: with max_games a cell plays rounds"),
    ("round-without-max", {"max_games": None}, "round_games", "goes with max_games"),
    ("max-below-first-round", {"max_games": 200}, "max_games",
     "200 at 2 players is below games = 300, the first round; give at least 300"),
    ("max-below-first-round-by-count", {"games": {"2": 300, "3": 900},
                                        "max_games": {"2": 6000, "3": 600}},
     "max_games", "600 at 3 players is below games = 900"),
    ("max-not-an-integer", {"max_games": 6000.5}, "max_games",
     "must be a positive integer, got 6000.5 at 2 players"),
    ("max-text", {"max_games": "6000"}, "max_games",
     "must be a positive integer, got '6000' at 2 players"),
    ("max-boolean", {"max_games": True}, "max_games", "must be a positive integer, got True"),
    ("max-zero", {"max_games": 0}, "max_games", "must be a positive integer, got 0"),
    ("max-table-missing-a-count", {"max_games": {"2": 6000}}, "max_games",
     "no value for 3 players"),
    ("max-table-bad-key", {"max_games": {"two": 6000, "3": 6000}}, "max_games",
     "keys must be player counts, got 'two'"),
    ("round-zero", {"round_games": 0}, "round_games", "must be a positive integer, got 0"),
    ("round-not-an-integer", {"round_games": 2.5}, "round_games",
     "must be a positive integer, got 2.5"),
    ("too-many-rounds", {"round_games": 10}, "round_games",
     "10 at 2 players makes 571 rounds from 300 to 6,000 games; at most 200 (give at least "
     "29)"),
    ("target-half", {"target_half_width": 0.5}, "target_half_width",
     "must be a number between 0 and 0.5"),
    ("target-zero", {"target_half_width": 0}, "target_half_width",
     "must be a number between 0 and 0.5"),
    ("target-text", {"target_half_width": "0.015"}, "target_half_width",
     "must be a number between 0 and 0.5 (e.g. 0.015 for ±1.5 points), got '0.015'"),
    ("different-agents-odd-max", {"players": [2], "agents": "random,greedy",
                                  "max_games": 6001}, "max_games",
     "6001 with different agents: use a multiple of 2"),
    ("different-agents-odd-round", {"players": [3], "agents": "random,greedy,random",
                                    "round_games": 301, "games": 300},
     "round_games", "301 with different agents: use a multiple of 3"),
]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_bad_precision_specs_name_file_field_and_reason(
        case: tuple[str, dict[str, Any], str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    name, changes, field, reason = case
    path = write(tmp_path / f"{name}.toml", to_toml(spec(**changes)))
    with pytest.raises(PrecisionError) as info:
        load_study(path)
    check_error(info.value, path, field, reason)
    assert info.value.exit_code == 1  # a spec error, like every other one
    out = tmp_path / "out"
    line = cli_fails(capsys, ["study", str(path), "--out", str(out)], 1)
    assert line == f"portobello: error: {info.value.message}"
    assert not out.exists()


def test_a_valid_precision_spec_loads(tmp_path: Path) -> None:
    """The base of the cases above is valid, so each case breaks exactly one thing."""
    loaded = load_study(write(tmp_path / "ok.toml", to_toml(spec())))
    assert loaded.precision is not None
    assert [(p.first, p.step, p.maximum) for p in loaded.precision.values()] == [
        (300, 300, 6000)] * 2
    # round_games defaults to the first round's size, per player count.
    tables = load_study(write(tmp_path / "t.toml", to_toml(spec(
        round_games=None, games={"2": 400, "3": 600}))))
    assert tables.precision is not None
    assert {n: p.step for n, p in tables.precision.items()} == {2: 400, 3: 600}


SIMULATE = ["simulate", "--players", "2", "--games", "100"]
# (id, flags, the one stderr line after "portobello: error: ")
CROSS_FLAG_CASES: list[tuple[str, list[str], str]] = [
    ("max-without-target", ["--max-games", "500"],
     "--max-games: needs --target-half-width, the precision to stop at (e.g. 0.015)"),
    ("round-without-target", ["--round-games", "100"],
     "--round-games: needs --target-half-width, the precision to stop at (e.g. 0.015)"),
    ("target-without-max", ["--target-half-width", "0.02"],
     "--target-half-width: needs --max-games N, the most games to play if the target is not "
     "met sooner"),
    ("max-below-games", ["--target-half-width", "0.02", "--max-games", "50"],
     "--max-games: 50 is below --games = 100, the first round; give at least 100"),
    ("too-many-rounds", ["--target-half-width", "0.02", "--max-games", "5000",
                         "--round-games", "10"],
     "--round-games: 10 makes 491 rounds from 100 to 5,000 games; at most 200 (give at "
     "least 25)"),
]


@pytest.mark.parametrize("case", CROSS_FLAG_CASES, ids=[c[0] for c in CROSS_FLAG_CASES])
def test_flags_that_do_not_go_together_are_one_line_and_exit_2(
        case: tuple[str, list[str], str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, flags, message = case
    out = tmp_path / "run"
    line = cli_fails(capsys, [*SIMULATE, *flags, "--out", str(out)], 2)
    assert line == f"portobello: error: {message}"
    assert not out.exists()


BAD_VALUE_CASES: list[tuple[str, list[str], str, str]] = [
    ("target-too-wide", ["--target-half-width", "0.7"], "--target-half-width",
     "must be between 0 and 0.5 (e.g. 0.015), got '0.7'"),
    ("target-zero", ["--target-half-width", "0"], "--target-half-width",
     "must be between 0 and 0.5 (e.g. 0.015), got '0'"),
    ("target-text", ["--target-half-width", "tight"], "--target-half-width",
     "must be a number, got 'tight'"),
    ("max-float", ["--max-games", "2.5"], "--max-games",
     "must be a positive integer, got '2.5'"),
    ("max-zero", ["--max-games", "0"], "--max-games", "must be at least 1, got '0'"),
    ("round-text", ["--round-games", "many"], "--round-games",
     "must be a positive integer, got 'many'"),
]


@pytest.mark.parametrize("case", BAD_VALUE_CASES, ids=[c[0] for c in BAD_VALUE_CASES])
def test_bad_precision_flag_values_are_one_line_and_exit_2(
        case: tuple[str, list[str], str, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, flags, flag, message = case
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as info:
        main([*SIMULATE, *flags, "--out", str(out)])
    assert info.value.code == 2
    stdout, err = capsys.readouterr()
    assert stdout == ""
    assert err == f"portobello simulate: error: argument {flag}: {message} (see --help)\n"
    assert not out.exists()
