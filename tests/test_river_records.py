"""River Market records: written as readable JSON, replayed to the same game (every action
checked, the scores compared), and bad records or rules refused in one line naming the file,
the field and the reason."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bad_input import write

from sim.core.errors import RecordError
from sim.core.errors import RulesError
from sim.games.river.game import RiverGame
from sim.games.river.records import read_record
from sim.games.river.records import record_of
from sim.games.river.records import replay
from sim.games.river.rules import RiverRules
from sim.games.river.rules import preset
from sim.games.river.rules import river_rules


def random_game(players: int, seed: int, **rules: Any) -> tuple[RiverGame, dict[str, Any]]:
    rnd = random.Random(seed)
    g = RiverGame.new(RiverRules(players=players, **rules), seed=seed)
    start, actions = g.copy(), []
    while not g.over:
        a = rnd.choice(g.legal_actions())
        actions.append(a)
        g.apply(a)
    return g, record_of(start, actions)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_records_replay_to_the_same_game(players: int, tmp_path: Path) -> None:
    for seed in range(3):
        g, record = random_game(players, seed, houses=4 if seed == 2 else None)
        path = write(tmp_path / "game.json", json.dumps(record))
        again = read_record(path)
        assert again.scores() == g.scores() == record["scores"]
        assert (again.S == g.S).all()
        # Readable: cards by name, moves as steps clockwise with their destination.
        kinds = {a["type"] for a in record["actions"]}
        assert {"play", "move", "end"} <= kinds
        first = record["actions"][0]
        assert first["type"] == "play" and isinstance(first["card"], str)


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda r: r.__setitem__(key, value)


def _action(i: int, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda r: r["actions"].__setitem__(i, value)


# (id, mutation of a finished record, field, piece of the reason)
CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("wrong-format", _set("format", "river/0"), "format", "must be 'river-market-record/1'"),
    ("unknown-key", _set("colour", 1), "colour", "unknown key"),
    ("other-cards", lambda r: r["cards"].__setitem__("hash", "0" * 16), "cards.hash",
     "played with other cards"),
    ("unknown-card-set", lambda r: r["cards"].__setitem__("name", "no-such-set"), "cards.name",
     "must name a card set the toolkit ships (river-market), got 'no-such-set'"),
    ("seed-text", _set("seed", "one"), "seed", "must be a whole number"),
    ("actions-not-list", _set("actions", {}), "actions", "must be a list"),
    ("rules-unknown-key", _set("rules", {"players": 3, "dice": 2}), "dice",
     "unknown rules key"),
    ("rules-bad-players", _set("rules", {"players": 6}), "players", "from 2 to 5"),
    ("action-not-table", _action(0, 7), "actions[0]", "must be a table with a type"),
    ("action-unknown-type", _action(0, {"type": "fly"}), "actions[0].type",
     "unknown action type"),
    ("card-not-in-hand", _action(0, {"type": "play", "card": "beaver", "use": "move"}),
     "actions[0].card", "is not in seat 0's hand"),
    ("wrong-slot", lambda r: r["actions"][0].__setitem__("slot", 9), "actions[0].slot",
     "is not a slot of the hand"),
    ("bad-use", lambda r: r["actions"][0].__setitem__("use", "throw"), "actions[0].use",
     "must be move, zoom, build or hire"),
    ("move-steps-zero", lambda r: r["actions"][1].__setitem__("steps", 0), "actions[1].steps",
     "must be a whole number from 1"),
    ("move-to-other", lambda r: r["actions"][1].__setitem__("to", "warehouse"),
     "actions[1].to", "not 'warehouse'"),
    ("illegal-action", _action(1, {"type": "end"}), "actions[1]", "is not allowed now"),
    ("bad-good", lambda r: r["actions"].insert(2, {"type": "gain", "good": "gold"}),
     "actions[2].good", "must be one of veggie"),
    ("after-the-end", lambda r: r["actions"].append({"type": "end"}),
     "actions[LAST]", "the game is already over"),
    ("scores-differ", lambda r: r.__setitem__("scores", [s + 1 for s in r["scores"]]),
     "scores", "the replay gives"),
]


@pytest.fixture(scope="module")
def finished() -> dict[str, Any]:
    return random_game(3, 5)[1]


@pytest.mark.parametrize(("mutate", "field", "reason"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_records_name_file_field_and_reason(
        finished: dict[str, Any], tmp_path: Path, mutate: Callable[[dict[str, Any]], Any],
        field: str, reason: str) -> None:
    record = copy.deepcopy(finished)
    mutate(record)
    field = field.replace("LAST", str(len(record["actions"]) - 1))
    path = write(tmp_path / "bad.json", json.dumps(record))
    with pytest.raises(RecordError) as info:
        read_record(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    assert info.value.field == field, message
    assert reason in info.value.reason, message


def test_a_record_that_is_not_json(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        read_record(write(tmp_path / "r.json", "{"))
    with pytest.raises(RecordError, match="a record is a JSON object"):
        replay([1, 2])


def test_rules_switches_and_presets() -> None:
    """The rulebook's readings by default; the shorter game has four houses."""
    r = RiverRules()
    assert (r.house_count, r.hand_limit, r.start_coins, r.final_turns) == (5, 4, 4, 2)
    assert RiverRules(players=5).house_count == 4
    assert preset("short").house_count == 4
    with pytest.raises(RulesError, match="unknown River Market preset"):
        preset("long")
    with pytest.raises(RulesError, match="must be true or false"):
        river_rules({"mulligan": 1})
    with pytest.raises(RulesError, match="from 1 to 8"):
        river_rules({"hand_limit": 0})


def test_seat_coins_compensate_later_seats(tmp_path: Path) -> None:
    """Setup gives each player 4 Coins (Setup 4); `seat_coins` adds a seat's extra (seat 0,
    the start player, first; seats not listed none), and a record keeps it."""
    from sim.games.river.game import RiverGame
    from sim.games.river.play import play_one
    from sim.games.river.records import record_of

    rules = river_rules({"players": 4, "seat_coins": [0, 1, 3]})
    assert rules.seat_start_coins() == [4, 5, 7, 4]
    g = RiverGame.new(rules, "river-market", 5)
    assert [g.resources(p)["coin"] for p in range(4)] == [4, 5, 7, 4]
    game, actions = play_one(rules, ["random"] * 4, 5)
    data = record_of(g, actions)
    assert data["rules"]["seat_coins"] == [0, 1, 3]
    path = write(tmp_path / "r.json", json.dumps(data))
    assert read_record(path).scores() == game.scores()
    for value, reason in (([-1], "from 0 to 20"), ([1] * 6, "at most 5"),
                          ("2", "list of at most"), ([True], "whole numbers")):
        with pytest.raises(RulesError, match=reason) as err:
            river_rules({"seat_coins": value})
        assert err.value.field == "seat_coins"
    with pytest.raises(RulesError, match="3 seats' extra Coins for 2 players"):
        river_rules({"players": 2, "seat_coins": [0, 1, 1]})
