"""River Market card sets: read from TOML (docs/river-market.md, "Card-set file") and checked
field by field, so that a designer entering the real cards meets one clear message naming
the file, the card and the field.

The shipped set (`data/cards/river-market.toml`) has the rulebook's composition: 24 Actions,
29 Booths (Events among them) and 12 Helpers in the deck, and 4 Starting Booths.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.errors import CardError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.games.river.effects import GOODS
from sim.games.river.effects import KINDS
from sim.games.river.effects import OWNED_KINDS
from sim.games.river.effects import RESOURCES
from sim.games.river.effects import ZOOM
from sim.games.river.effects import Ability
from sim.games.river.effects import Amounts
from sim.games.river.effects import Card
from sim.games.river.effects import CardSet
from sim.games.river.effects import Plank
from sim.games.river.effects import Score
from sim.games.river.effects import Store

CARDS_DIR = Path(__file__).resolve().parents[3] / "data" / "cards"
FORMAT = "portobello-cards/1"

# The rulebook's deck ("Components"): the groups a set's [deck] table declares. Events are
# Booths, so the "booths" group counts both.
RULEBOOK_DECK = {"actions": 24, "booths": 29, "helpers": 12, "start": 4}
DECK_GROUPS = {"actions": ("action",), "booths": ("booth", "event"), "helpers": ("helper",),
               "start": ("start",)}
MAX_STEPS = 9
MAX_AMOUNT = 20  # of one resource in one cost, gain or payment (the supply holds 20-25)
MAX_TIMES = 9
MAX_CARDS = 500  # card designs in one file
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")

# The keys each kind of card may have (besides id, name, kind, copies, note, source).
COMMON = ("id", "name", "kind", "copies", "note", "source")
KIND_KEYS = {
    "action": ("steps", "effect", "choose", "when"),
    "booth": ("steps", "cost", "points", "planks", "choose", "owner_bonus", "bonus", "store"),
    "event": ("steps", "cost", "points", "owner_bonus", "attend", "bonus"),
    "helper": ("steps", "cost", "points", "ability", "store", "bonus"),
    "start": ("planks", "choose", "start"),
}
REQUIRED = {
    "action": ("steps", "effect"),
    "booth": ("steps", "cost", "points", "planks"),
    "event": ("steps", "cost", "points", "attend"),
    "helper": ("steps", "cost", "points"),
    "start": ("planks",),
}
PLANK_KEYS = ("gain", "gain_any", "gain_different", "spend", "spend_any", "spend_matching",
              "spend_different", "times")
SCORE_KEYS = ("points", "per", "per_different", "per_owned")
STORE_KEYS = ("resource", "limit", "points")
ABILITY_KEYS = ("extra_steps", "hand_limit", "build_discount", "on_activate", "on_build",
                "on_attend")
TOP_KEYS = ("format", "name", "title", "description", "deck", "card")


class _Reader:
    """Reads one file's values, raising `CardError` with the file and the field's path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, reason: str) -> CardError:
        return CardError(reason, source=self.source, field=where or None)

    def table(self, value: Any, where: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be a table, got {quote(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail(_join(where, str(key)), "unknown key (known: "
                                f"{', '.join(allowed)})")
        return value

    def whole(self, value: Any, where: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"must be a whole number from {lo} to {hi}, got "
                            f"{quote(value)}")
        if not lo <= value <= hi:
            raise self.fail(where, f"must be from {lo} to {hi}, got {value}")
        return value

    def text(self, value: Any, where: str, limit: int = 2000) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"must be text, got {quote(value)}")
        if len(value) > limit:
            raise self.fail(where, f"must be at most {limit} characters")
        return value

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"must be true or false, got {quote(value)}")
        return value

    def amounts(self, value: Any, where: str, goods_only: bool = False) -> Amounts:
        """A table of resources and how many (each 1 to MAX_AMOUNT), in RESOURCES order."""
        names = GOODS if goods_only else RESOURCES
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be a table of resources ({', '.join(names)}), got "
                            f"{quote(value)}")
        if not value:
            raise self.fail(where, "must name at least one resource")
        for key, n in value.items():
            if key not in names:
                extra = " (Coins are not Goods)" if key == "coin" else ""
                raise self.fail(_join(where, str(key)), f"not a resource here{extra}; "
                                f"known: {', '.join(names)}")
            self.whole(n, _join(where, key), 1, MAX_AMOUNT)
        return tuple((r, value[r]) for r in RESOURCES if r in value)

    def plank(self, value: Any, where: str, free: bool = False) -> Plank:
        """One effect; `free`: no payment allowed (an owner bonus, an ability's gain)."""
        t = self.table(value, where, PLANK_KEYS)
        gain = self.amounts(t["gain"], _join(where, "gain")) if "gain" in t else ()
        gain_any = self.whole(t.get("gain_any", 0), _join(where, "gain_any"), 0, MAX_AMOUNT)
        gain_diff = self.whole(t.get("gain_different", 0), _join(where, "gain_different"), 0,
                               len(GOODS))
        if not (gain or gain_any or gain_diff):
            raise self.fail(where, "gains nothing: give gain, gain_any or gain_different")
        if gain_any and gain_diff:
            raise self.fail(where, "chooses Goods two ways (gain_any and gain_different): a "
                            "plank has one; split it into two planks")
        spend = self.amounts(t["spend"], _join(where, "spend")) if "spend" in t else ()
        spend_any = self.whole(t.get("spend_any", 0), _join(where, "spend_any"), 0,
                               MAX_AMOUNT)
        matching = self.whole(t.get("spend_matching", 0), _join(where, "spend_matching"), 0,
                              MAX_AMOUNT)
        different = self.whole(t.get("spend_different", 0), _join(where, "spend_different"),
                               0, len(GOODS))
        ways = [k for k, v in (("spend", spend), ("spend_any", spend_any),
                               ("spend_matching", matching), ("spend_different", different))
                if v]
        if len(ways) > 1:
            raise self.fail(where, f"pays in {len(ways)} ways ({', '.join(ways)}): a plank "
                            "has at most one")
        if ways and free:
            raise self.fail(_join(where, ways[0]), "this effect is free: it takes no payment")
        if matching == 1:
            raise self.fail(_join(where, "spend_matching"), "matching Goods come two or more "
                            "at a time (use spend_any for one)")
        times = self.whole(t.get("times", 1), _join(where, "times"), 1, MAX_TIMES)
        return Plank(gain, gain_any, gain_diff, spend, spend_any, matching, different, times)

    def score(self, value: Any, where: str) -> Score:
        t = self.table(value, where, SCORE_KEYS)
        if "points" not in t:
            raise self.fail(_join(where, "points"), "missing")
        points = self.whole(t["points"], _join(where, "points"), 1, 50)
        ways = [k for k in ("per", "per_different", "per_owned") if k in t]
        if len(ways) > 1:
            raise self.fail(where, f"scores in {len(ways)} ways ({', '.join(ways)}): choose one")
        per = None
        if "per" in t:
            amounts = self.amounts(t["per"], _join(where, "per"))
            if len(amounts) != 1:
                raise self.fail(_join(where, "per"), "must name one resource")
            per = amounts[0]
        different = 0
        if "per_different" in t:
            different = self.whole(t["per_different"], _join(where, "per_different"), 2,
                                   len(GOODS))
        owned = ""
        if "per_owned" in t:
            owned = self.text(t["per_owned"], _join(where, "per_owned"))
            if owned not in OWNED_KINDS:
                raise self.fail(_join(where, "per_owned"), f"must be one of "
                                f"{', '.join(OWNED_KINDS)}, got {quote(owned)}")
        return Score(points, per, different, owned)

    def store(self, value: Any, where: str) -> Store:
        t = self.table(value, where, STORE_KEYS)
        for key in ("resource", "limit"):
            if key not in t:
                raise self.fail(_join(where, key), "missing")
        resource = self.text(t["resource"], _join(where, "resource"))
        if resource not in RESOURCES:
            raise self.fail(_join(where, "resource"), f"not a resource; known: "
                            f"{', '.join(RESOURCES)}")
        return Store(resource, self.whole(t["limit"], _join(where, "limit"), 1, MAX_AMOUNT),
                     self.whole(t.get("points", 1), _join(where, "points"), 1, 10))

    def ability(self, value: Any, where: str) -> Ability:
        t = self.table(value, where, ABILITY_KEYS)
        if not t:
            raise self.fail(where, f"names no ability (known: {', '.join(ABILITY_KEYS)})")
        planks = {k: self.plank(t[k], _join(where, k), free=True)
                  for k in ("on_activate", "on_build", "on_attend") if k in t}
        return Ability(
            extra_steps=self.whole(t.get("extra_steps", 0), _join(where, "extra_steps"), 0, 3),
            hand_limit=self.whole(t.get("hand_limit", 0), _join(where, "hand_limit"), 0, 2),
            build_discount=self.whole(t.get("build_discount", 0),
                                      _join(where, "build_discount"), 0, 3),
            **planks)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _card(r: _Reader, value: Any, where: str) -> Card:
    """One `[[card]]` table."""
    if not isinstance(value, Mapping):
        raise r.fail(where, f"must be a table, got {quote(value)}")
    for key in ("id", "name", "kind"):
        if key not in value:
            raise r.fail(_join(where, key), "missing")
    cid = r.text(value["id"], _join(where, "id"), 40)
    if not ID_PATTERN.match(cid):
        raise r.fail(_join(where, "id"), f"{quote(cid)}: use lower-case letters, digits and "
                     "hyphens (at most 40)")
    where = f"{where} ({cid})"
    kind = r.text(value["kind"], _join(where, "kind"))
    if kind not in KINDS:
        raise r.fail(_join(where, "kind"), f"must be one of {', '.join(KINDS)}, got "
                     f"{quote(kind)}")
    r.table(value, where, COMMON + KIND_KEYS[kind])
    for key in REQUIRED[kind]:
        if key not in value:
            raise r.fail(_join(where, key), f"missing (a {kind} card has it)")
    name = r.text(value["name"], _join(where, "name"), 60).strip()
    if not name:
        raise r.fail(_join(where, "name"), "must not be empty")
    source = r.text(value.get("source", "reconstructed"), _join(where, "source"))
    if source not in ("rulebook", "reconstructed"):
        raise r.fail(_join(where, "source"), f"must be rulebook or reconstructed, got "
                     f"{quote(source)}")
    steps: int | str = 0
    if "steps" in value:
        s = value["steps"]
        if isinstance(s, str) and s != ZOOM:
            raise r.fail(_join(where, "steps"), f"must be a whole number from 1 to "
                         f"{MAX_STEPS} or \"zoom\", got {quote(s)}")
        steps = ZOOM if s == ZOOM else r.whole(s, _join(where, "steps"), 1, MAX_STEPS)
    planks_key = "effect" if kind == "action" else "planks"
    planks: tuple[Plank, ...] = ()
    if planks_key in value:
        raw = value[planks_key]
        if not isinstance(raw, list) or not raw:
            raise r.fail(_join(where, planks_key), "must be a non-empty list of planks")
        planks = tuple(r.plank(p, f"{_join(where, planks_key)}[{i}]")
                       for i, p in enumerate(raw))
    choose = r.flag(value.get("choose", False), _join(where, "choose"))
    if choose and len(planks) < 2:
        raise r.fail(_join(where, "choose"), "a choice needs two or more planks")
    when = r.text(value.get("when", "either"), _join(where, "when"))
    if when not in ("before", "after", "either"):
        raise r.fail(_join(where, "when"), f"must be before, after or either, got {quote(when)}")
    cost = r.amounts(value["cost"], _join(where, "cost")) if "cost" in value else ()
    points = r.whole(value["points"], _join(where, "points"), 0, 50) if "points" in value else 0
    owner = (r.plank(value["owner_bonus"], _join(where, "owner_bonus"), free=True)
             if "owner_bonus" in value else None)
    attend = r.score(value["attend"], _join(where, "attend")) if "attend" in value else None
    bonus = r.score(value["bonus"], _join(where, "bonus")) if "bonus" in value else None
    store = r.store(value["store"], _join(where, "store")) if "store" in value else None
    ability = r.ability(value["ability"], _join(where, "ability")) if "ability" in value \
        else None
    if kind == "helper" and ability is None and store is None and bonus is None:
        raise r.fail(where, "a Helper does something: give ability, store or bonus")
    start = r.flag(value.get("start", False), _join(where, "start"))
    copies = r.whole(value.get("copies", 1), _join(where, "copies"), 1, 30)
    if kind == "start" and copies != 1:
        raise r.fail(_join(where, "copies"), "each Starting Booth is one card")
    note = r.text(value.get("note", ""), _join(where, "note"))
    return Card(cid, name, kind, steps, copies, source == "reconstructed", note, cost, points,
                planks, choose, when, owner, attend, bonus, store, ability, start)


def card_set_from_dict(data: Any, source: str = "<dict>") -> CardSet:
    """Validate a parsed card-set file and build the `CardSet`."""
    r = _Reader(source)
    top = r.table(data, "", TOP_KEYS)
    for key in ("format", "name", "deck", "card"):
        if key not in top:
            raise r.fail(key, "missing")
    if top["format"] != FORMAT:
        raise r.fail("format", f"must be {FORMAT!r}, got {quote(top['format'])}")
    name = r.text(top["name"], "name", 60)
    if not ID_PATTERN.match(name):
        raise r.fail("name", f"{quote(name)}: use lower-case letters, digits and hyphens")
    deck_t = r.table(top["deck"], "deck", tuple(RULEBOOK_DECK))
    deck = tuple((g, r.whole(deck_t[g], f"deck.{g}", 0, 300) if g in deck_t
                  else _missing(r, f"deck.{g}")) for g in RULEBOOK_DECK)
    raw = top["card"]
    if not isinstance(raw, list) or not raw:
        raise r.fail("card", "must be a list of [[card]] tables")
    if len(raw) > MAX_CARDS:
        raise r.fail("card", f"{len(raw)} card designs: at most {MAX_CARDS}")
    cards = tuple(_card(r, c, f"card[{i}]") for i, c in enumerate(raw))
    by_id: dict[str, Card] = {}
    names: dict[str, str] = {}
    for i, c in enumerate(cards):
        if c.id in by_id:
            raise r.fail(f"card[{i}] ({c.id}).id", "used by an earlier card")
        if c.name.lower() in names:
            raise r.fail(f"card[{i}] ({c.id}).name", f"{quote(c.name)} is also card "
                         f"{names[c.name.lower()]}'s name")
        by_id[c.id] = c
        names[c.name.lower()] = c.id
    out = CardSet(name, r.text(top.get("title", name), "title", 200),
                  r.text(top.get("description", ""), "description"), cards, deck, source,
                  _hash(cards, deck), by_id, data)
    for group, want in deck:
        got = out.count(*DECK_GROUPS[group])
        if got != want:
            raise r.fail(f"deck.{group}", f"declares {want} cards, the [[card]] tables give "
                         f"{got} (copies counted)")
    starts = [c for c in cards if c.kind == "start"]
    if len(starts) != 4:
        raise r.fail("deck.start", f"the river begins with four Starting Booths, got "
                     f"{len(starts)}")
    first = [c.id for c in starts if c.start]
    if len(first) != 1:
        raise r.fail("card", "exactly one Starting Booth has start = true (where the pawns "
                     f"begin), got {len(first)}" + (f": {', '.join(first)}" if first else ""))
    if not any(c.kind == "booth" for c in cards):
        raise r.fail("card", "no Booth card: a hand must hold one at setup (the mulligan)")
    return out


def card_set_data(cards: CardSet) -> dict[str, Any]:
    """The plain data `card_set_from_dict` builds `cards` again from."""
    return dict(cards.data)


def _missing(r: _Reader, where: str) -> int:
    raise r.fail(where, "missing")


def _hash(cards: tuple[Card, ...], deck: tuple[tuple[str, int], ...]) -> str:
    """A short hash of what the cards do (not of the file's spelling or notes)."""
    text = json.dumps([repr(_playing_content(c)) for c in cards] + [list(deck)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _playing_content(card: Card) -> tuple[Any, ...]:
    """A card's playing content: every field but its note and provenance."""
    return (card.id, card.name, card.kind, card.steps, card.copies, card.cost, card.points,
            card.planks, card.choose, card.when, card.owner_bonus, card.attend, card.bonus,
            card.store, card.ability, card.start)


def resolve_cards_path(name_or_path: str | Path) -> Path:
    """A shipped card set's path by name, or the path given."""
    text = str(name_or_path)
    shipped = CARDS_DIR / f"{text}.toml"
    if "/" not in text and not text.endswith(".toml") and shipped.exists():
        return shipped
    return Path(text)


def shipped_names() -> list[str]:
    """The names of the card sets the toolkit ships (`data/cards/NAME.toml`), sorted."""
    return sorted(p.stem for p in CARDS_DIR.glob("*.toml"))


def load_cards(name_or_path: str | Path = "river-market") -> CardSet:
    """Load and validate a card set by shipped name or by path."""
    path = resolve_cards_path(name_or_path)
    if not path.exists():
        raise CardError(f"no such card-set file (shipped card sets: "
                        f"{', '.join(shipped_names())})", source=str(path))
    data = read_document(path, "toml", CardError, "card-set")
    return card_set_from_dict(data, source=str(path))
