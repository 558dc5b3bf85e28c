"""The checklist for a new rules switch (docs/architecture.md), enforced.

A switch is a field of `sim.Rules`. For each one this test requires that it is documented
(docs/rules.md's table, which README links), that the compiled engine reads it (packing rules with
the switch changed gives a different array than the defaults), that a game record carries it
and replays under the same rules, and that both rules-level test tables know it (the
hand-derived readings in tests/test_switches.py and the engine-against-engine variants in
tests/test_fast_engine.py guard that themselves). A switch added without one of these fails
here with the step that is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_fast_engine import VARIANTS

from sim.games.portobello.board import load_board
from sim.games.portobello.compiled.layout import pack
from sim.games.portobello.game import Game
from sim.games.portobello.records import game_for_record
from sim.games.portobello.records import record_from_game
from sim.games.portobello.rules import RULE_KEYS
from sim.games.portobello.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
BOARD = load_board("standard")


def documented(path: Path) -> set[str]:
    """The switches named in the first column of a markdown table of `path`."""
    return set(re.findall(r"^\| `(\w+)` \|", path.read_text(), re.M))


def test_every_switch_is_documented_in_docs_rules() -> None:
    assert set(RULE_KEYS) - documented(ROOT / "docs" / "rules.md") == set()


def test_every_switch_has_an_engine_against_engine_variant() -> None:
    assert set(RULE_KEYS) - set(VARIANTS) == set()


@pytest.mark.parametrize("switch", RULE_KEYS)
def test_the_compiled_engine_reads_every_switch(switch: str) -> None:
    changed = Rules(**VARIANTS[switch])
    assert getattr(changed, switch) != getattr(Rules(), switch)
    base = Rules(**{k: v for k, v in VARIANTS[switch].items() if k != switch})
    a, b = pack(BOARD, base), pack(BOARD, changed)
    assert a.shape != b.shape or not np.array_equal(a, b), \
        f"sim.games.portobello.compiled.layout.pack ignores {switch}"


@pytest.mark.parametrize("switch", RULE_KEYS)
def test_records_carry_every_switch(switch: str) -> None:
    rules = Rules(**VARIANTS[switch])
    game = Game(BOARD, rules, seed=3)
    record = record_from_game(game, board_ref="standard", agents=["random"] * rules.players)
    others = {k: v for k, v in VARIANTS[switch].items() if k != switch}
    default = record_from_game(Game(BOARD, Rules(**others), seed=3),
                               board_ref="standard", agents=["random"] * Rules(**others).players)
    assert record["rules"] != default["rules"], f"records leave {switch} out"
    back = game_for_record(record).rules
    differ = {k for k in RULE_KEYS if getattr(back, k) != getattr(rules, k)}
    # A known-order game's record names its line (it replays whatever the generator).
    line_named = rules.customer_order == "known" and rules.customer_sequence is None
    assert differ <= ({"customer_sequence"} if line_named else set()), differ
