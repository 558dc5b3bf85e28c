"""River Market card sets: the shipped set against the rulebook (its composition, every card
it names with the effects it states, its sample effects), the listing in words, and bad
card-set files refused in one line naming the file, the field and the reason (by the loader
and by `portobello cards check`)."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import to_toml
from bad_input import write

from sim.cli.command import main
from sim.core.errors import CardError
from sim.games.river.cards import CARDS_DIR
from sim.games.river.cards import load_cards
from sim.games.river.effects import ZOOM
from sim.games.river.effects import Plank
from sim.games.river.effects import Score
from sim.games.river.words import card_line
from sim.games.river.words import listing

SHIPPED = CARDS_DIR / "river-market.toml"
# The cards the rulebook names (Components, Setup and the worked examples).
NAMED = {"swap-meet", "forage", "art-supplies", "hardware-store", "dressmaker", "lilypad-hop",
         "beaver", "wood-duck"}


def test_the_shipped_set_has_the_rulebooks_composition() -> None:
    """Components: 65 cards, 24 Actions, 29 Booths (Events are Booths), 12 Helpers; and the
    4 Starting Booths, the pawns beginning on the Swap Meet (Setup 5)."""
    cards = load_cards("river-market")
    assert cards.count("action") == 24
    assert cards.count("booth", "event") == 29
    assert cards.count("helper") == 12
    assert cards.count("action", "booth", "event", "helper") == 65
    starts = [c for c in cards.cards if c.kind == "start"]
    assert len(starts) == 4 and [c.id for c in starts if c.start] == ["swap-meet"]
    assert cards.count("event") >= 1  # the Lilypad Hop at least


def test_every_card_the_rulebook_names_says_what_the_rulebook_says() -> None:
    c = load_cards().by_id
    # Action example: Forage gains either two Veggies or one Fish.
    forage = c["forage"]
    assert forage.kind == "action" and forage.choose
    assert forage.planks == (Plank(gain=(("veggie", 2),)), Plank(gain=(("fish", 1),)))
    assert forage.when == "either"  # "before or after you activate your Booth"
    # Building example: Art Supplies costs one Coin, one Cloth and one Tool; free Tools and
    # Cloth.
    art = c["art-supplies"]
    assert art.kind == "booth"
    assert dict(art.cost) == {"coin": 1, "cloth": 1, "tool": 1}
    assert all(p.free for p in art.planks)
    assert {r for p in art.planks for r, _ in p.gain} == {"tool", "cloth"}
    # Movement example: gain two Tools, or sell one Veggie for three Tools; owner bonus one
    # Tool.
    hw = c["hardware-store"]
    assert hw.choose and hw.planks == (
        Plank(gain=(("tool", 2),)), Plank(gain=(("tool", 3),), spend=(("veggie", 1),)))
    assert hw.owner_bonus == Plank(gain=(("tool", 1),))
    # Hiring example: the Beaver for two Fish and a Tool, storing up to four Cloth.
    beaver = c["beaver"]
    assert beaver.kind == "helper" and dict(beaver.cost) == {"fish": 2, "tool": 1}
    assert beaver.store is not None
    assert (beaver.store.resource, beaver.store.limit) == ("cloth", 4)
    # Scoring example: the Lilypad Hop, 2 points for every two Lilies.
    hop = c["lilypad-hop"]
    assert hop.kind == "event" and hop.attend == Score(points=2, per=("lily", 2))
    # The Wood Duck stores Lilies; the Dressmaker is a Booth; the Swap Meet starts the river.
    duck = c["wood-duck"]
    assert duck.kind == "helper" and duck.store is not None and duck.store.resource == "lily"
    # "Including the four Lilies you now store on your Wood Duck, [two Helpers] score a
    # combined total of 8 points": the Wood Duck's 2 + 4 stored, and 2 for a Helper such as
    # the Beaver with nothing stored.
    assert duck.points + 4 * duck.store.points + beaver.points == 8
    assert c["dressmaker"].kind == "booth"
    assert c["swap-meet"].kind == "start" and c["swap-meet"].start
    # Those and only those are labelled as the rulebook's; the rest as reconstructed.
    assert {k for k, v in c.items() if not v.reconstructed} == NAMED


def test_the_rulebooks_sample_effects_are_on_cards() -> None:
    """Gameplay, "Some sample effects": each appears on at least one card; a Zoom card and a
    card of Step value 5 (the movement example) exist."""
    planks = {p for card in load_cards().cards for p in card.planks}
    assert Plank(gain=(("fish", 2),)) in planks  # gain two Fish for free (once)
    assert Plank(gain=(("coin", 1),), spend_any=3, times=2) in planks
    assert Plank(gain=(("lily", 3),), spend_any=1) in planks
    assert Plank(gain=(("coin", 1),), spend_matching=2, times=2) in planks
    assert Plank(gain=(("coin", 1),), spend=(("veggie", 2),), times=4) in planks
    assert Plank(gain_different=2) in planks
    steps = {card.steps for card in load_cards().cards}
    assert ZOOM in steps and 5 in steps


def test_cards_read_as_their_faces() -> None:
    c = load_cards().by_id
    assert card_line(c["hardware-store"]) == (
        "Hardware Store (Booth, 5 steps, cost 2 Coins and 1 Veggie, 3 points). Activate: "
        "choose one: gain 2 Tools (once); or spend 1 Veggie to gain 3 Tools (once). "
        "Owner bonus: gain 1 Tool (once). [rulebook]")
    assert card_line(c["beaver"]) == (
        "Beaver (Helper, 2 steps, cost 2 Fish and 1 Tool, 2 points). Ongoing: store up to "
        "4 Cloth here, 1 point each. [rulebook]")
    assert card_line(c["forage"]).startswith("Forage (Action, 2 steps). When you move with "
                                             "it: choose one: gain 2 Veggies (once); or gain "
                                             "1 Fish (once). [x3, rulebook]")
    text = listing(load_cards())
    assert all(card.name in text for card in load_cards().cards)
    assert "Actions (24)" in text and "Helpers (12)" in text


def test_cards_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["cards", "check", str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert "24 Actions, 29 Booths (6 of them Events), 12 Helpers, 4 Starting Booths (the " \
        "rulebook's composition)" in out
    assert main(["cards", "list", "--markdown", "--out", str(tmp_path / "c.md")]) == 0
    page = (tmp_path / "c.md").read_text()
    assert page.startswith("# River Market") and "## Helpers (12)" in page
    assert "- Beaver (Helper" in page


# -- bad card sets ---------------------------------------------------------------------------
def _shipped() -> dict[str, Any]:
    return tomllib.loads(SHIPPED.read_text())


def _card(cid: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda d: next(c for c in d["card"] if c["id"] == cid)


def _set(cid: str, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: _card(cid)(d).update(changes)


def _drop(cid: str, key: str) -> Callable[[dict[str, Any]], None]:
    return lambda d: _card(cid)(d).pop(key)


def _top(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d.update(changes)


HW = "card[16] (hardware-store)"
BEAVER = "card[44] (beaver)"
HOP = "card[38] (lilypad-hop)"

# (id, mutation of the shipped set, expected field, expected piece of the reason)
CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("wrong-format", _top(format="cards/9"), "format", "must be 'portobello-cards/1'"),
    ("unknown-top-key", _top(colour="red"), "colour", "unknown key"),
    ("deck-count-off", lambda d: d["deck"].update(actions=23), "deck.actions",
     "declares 23 cards, the [[card]] tables give 24"),
    ("deck-group-missing", lambda d: d["deck"].pop("helpers"), "deck.helpers", "missing"),
    ("unknown-kind", _set("hardware-store", kind="shop"), f"{HW}.kind",
     "must be one of action, booth, event, helper, start"),
    ("bad-id", _set("hardware-store", id="Hardware Store"), "card[16].id",
     "lower-case letters"),
    ("duplicate-id", _set("hardware-store", id="art-supplies"), "card[16] (art-supplies).id",
     "used by an earlier card"),
    ("duplicate-name", _set("hardware-store", name="art supplies"), f"{HW}.name",
     "is also card art-supplies's name"),
    ("unknown-resource", _set("hardware-store", cost={"gold": 2}), f"{HW}.cost.gold",
     "not a resource here"),
    ("zero-amount", _set("hardware-store", cost={"coin": 0}), f"{HW}.cost.coin",
     "must be from 1 to 20, got 0"),
    ("float-amount", _set("hardware-store", cost={"coin": 1.5}), f"{HW}.cost.coin",
     "must be a whole number"),
    ("steps-text", _set("hardware-store", steps="five"), f"{HW}.steps", "or \"zoom\""),
    ("steps-zero", _set("hardware-store", steps=0), f"{HW}.steps", "must be from 1 to 9"),
    ("booth-without-cost", _drop("hardware-store", "cost"), f"{HW}.cost",
     "missing (a booth card has it)"),
    ("action-with-cost", _set("forage", cost={"coin": 1}), "card[4] (forage).cost",
     "unknown key"),
    ("plank-gains-nothing", _set("hardware-store", planks=[{"spend": {"veggie": 1}}]),
     f"{HW}.planks[0]", "gains nothing"),
    ("plank-pays-twice", _set("hardware-store", planks=[
        {"spend": {"veggie": 1}, "spend_any": 2, "gain": {"tool": 1}}]), f"{HW}.planks[0]",
     "pays in 2 ways"),
    ("plank-times-zero", _set("hardware-store", planks=[{"gain": {"tool": 1}, "times": 0}]),
     f"{HW}.planks[0].times", "must be from 1 to 9"),
    ("plank-unknown-key", _set("hardware-store", planks=[{"gain": {"tool": 1}, "twice": 1}]),
     f"{HW}.planks[0].twice", "unknown key"),
    ("choice-of-one", _set("hardware-store", planks=[{"gain": {"tool": 1}}]), f"{HW}.choose",
     "a choice needs two or more planks"),
    ("owner-bonus-paid", _set("hardware-store", owner_bonus={"spend": {"coin": 1},
                                                             "gain": {"tool": 1}}),
     f"{HW}.owner_bonus.spend", "this effect is free"),
    ("matching-one", _set("hardware-store", planks=[
        {"spend_matching": 1, "gain": {"coin": 1}}], choose=False),
     f"{HW}.planks[0].spend_matching", "two or more"),
    ("gains-chosen-two-ways", _set("hardware-store", planks=[
        {"gain": {"tool": 1}, "gain_any": 1, "gain_different": 2}], choose=False),
     f"{HW}.planks[0]", "chooses Goods two ways"),
    ("different-six", _set("hardware-store", planks=[{"gain_different": 6}], choose=False),
     f"{HW}.planks[0].gain_different", "must be from 0 to 5"),
    ("event-without-attend", _drop("lilypad-hop", "attend"), f"{HOP}.attend", "missing"),
    ("score-two-ways", _set("lilypad-hop", attend={"points": 2, "per": {"lily": 2},
                                                   "per_different": 3}),
     f"{HOP}.attend", "scores in 2 ways"),
    ("score-per-two-resources", _set("lilypad-hop", attend={"points": 2, "per": {
        "lily": 2, "fish": 1}}), f"{HOP}.attend.per", "must name one resource"),
    ("score-per-owned-unknown", _set("lilypad-hop", attend={"points": 2, "per_owned": "pawn"}),
     f"{HOP}.attend.per_owned", "must be one of booth, event, helper"),
    ("store-unknown-resource", _set("beaver", store={"resource": "gold", "limit": 4}),
     f"{BEAVER}.store.resource", "not a resource"),
    ("store-without-limit", _set("beaver", store={"resource": "cloth"}),
     f"{BEAVER}.store.limit", "missing"),
    ("helper-does-nothing", _drop("beaver", "store"), BEAVER, "a Helper does something"),
    ("ability-empty", _set("beaver", ability={}), f"{BEAVER}.ability", "names no ability"),
    ("ability-paid-gain", _set("beaver", ability={"on_activate": {"spend_any": 1,
                                                                  "gain": {"fish": 1}}}),
     f"{BEAVER}.ability.on_activate.spend_any", "this effect is free"),
    ("two-first-starts", _set("veggie-patch", start=True), "card",
     "exactly one Starting Booth has start = true"),
    ("start-with-copies", _set("veggie-patch", copies=2), "card[1] (veggie-patch).copies",
     "each Starting Booth is one card"),
    ("copies-zero", _set("forage", copies=0), "card[4] (forage).copies",
     "must be from 1 to 30, got 0"),
    ("source-unknown", _set("forage", source="memory"), "card[4] (forage).source",
     "must be rulebook or reconstructed"),
]


@pytest.mark.parametrize(("mutate", "field", "reason"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_card_sets_name_file_field_and_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        mutate: Callable[[dict[str, Any]], Any], field: str, reason: str) -> None:
    data = copy.deepcopy(_shipped())
    mutate(data)
    path = write(tmp_path / "cards.toml", to_toml(data))
    with pytest.raises(CardError) as info:
        load_cards(path)
    check_error(info.value, path, field, reason)
    line = cli_fails(capsys, ["cards", "check", str(path)], 1)
    assert line == f"portobello: error: {info.value.message}"


def test_the_indices_in_the_cases_are_the_shipped_sets() -> None:
    """The cases name cards by their place in the shipped file."""
    cards = _shipped()["card"]
    for where in (HW, BEAVER, HOP, "card[4] (forage)", "card[1] (veggie-patch)"):
        index, cid = where.split(" ")
        assert cards[int(index[5:-1])]["id"] == cid.strip("()")


def test_files_that_are_not_card_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.toml"
    assert "no such card-set file" in cli_fails(capsys, ["cards", "check", str(missing)], 1)
    broken = write(tmp_path / "broken.toml", "card = [")
    assert "not valid TOML" in cli_fails(capsys, ["cards", "check", str(broken)], 1)
    empty = write(tmp_path / "empty.toml", 'format = "portobello-cards/1"\nname = "x"\n')
    assert "deck: missing" in cli_fails(capsys, ["cards", "check", str(empty)], 1)
