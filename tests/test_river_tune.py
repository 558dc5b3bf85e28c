"""Fairness tuning of River Market (`portobello tune` with `game = "river-market"`): its
specs refused in one line, the seat_coins knob's arithmetic, its settings played in River
Market's compiled batches, and a tiny tuning end to end (rules file, report, workers).

What is derived by hand:
- `seats = "later"` with value v gives seat k k x v extra Coins: v = 2 at 4 players is
  (0, 2, 4, 6); the extra Coins go on top of those the fixed rules give (seat 0's 1 stays);
- a seat's starting Coins are `start_coins` plus its extra Coins (4 each in the rulebook);
- a setting's win shares are the batches' own games (`sim.games.river.play.play` on the same
  seeds, every seat the same agent): a tie splits the win, so the shares add up to the
  games.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import to_toml
from bad_input import write

from sim.cli.command import main
from sim.games.river.cards import load_cards
from sim.games.river.kind import NAME as RIVER
from sim.games.river.play import RES_SCORES
from sim.games.river.play import play as play_batch
from sim.games.river.rules import RiverRules
from sim.games.river.rules import river_rules
from sim.games.river.tables import build_tables
from sim.tuning.fairness import outcome as O
from sim.tuning.fairness import run as R
from sim.tuning.fairness.knobs import rules_for
from sim.tuning.fairness.spec import TuningError
from sim.tuning.fairness.spec import load_tuning
from sim.tuning.fairness.spec import tuning_from_dict


def spec(**changes: Any) -> dict[str, Any]:
    """A valid River Market tuning spec, then `changes` (a value of None removes the key)."""
    data: dict[str, Any] = {
        "name": "river", "game": "river-market", "cards": "river-market", "players": [2, 3],
        "agents": "greedy", "seed": 1,
        "knobs": [{"switch": "seat_coins", "seats": "each", "low": 0, "high": 3}],
        "search": {"budget": 10, "games": 100}, "confirm": {"best": 2, "games": 200}}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def knob(**k: Any) -> dict[str, Any]:
    return {"knobs": [k]}


# (id, changes, field, piece of the reason)
CASES: list[tuple[str, dict[str, Any], str | None, str]] = [
    ("unknown-switch", knob(switch="stalls_per_player", low=1, high=3), "knobs[0].switch",
     "must be a River Market rules switch (not players; seat_coins for seat bonuses: houses"),
    ("start-scores-knob", knob(switch="start_scores", low=0, high=3), "knobs[0].switch",
     "start_scores is Portobello Market's seat bonus; River Market's is seat_coins"),
    ("multiplier-knob", knob(switch="multipliers.citizen-baron", low=2, high=5),
     "knobs[0].switch", "must be a River Market rules switch"),
    ("players-knob", knob(switch="players", choices=[2, 3]), "knobs[0].switch",
     "(not players;"),
    ("negative-coins", knob(switch="seat_coins", low=-1, high=3), "knobs[0].low",
     "must be 0 or more: a seat_coins bonus adds extra Coins to a seat and cannot take any "
     "away, got -1"),
    ("coins-choices", knob(switch="seat_coins", choices=[0, 2]), "knobs[0].choices",
     "a seat_coins knob is a bonus range: give low and high (extra Coins added to the seat)"),
    ("coins-over-twenty", {"players": [4], **knob(switch="seat_coins", seats="later", low=0,
                                                   high=7)},
     "knobs[0]", "seat_coins[later] = 7 at 4 players: seat_coins: must be a list of at most "
     "5 whole numbers from 0 to 20"),
    ("seats-elsewhere", knob(switch="houses", seats=1, low=3, high=5), "knobs[0].seats",
     "only a seat_coins knob has seats"),
    ("flag-range", knob(switch="mulligan", low=0, high=1), "knobs[0].low",
     "mulligan is not an integer switch: give choices"),
    ("houses-zero", knob(switch="houses", low=0, high=3), "knobs[0]",
     "houses = 0 at 2 players: houses: must be a whole number from 1 to 10"),
    ("board-key", {"board": "standard"}, "board",
     "River Market has no board: name its card set with cards = \"...\""),
    ("cards-missing", {"cards": "no-such-cards"}, "cards", "no-such-cards"),
    ("players-six", {"players": [3, 6]}, "players",
     "must be a list of distinct player counts from 2 to 5, got [3, 6]"),
    ("players-one", {"players": 1}, "players", "from 2 to 5"),
    ("unknown-agent", {"agents": "wizard"}, "agents", "unknown River Market agent 'wizard'"),
    ("portobello-agent", {"agents": "fastmcts:iterations=10"}, "agents",
     "unknown River Market agent 'fastmcts:iterations=10'"),
    ("check-agent", {"confirm": {"checks": [{"agents": "expert", "games": 10}]}},
     "confirm.checks[0].agents", "unknown River Market agent 'expert'"),
    ("unknown-preset", {"preset": "known-order"}, "preset",
     "unknown preset 'known-order' (presets: standard, short)"),
    ("variant-preset", {"variants": [{"name": "a", "preset": "flat"}]}, "variants[0].preset",
     "unknown preset 'flat'"),
    ("portobello-switch", {"rules": {"bobby_placer": "next"}}, "rules.bobby_placer",
     "unknown rules switch (switches: players, houses"),
    ("rule-out-of-range", {"rules": {"houses": 99}}, "rules.houses",
     "at 2 players: must be a whole number from 1 to 10, got 99"),
    ("unknown-game", {"game": "chess"}, "game", "unknown game 'chess' (games: "
                                                "portobello-market, river-market)"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_river_tuning_specs_name_file_field_and_reason(
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


def test_cards_belong_to_river_market(tmp_path: Path) -> None:
    """A card set in a Portobello Market spec (no game given) is refused, naming `cards`."""
    data = {k: v for k, v in spec().items() if k != "game"}
    path = write(tmp_path / "p.toml", to_toml(data))
    with pytest.raises(TuningError) as info:
        load_tuning(path)
    check_error(info.value, path, "cards", "a card set is River Market's: add game = "
                                           "\"river-market\"")


def test_the_base_spec_is_valid(tmp_path: Path) -> None:
    """So each case above breaks exactly one thing; River Market plays up to 5."""
    loaded = load_tuning(write(tmp_path / "ok.toml", to_toml(spec())))
    assert loaded.game == RIVER
    assert [c.key for c in loaded.cells()] == ["2p", "3p"]
    assert [[d.name for d in c.dims] for c in loaded.cells()] == [
        ["seat_coins[1]"], ["seat_coins[1]", "seat_coins[2]"]]
    assert all(isinstance(c.fixed, RiverRules) for c in loaded.cells())
    five = tuning_from_dict(spec(players=[5], agents="random", preset="short"), "five.toml")
    (cell,) = five.cells()
    assert cell.fixed == RiverRules(players=5, houses=4)
    assert cell.agents == ("random",) * 5


# -- the knob's arithmetic ------------------------------------------------------------------
def test_later_seats_get_k_times_the_extra_coins() -> None:
    later = tuning_from_dict(spec(players=[4], knobs=[
        {"switch": "seat_coins", "seats": "later", "low": 0, "high": 4}]), "l.toml")
    (cell,) = later.cells()
    (dim,) = cell.dims
    assert dim.name == "seat_coins[later]" and dim.steps == (1, 2, 3)
    rules = rules_for(cell.dims, (2,), cell.fixed)
    assert rules.seat_coins == (0, 2, 4, 6)
    assert rules.seat_start_coins() == [4, 6, 8, 10]
    assert rules_for(cell.dims, (0,), cell.fixed) == RiverRules(players=4)  # no change
    # On top of the fixed rules' extra Coins (seat 0's one), with start_coins a plain
    # integer knob beside it.
    both = tuning_from_dict(spec(players=[4], rules={"seat_coins": [1]}, knobs=[
        {"switch": "seat_coins", "seats": "later", "low": 0, "high": 4},
        {"switch": "start_coins", "low": 2, "high": 6}]), "b.toml")
    (cell,) = both.cells()
    assert [d.name for d in cell.dims] == ["seat_coins[later]", "start_coins"]
    rules = rules_for(cell.dims, (2, 6), cell.fixed)
    assert rules.seat_coins == (1, 2, 4, 6) and rules.start_coins == 6
    assert rules.seat_start_coins() == [7, 8, 10, 12]
    each = tuning_from_dict(spec(players=[3], knobs=[
        {"switch": "seat_coins", "low": 0, "high": 4},
        {"switch": "houses", "low": 3, "high": 6}]), "e.toml").cells()[0]
    rules = rules_for(each.dims, (3, 1, 4), each.fixed)
    assert rules.seat_coins == (0, 3, 1) and rules.house_count == 4


def test_a_setting_plays_river_markets_batches() -> None:
    cards = load_cards()
    rules = RiverRules(players=3, seat_coins=(0, 1, 2))
    seeds = O.seeds(2, "search", 90)
    out = O.play(cards, rules, ["greedy"] * 3, seeds, game=RIVER)
    games = play_batch(build_tables(cards, rules), np.array(seeds, np.uint64),
                       [["greedy"] * 3] * 90)
    assert out.wins == tuple(O.win_shares(games[:, RES_SCORES:RES_SCORES + 3]).sum(axis=0))
    assert sum(out.wins) == pytest.approx(90)
    assert out.games == 90 and 5 < out.rounds < 60


# -- a tiny tuning end to end -----------------------------------------------------------------
def test_a_tiny_river_tuning_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Three players, each later seat 1 or 2 extra Coins: the recommendation's rules file
    loads as River Market's rules with its extra Coins; the report and closing lines speak
    of extra Coins; two workers give the same summary as one (tasks of 40 games)."""
    monkeypatch.setattr(O, "CHUNK", 40)
    path = write(tmp_path / "tiny.toml", to_toml(spec(
        players=[3], seed=4,
        knobs=[{"switch": "seat_coins", "seats": "each", "low": 1, "high": 2}],
        search={"budget": 4, "games": 120}, confirm={"best": 2, "games": 120})))
    out = tmp_path / "one"
    code = main(["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    captured = capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["game"] == RIVER and summary["cards"] == "river-market"
    assert "board" not in summary and summary["cards_hash"] == load_cards().content_hash
    (cell,) = summary["cells"]
    rec = cell["recommended"]
    assert code == (0 if rec["confirmed"] else 1)
    a, b = rec["setting"]["seat_coins[1]"], rec["setting"]["seat_coins[2]"]
    assert {a, b} <= {1, 2} and rec["seat_coins"] == [0, a, b]
    assert "start_scores" not in rec
    # The rules file: River Market's rules with the recommendation's extra Coins.
    text = (out / "rules" / "3p.toml").read_text()
    assert text.startswith("# River Market rules: fairness tuning river, cell 3p")
    rules = river_rules(tomllib.loads(text))
    assert rules == RiverRules(players=3, seat_coins=(0, a, b))
    assert rules.seat_start_coins() == [4, 4 + a, 4 + b]
    assert rec["rules"] == {"players": 3, "seat_coins": [0, a, b]}
    # The closing line and the report say extra Coins, never start scores.
    assert f"3p: {rec['label']} (extra Coins 0, {a}, {b}): seats" in captured.err
    assert captured.out.strip() == str(out / "report" / "index.html")
    page = (out / "report" / "index.html").read_text()
    assert "River Market fairness tuning" in page and "card set <b>river-market</b>" in page
    assert f"(extra Coins 0, {a}, {b})" in page and "<th>extra Coins</th>" in page
    assert "start score" not in page.lower() and "Portobello" not in page
    # The same results on two workers.
    two = R.tune_rules(load_tuning(path), tmp_path / "two", jobs=2, quiet=True)
    assert two == summary
    assert (tmp_path / "two" / "rules" / "3p.toml").read_text() == text
