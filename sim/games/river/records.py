"""River Market game records: written as JSON a person can read (cards named, moves as steps
clockwise), read back and replayed through the rules, every action checked (docs/river-
market.md, "Records").

A record: `format`, `game` ("river-market"), `cards` (the card set's name and hash), `rules`,
`seed` (the deck's shuffles follow from it), `actions`, and `scores` (checked on replay). A
played card is named by its design and its hand slot (which of two copies in hand it was).

A record comes from anyone, so it names its card set only by the name of one the toolkit
ships (`data/cards/`), never by a path: reading it opens no file of the reader's but
those. A record that says it is another game than its format is refused, and so is a seed
no command would write (`sim.core.files.seed_out_of_range`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.errors import CardError
from sim.core.errors import IllegalActionError
from sim.core.errors import RecordError
from sim.core.errors import RulesError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.core.files import seed_out_of_range
from sim.core.outputs import atomic_write
from sim.games.river import compiled as C
from sim.games.river.cards import load_cards
from sim.games.river.cards import shipped_names
from sim.games.river.effects import RESOURCES
from sim.games.river.game import ENDS
from sim.games.river.game import RiverGame
from sim.games.river.rules import river_rules

FORMAT = "river-market-record/1"
GAME = "river-market"
GOODS = RESOURCES[1:]
TOP_KEYS = ("format", "game", "cards", "rules", "seed", "actions", "scores")


def action_to_json(g: RiverGame, action: int) -> dict[str, Any]:
    """An action of the position `g` (before it is done) in record form."""
    kind, arg = divmod(int(action), 1000)
    if kind == C.A_PLAY:
        slot, use = divmod(arg, 8)
        obj: dict[str, Any] = {"type": "play", "card": _design(g, g.hand(g.seat)[slot]),
                               "slot": slot}
        if C.U_BUILD <= use < C.U_BUILD + 4:
            obj |= {"use": "build", "end": ENDS[use - C.U_BUILD]}
        else:
            obj["use"] = {C.U_MOVE: "move", C.U_ZOOM: "zoom", C.U_HIRE: "hire"}[use]
        return obj
    if kind == C.A_MOVE:
        river = g.river()
        here = river.index(g.pawn(g.seat))
        return {"type": "move", "steps": (river.index(arg) - here) % len(river),
                "to": _design(g, arg)}
    if kind in (C.A_PLANK, C.A_FX):
        return {"type": "plank" if kind == C.A_PLANK else "effect", "index": arg}
    if kind in (C.A_PAY, C.A_GAIN):
        return {"type": "pay" if kind == C.A_PAY else "gain", "good": RESOURCES[arg]}
    if kind == C.A_DISCOUNT:
        return {"type": "discount", "resource": RESOURCES[arg]}
    return {"type": {C.A_ATTEND: "attend", C.A_END: "end", C.A_PASS: "pass"}[kind]}


def _design(g: RiverGame, c: int) -> str:
    return g.tables.designs[int(g.tables.CARD[c])].id


def action_from_json(g: RiverGame, obj: Any, where: str) -> int:
    """The action a record's entry names in position `g`; RecordError naming `where`."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("type"), str):
        raise RecordError(f"must be a table with a type, got {quote(obj)}", field=where)
    t = obj["type"]
    if t == "play":
        hand = [_design(g, c) for c in g.hand(g.seat)]
        card = obj.get("card")
        if card not in hand:
            raise RecordError(f"{quote(card)} is not in seat {g.seat}'s hand ({', '.join(hand)})",
                              field=f"{where}.card")
        slot = hand.index(card)  # of two copies in hand, the first unless a slot is named
        if "slot" in obj:
            slot = obj["slot"]
            if isinstance(slot, bool) or not isinstance(slot, int) or not \
                    0 <= slot < len(hand) or hand[slot] != card:
                raise RecordError(f"{quote(slot)} is not a slot of the hand holding {card}",
                                  field=f"{where}.slot")
        use = obj.get("use")
        uses = {"move": C.U_MOVE, "zoom": C.U_ZOOM, "hire": C.U_HIRE}
        if use == "build":
            if obj.get("end") not in ENDS:
                raise RecordError(f"must be one of {', '.join(ENDS)}", field=f"{where}.end")
            code = C.U_BUILD + ENDS.index(obj["end"])
        elif use in uses:
            code = uses[use]
        else:
            raise RecordError("must be move, zoom, build or hire", field=f"{where}.use")
        return C.A_PLAY * 1000 + slot * 8 + code
    if t == "move":
        river = g.river()
        steps = obj.get("steps")
        if isinstance(steps, bool) or not isinstance(steps, int) or not \
                0 < steps < len(river):
            raise RecordError(f"must be a whole number from 1 to {len(river) - 1}",
                              field=f"{where}.steps")
        to = river[(river.index(g.pawn(g.seat)) + steps) % len(river)]
        if "to" in obj and obj["to"] != _design(g, to):
            raise RecordError(f"{steps} steps clockwise lead to {_design(g, to)}, not "
                              f"{quote(obj['to'])}", field=f"{where}.to")
        return C.A_MOVE * 1000 + to
    if t in ("plank", "effect"):
        index = obj.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 8:
            raise RecordError("must be a plank's index, 0 to 7", field=f"{where}.index")
        return (C.A_PLANK if t == "plank" else C.A_FX) * 1000 + index
    if t in ("pay", "gain"):
        if obj.get("good") not in GOODS:
            raise RecordError(f"must be one of {', '.join(GOODS)}", field=f"{where}.good")
        return (C.A_PAY if t == "pay" else C.A_GAIN) * 1000 + RESOURCES.index(obj["good"])
    if t == "discount":
        if obj.get("resource") not in RESOURCES:
            raise RecordError(f"must be one of {', '.join(RESOURCES)}",
                              field=f"{where}.resource")
        return C.A_DISCOUNT * 1000 + RESOURCES.index(obj["resource"])
    simple = {"attend": C.A_ATTEND, "end": C.A_END, "pass": C.A_PASS}
    if t in simple:
        return simple[t] * 1000
    raise RecordError(f"unknown action type {quote(t)}", field=f"{where}.type")


def record_of(g0: RiverGame, actions: list[int], cards: str = "river-market") -> dict[str, Any]:
    """The record of the game that `actions` play from `g0` (a new game)."""
    g = g0.copy()
    out = []
    for a in actions:
        out.append(action_to_json(g, a))
        g.apply(a)
    card_set = load_cards(cards)
    return {"format": FORMAT, "game": GAME,
            "cards": {"name": card_set.name, "hash": card_set.content_hash},
            "rules": g.rules.to_dict(), "seed": g.seed, "actions": out,
            "scores": g.scores() if g.over else None}


def replay(data: Any, source: str = "<record>") -> RiverGame:
    """Replay a record; every action checked, the scores compared. RecordError naming the
    file, the field (the action's index) and the reason."""
    try:
        return _replay(data)
    except RecordError as exc:
        raise RecordError(exc.reason, source=source, field=exc.field) from None
    except RulesError as exc:
        raise RecordError(exc.reason, source=source, field=exc.field or "rules") from None
    except CardError as exc:
        raise RecordError(exc.reason, source=source, field=exc.field or "cards") from None


def _replay(data: Any) -> RiverGame:
    if not isinstance(data, Mapping):
        raise RecordError("a record is a JSON object")
    for key in data:
        if key not in TOP_KEYS:
            raise RecordError(f"unknown key (known: {', '.join(TOP_KEYS)})", field=str(key))
    if data.get("format") != FORMAT:
        raise RecordError(f"must be {FORMAT!r}, got {quote(data.get('format'))}", field="format")
    if data.get("game") != GAME:
        raise RecordError(f"the record says it is {quote(data.get('game'))}, but its format "
                          f"({FORMAT}) is River Market's: must be {GAME!r}", field="game")
    cards = data.get("cards")
    if not isinstance(cards, Mapping) or not isinstance(cards.get("name"), str):
        raise RecordError("must be a table with the card set's name and hash", field="cards")
    shipped, name = shipped_names(), cards["name"]
    if name not in shipped:
        path = any(c in name for c in "/\\") or name.endswith(".toml")
        raise RecordError(f"must name a card set the toolkit ships ({', '.join(shipped)}), got "
                          f"{quote(name)}" + (": a record names no file to read" if path else ""),
                          field="cards.name")
    card_set = load_cards(cards["name"])
    if cards.get("hash") != card_set.content_hash:
        raise RecordError(f"the record was played with other cards (hash {quote(cards.get('hash'))}"
                          f", {card_set.name} has {card_set.content_hash})", field="cards.hash")
    rules = river_rules(data.get("rules") or {})
    seed = data.get("seed")
    far = seed_out_of_range(seed)
    if far is not None:
        raise RecordError(far, field="seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"must be a whole number, got {quote(seed)}", field="seed")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise RecordError("must be a list", field="actions")
    g = RiverGame.new(rules, card_set, seed)
    for i, obj in enumerate(actions):
        where = f"actions[{i}]"
        if g.over:
            raise RecordError("the game is already over", field=where)
        a = action_from_json(g, obj, where)
        try:
            g.play(a)
        except IllegalActionError as exc:
            raise RecordError(exc.reason, field=where) from None
    scores = data.get("scores")
    if scores is not None and scores != g.scores():
        raise RecordError(f"the record says {quote(scores)}, the replay gives {g.scores()}",
                          field="scores")
    return g


def write_record(path: str | Path, record: Mapping[str, Any]) -> None:
    atomic_write(path, (json.dumps(record, indent=1) + "\n").encode())


def read_record(path: str | Path) -> RiverGame:
    """Read and replay a record file."""
    data = read_document(path, "json", RecordError, "record")
    return replay(data, source=str(path))
