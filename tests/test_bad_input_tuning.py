"""Bad tuning specs (`sim.tuning.fairness.spec`) and `portobello tune` flags: each is
refused in one line naming the file, the field and the reason (exit status 1 for the spec,
2 for a flag), before any game is played or anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import to_toml
from bad_input import write

from sim.cli.command import main
from sim.tuning.fairness.spec import TuningError
from sim.tuning.fairness.spec import load_tuning


def spec(**changes: Any) -> dict[str, Any]:
    """A valid tuning spec, then `changes` (a value of None removes the key)."""
    data: dict[str, Any] = {
        "name": "bad", "players": [2, 3], "agents": "random", "seed": 1,
        "knobs": [{"switch": "start_scores", "seats": "each", "low": -5, "high": 10}],
        "search": {"budget": 10, "games": 100}, "confirm": {"best": 2, "games": 200}}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def knob(**k: Any) -> dict[str, Any]:
    return {"knobs": [k]}


# (id, changes, field, piece of the reason)
CASES: list[tuple[str, dict[str, Any], str | None, str]] = [
    ("unknown-key", {"budget": 4}, "budget", "unknown key (keys: name, title"),
    ("no-knobs", {"knobs": None}, "knobs", "missing"),
    ("no-seed", {"seed": None}, "seed", "missing"),
    ("bad-name", {"name": "a b"}, "name", "letters, digits, - and _"),
    ("players-five", {"players": [2, 5]}, "players", "distinct player counts from 2 to 4"),
    ("seed-negative", {"seed": -1}, "seed", "non-negative integer"),
    ("unknown-agent", {"agents": "wizard"}, "agents", "wizard"),
    ("time-budget", {"agents": "mcts:time=0.1"}, "agents", "has a time budget"),
    ("agents-count", {"agents": "random,greedy"}, "agents",
     "2 agent specs for players = [2, 3]"),
    ("unknown-switch", knob(switch="start_sore", low=0, high=3), "knobs[0].switch",
     "must be a rules switch"),
    ("players-knob", knob(switch="players", choices=[2, 3]), "knobs[0].switch",
     "must be a rules switch (not players"),
    ("range-and-choices", knob(switch="bobby_placer", low=0, high=1, choices=["first", "last"]),
     "knobs[0]", "give an integer range (low and high) or a list of choices, one of the two"),
    ("neither", knob(switch="bobby_placer"), "knobs[0]", "one of the two"),
    ("high-below-low", knob(switch="start_scores", low=5, high=2), "knobs[0].high",
     "is below low (2 < 5)"),
    ("low-text", knob(switch="start_scores", low="0", high=2), "knobs[0].low",
     "must be an integer, got '0'"),
    ("seat-missing", knob(switch="start_scores", seats=2, low=0, high=2), "knobs[0].seats",
     "seat 2 does not exist at 2 players (seats are numbered from 0"),
    ("seat-word", knob(switch="start_scores", seats="all", low=0, high=2), "knobs[0].seats",
     'must be "each", "later", a seat number or a list of seat numbers'),
    ("seats-elsewhere", knob(switch="bobby_placer", seats=2, choices=["first", "last"]),
     "knobs[0].seats", "only a start_scores knob has seats"),
    ("start-choices", knob(switch="start_scores", choices=[1, 2]), "knobs[0].choices",
     "a start_scores knob is a bonus range"),
    ("one-choice", knob(switch="bobby_placer", choices=["last"]), "knobs[0].choices",
     "at least two values"),
    ("twice-choice", knob(switch="bobby_placer", choices=["last", "last"]), "knobs[0].choices",
     "a value is listed twice"),
    ("bad-choice", knob(switch="bobby_placer", choices=["first", "middle"]), "knobs[0]",
     "bobby_placer = 'middle' at 2 players"),
    ("range-on-text-switch", knob(switch="bobby_placer", low=0, high=1), "knobs[0].low",
     "bobby_placer is not an integer switch"),
    ("stalls-zero", knob(switch="stalls_per_player", low=0, high=3), "knobs[0]",
     "stalls_per_player = 0 at 2 players: stalls_per_player:"),
    ("range-too-wide", knob(switch="start_scores", low=0, high=5000), "knobs[0]",
     "more than 1000 values from low to high"),
    ("multiplier-unknown", knob(switch="multipliers.citizen-duke", low=1, high=3),
     "knobs[0].switch", "multipliers.citizen-baron"),
    ("same-name-twice", {"knobs": [{"switch": "bobby_placer", "choices": ["first", "last"]},
                                   {"switch": "bobby_placer", "choices": ["first", "next"]}]},
     "knobs[1]", "a second knob named 'bobby_placer'"),
    ("target-zero", {"target": {"seat_gap": 0}}, "target", "every weight is 0"),
    ("target-negative", {"target": {"seat_gap": -1}}, "target.seat_gap",
     "must be a weight of 0 or more"),
    ("target-unknown", {"target": {"fairness": 1}}, "target.fairness", "unknown key"),
    ("length-without-goal", {"target": {"length": 1}}, "target.length_goal",
     "the length term needs a goal"),
    ("goal-without-length", {"target": {"seat_gap": 1, "length_goal": 10}},
     "target.length_goal", "given without a length weight"),
    ("method-unknown", {"search": {"method": "anneal"}}, "search.method",
     "must be one of auto, monotone, surface, grid, optuna"),
    ("monotone-two-dims", {"search": {"method": "monotone"}}, "search.method",
     "monotone fits one integer knob; at 3 players the knobs make 2 dimension(s)"),
    ("grid-over-budget", {"search": {"method": "grid", "budget": 5}}, "search.method",
     "grid plays every setting: 16 at 2 players, over search.budget (5)"),
    ("surface-choices", {"search": {"method": "surface"},
                         **knob(switch="bobby_placer", choices=["first", "last"])},
     "search.method", "surface fits integer knobs only"),
    ("budget-zero", {"search": {"budget": 0}}, "search.budget",
     "must be an integer from 1 to 10,000, got 0"),
    ("games-text", {"search": {"games": "many"}}, "search.games", "must be an integer"),
    ("profile-text", {"search": {"profile": "yes"}}, "search.profile", "true or false"),
    ("confirm-best-zero", {"confirm": {"best": 0}}, "confirm.best", "from 1 to 50"),
    ("check-no-games", {"confirm": {"checks": [{"agents": "greedy"}]}},
     "confirm.checks[0].games", "missing"),
    ("check-bad-agent", {"confirm": {"checks": [{"agents": "wizard", "games": 10}]}},
     "confirm.checks[0].agents", "wizard"),
    ("variant-unknown-key", {"variants": [{"name": "a", "players": 2}]}, "variants[0].players",
     "unknown key"),
    ("variant-twice", {"variants": [{"name": "a"}, {"name": "a"}]}, "variants[1].name",
     "duplicate variant name"),
    ("bad-preset", {"preset": "nope"}, "preset", "nope"),
    ("bad-rules-switch", {"rules": {"stallz": 3}}, "rules.stallz", "unknown rules switch"),
    ("bad-board", {"board": "no-such-board"}, "board", "no-such-board"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_tuning_specs_name_file_field_and_reason(
        case: tuple[str, dict[str, Any], str | None, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    name, changes, field, reason = case
    path = write(tmp_path / f"{name}.toml", to_toml(spec(**changes)))
    with pytest.raises(TuningError) as info:
        load_tuning(path)
    check_error(info.value, path, field, reason)
    out = tmp_path / "out"
    line = cli_fails(capsys, ["tune", str(path), "--out", str(out)], 1)
    assert line == f"portobello: error: {info.value.message}"
    assert not out.exists()


def test_the_base_spec_is_valid(tmp_path: Path) -> None:
    """So each case above breaks exactly one thing."""
    loaded = load_tuning(write(tmp_path / "ok.toml", to_toml(spec())))
    assert [c.key for c in loaded.cells()] == ["2p", "3p"]
    assert [[d.name for d in c.dims] for c in loaded.cells()] == [
        ["start_scores[1]"], ["start_scores[1]", "start_scores[2]"]]


def test_not_toml_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    bad = write(tmp_path / "bad.toml", "name = [")
    line = cli_fails(capsys, ["tune", str(bad)], 1)
    assert line.startswith(f"portobello: error: {bad}: not valid TOML")
    line = cli_fails(capsys, ["tune", str(tmp_path / "none.toml")], 1)
    assert line == f"portobello: error: {tmp_path / 'none.toml'}: no such tuning spec file"


@pytest.mark.parametrize("flags, message", [
    (["--budget", "0"], "argument --budget: must be at least 1, got '0'"),
    (["--games", "x"], "argument --games: must be a positive integer, got 'x'"),
    (["--jobs", "-3"], "argument --jobs"),
    (["--confirm-games", "1.5"], "argument --confirm-games: must be a positive integer"),
])
def test_bad_tune_flags_exit_2(flags: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "ok.toml", to_toml(spec()))
    with pytest.raises(SystemExit) as info:
        main(["tune", str(path), "--out", str(tmp_path / "out"), *flags])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("portobello tune: error: ") and message in err
    assert err.endswith(" (see --help)\n")
    assert not (tmp_path / "out").exists()


def test_a_folder_of_another_tuning_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing of the other tuning's log is touched."""
    out = tmp_path / "out"
    out.mkdir()
    log = out / "tuning.json"
    log.write_text('{"format": "portobello-fairness/1", "name": "other", "outcomes": {}}')
    before = log.read_bytes()
    path = write(tmp_path / "ok.toml", to_toml(spec()))
    line = cli_fails(capsys, ["tune", str(path), "--out", str(out)], 1)
    assert line == (f"portobello: error: {log}: holds the tuning 'other', not 'bad'; use "
                    "another --out")
    assert log.read_bytes() == before
    log.write_text("{not json")
    line = cli_fails(capsys, ["tune", str(path), "--out", str(out)], 1)
    assert line.startswith(f"portobello: error: {log}: cannot resume:")
