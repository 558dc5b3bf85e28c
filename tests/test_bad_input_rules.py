"""Bad rules files (SPEC §3): every switch given a bad value, unreadable files and missing
ones, refused in one line naming the file, the key and the reason, by the loader and by the
command line (exit status 1). Shared pieces: `bad_input.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import to_toml
from bad_input import write

from sim.core.errors import RulesError
from sim.games.portobello.rules import load_rules

# (id, rules file content, expected field, expected piece of the reason)
RULES_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown-key", {"players": 2, "colour": "red"}, "colour", "unknown rules key 'colour'"),
    ("one-player", {"players": 1}, "players", "must be an integer from 2 to 16, got 1"),
    ("too-many-players", {"players": 130, "stalls_per_player": 3}, "players",
     "must be an integer from 2 to 16, got 130"),
    ("five-players-without-stalls", {"players": 5}, "players",
     "5 players need an explicit stalls_per_player"),
    ("players-not-an-integer", {"players": "3"}, "players", "got '3'"),
    ("players-float", {"players": 3.0}, "players", "got 3.0"),
    ("stalls-zero", {"stalls_per_player": 0}, "stalls_per_player",
     "must be an integer from 1 to 10,000, got 0"),
    ("customer-order-enum", {"customer_order": "random"}, "customer_order",
     "must be one of drawn, known, got 'random'"),
    ("bobby-placer-enum", {"bobby_placer": "middle"}, "bobby_placer",
     "must be one of first, next, last, got 'middle'"),
    ("bobby-placer-unknown-seat", {"bobby_placer": "second"}, "bobby_placer",
     "must be one of first, next, last, got 'second'"),
    ("bobby-tie-enum", {"bobby_tie": "nobody"}, "bobby_tie",
     "must be one of pay_co_leaders, pay_bank, got 'nobody'"),
    ("neutral-token-zero", {"neutral_stack": [3, 0]}, "neutral_stack",
     "token values must be integers from 1 to 255, got [3, 0]"),
    ("player-token-negative", {"player_tokens": [2, -3, 4]}, "player_tokens",
     "token values must be integers from 1 to 255"),
    ("district-token-zero", {"district_tokens": [0]}, "district_tokens",
     "token values must be integers from 1 to 255"),
    ("token-too-large", {"player_tokens": [2, 3, 300]}, "player_tokens",
     "token values must be integers from 1 to 255, got [2, 3, 300]"),
    ("district-token-not-a-player-token", {"district_tokens": [5]}, "district_tokens",
     "5 is not one of the player tokens [2, 3, 4]"),
    ("no-player-tokens", {"player_tokens": [], "district_tokens": []}, "player_tokens",
     "a player needs at least one token"),
    ("neutral-stack-not-a-list", {"neutral_stack": 3}, "neutral_stack",
     "must be a list, got 3"),
    ("multiplier-incomplete-pair", {"multipliers": {"citizen": 2}}, "multipliers",
     "unknown customer pair 'citizen'"),
    ("multiplier-half-pair", {"multipliers": {"citizen-": 2}}, "multipliers",
     "unknown customer pair 'citizen-'"),
    ("multiplier-unknown-pair", {"multipliers": {"citizen-duke": 2}}, "multipliers",
     "unknown customer pair 'citizen-duke'"),
    ("multiplier-baron-baron", {"multipliers": {"baron-baron": 5}}, "multipliers",
     "unknown customer pair 'baron-baron'"),
    ("multiplier-negative", {"multipliers": {"aristocrat-citizen": -2}}, "multipliers",
     "citizen-aristocrat must be an integer from 0 to 1,000, got -2"),
    ("multiplier-huge", {"multipliers": {"citizen-citizen": 10**12}}, "multipliers",
     "citizen-citizen must be an integer from 0 to 1,000, got 1000000000000"),
    ("multiplier-not-a-number", {"multipliers": {"citizen-citizen": "one"}}, "multipliers",
     "citizen-citizen must be an integer from 0 to 1,000, got 'one'"),
    ("multipliers-not-a-table", {"multipliers": [1, 2, 3]}, "multipliers",
     "must be a table keyed by pair names"),
    ("sequence-with-drawn-order",
     {"customer_order": "drawn", "customer_sequence": ["citizen", "aristocrat"]},
     "customer_sequence", "implies known order; it cannot be combined with customer_order"),
    ("sequence-unknown-customer", {"customer_sequence": ["citizen", "duke"]},
     "customer_sequence", "entry 1 is 'duke'"),
    ("sequence-baron-not-last", {"customer_sequence": ["baron", "citizen"]},
     "customer_sequence", "entry 0 is 'baron'"),
    ("sequence-baron-but-baron-off", {"baron": False, "customer_sequence": ["citizen", "baron"]},
     "customer_sequence", "ends with the baron but the baron is off"),
    ("sequence-not-a-list", {"customer_sequence": "citizen"}, "customer_sequence",
     "must be a list, got 'citizen'"),
    ("customers-negative", {"customers": {"citizen": -1}}, "customers",
     "citizen count must be an integer from 0 to 10,000, got -1"),
    ("customers-unknown-kind", {"customers": {"duke": 1}}, "customers",
     "must give counts for exactly citizen and aristocrat"),
    ("customers-not-a-table", {"customers": [5, 5]}, "customers", "must be a table"),
    ("baron-not-a-bool", {"baron": "yes"}, "baron", "must be true or false, got 'yes'"),
    ("negative-scores-not-a-bool", {"negative_scores": 1}, "negative_scores",
     "must be true or false, got 1"),
    ("max-rounds-zero", {"max_rounds": 0}, "max_rounds",
     "must be an integer from 1 to 10,000, got 0"),
    ("start-score-not-an-integer", {"start_score": "10"}, "start_score",
     "must be an integer from -1,000,000 to 1,000,000, got '10'"),
    ("start-score-too-large", {"start_score": 40000000}, "start_score",
     "must be an integer from -1,000,000 to 1,000,000, got 40000000"),
    ("start-score-long-value", {"start_score": "x" * 500_000}, "start_score",
     "got '" + "x" * 56 + "..."),
    ("start-scores-too-short", {"start_scores": [10]}, "start_scores",
     "must give one score per seat: 2 players but 1 scores [10]"),
    ("start-scores-too-long", {"players": 3, "start_scores": [10, 11, 12, 13]}, "start_scores",
     "must give one score per seat: 3 players but 4 scores [10, 11, 12, 13]"),
    ("start-scores-not-an-integer", {"start_scores": [10, "13"]}, "start_scores",
     "entry 1 must be an integer from -1,000,000 to 1,000,000, got '13'"),
    ("start-scores-float", {"start_scores": [10.0, 13]}, "start_scores",
     "entry 0 must be an integer from -1,000,000 to 1,000,000, got 10.0"),
    ("start-scores-bool", {"start_scores": [True, 13]}, "start_scores",
     "entry 0 must be an integer from -1,000,000 to 1,000,000, got True"),
    ("start-scores-too-large", {"start_scores": [10, 2000000]}, "start_scores",
     "entry 1 must be an integer from -1,000,000 to 1,000,000, got 2000000"),
    ("start-scores-too-small", {"start_scores": [-1000001, 10]}, "start_scores",
     "entry 0 must be an integer from -1,000,000 to 1,000,000, got -1000001"),
    ("start-scores-not-a-list", {"start_scores": 10}, "start_scores",
     "must be a list, got 10"),
]


@pytest.mark.parametrize("case", RULES_CASES, ids=[c[0] for c in RULES_CASES])
def test_bad_rules(case: tuple[str, dict[str, Any], str, str], tmp_path: Path,
                   capsys: pytest.CaptureFixture[str]) -> None:
    name, data, field, reason = case
    path = write(tmp_path / f"{name}.toml", to_toml(data))
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, field, reason)
    line = cli_fails(capsys, ["board", "check", "standard", "--rules", str(path)], 1)
    assert line == f"portobello: error: {info.value}"


@pytest.mark.parametrize("text, reason", [
    ("players = \n", "not valid TOML"),
    ("players = 2\nplayers = 3\n", "not valid TOML"),
    ("[multipliers\n", "not valid TOML"),
], ids=["no-value", "duplicate-key", "broken-table"])
def test_rules_not_toml(text: str, reason: str, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "rules.toml", text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, None, reason)
    cli_fails(capsys, ["rules", "show", "--rules", str(path)], 1)


def test_missing_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, None, "no such rules file")
    cli_fails(capsys, ["board", "check", "standard", "--rules", str(path)], 1)

