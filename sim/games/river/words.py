"""River Market cards in words, as a printed card would say them: the `portobello cards list`
listing and every message that names an effect."""

from __future__ import annotations

from sim.games.river.effects import PLURAL
from sim.games.river.effects import SINGULAR
from sim.games.river.effects import ZOOM
from sim.games.river.effects import Ability
from sim.games.river.effects import Amounts
from sim.games.river.effects import Card
from sim.games.river.effects import CardSet
from sim.games.river.effects import Plank
from sim.games.river.effects import Score
from sim.games.river.effects import Store

KIND_WORDS = {"action": "Action", "booth": "Booth", "event": "Event", "helper": "Helper",
              "start": "Starting Booth"}
KIND_ORDER = ("start", "action", "booth", "event", "helper")
HEADINGS = {"start": "Starting Booths", "action": "Actions", "booth": "Booths",
            "event": "Events (Booths)", "helper": "Helpers"}


def count(n: int, resource: str) -> str:
    """`2 Veggies`, `1 Fish`."""
    return f"{n} {SINGULAR[resource] if n == 1 else PLURAL[resource]}"


def amounts(items: Amounts) -> str:
    """`1 Coin, 1 Cloth and 1 Tool`."""
    parts = [count(n, r) for r, n in items]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _goods(n: int, adjective: str) -> str:
    return f"{n} {adjective}Good{'s' if n != 1 else ''}"


def times(n: int) -> str:
    """The rulebook's repeat words: once, up to twice, up to 4 times."""
    return "once" if n == 1 else "up to twice" if n == 2 else f"up to {n} times"


def plank(p: Plank) -> str:
    """`spend 1 Veggie to gain 3 Tools (once)`."""
    gains = ([amounts(p.gain)] if p.gain else []) + (
        [_goods(p.gain_any, "") + " of your choice"] if p.gain_any else []) + (
        [_goods(p.gain_different, "different ")] if p.gain_different else [])
    gain = " and ".join(gains)
    pay = (amounts(p.spend) if p.spend else
           f"any {_goods(p.spend_any, '')}" if p.spend_any else
           _goods(p.spend_matching, "matching ") if p.spend_matching else
           _goods(p.spend_different, "different ") if p.spend_different else "")
    text = f"spend {pay} to gain {gain}" if pay else f"gain {gain}"
    return f"{text} ({times(p.times)})"


def planks(items: tuple[Plank, ...], choose: bool) -> str:
    """The planks of a Booth or an Action, as a choice or as all of them."""
    said = [plank(p) for p in items]
    if len(said) == 1:
        return said[0]
    return ("choose one: " + "; or ".join(said)) if choose else \
        ("all, in any order: " + "; ".join(said))


def score(s: Score) -> str:
    """`2 points per 2 Lilies`."""
    pts = f"{s.points} point{'s' if s.points != 1 else ''}"
    if s.per is not None:
        return f"{pts} per {count(s.per[1], s.per[0])}"
    if s.per_different:
        return f"{pts} per set of {s.per_different} different Goods"
    if s.per_owned:
        return f"{pts} per {KIND_WORDS[s.per_owned]} owned"
    return pts


def store(s: Store) -> str:
    return (f"store up to {count(s.limit, s.resource)} here, {s.points} point"
            f"{'s' if s.points != 1 else ''} each")


def ability(a: Ability) -> str:
    parts = []
    if a.extra_steps:
        parts.append(f"move up to {a.extra_steps} more step{'s' if a.extra_steps != 1 else ''}")
    if a.hand_limit:
        parts.append(f"hand limit +{a.hand_limit}")
    if a.build_discount:
        parts.append(f"building a Booth costs {a.build_discount} fewer resource"
                     f"{'s' if a.build_discount != 1 else ''} of your choice")
    for when, p in (("activate a Booth", a.on_activate), ("build a Booth", a.on_build),
                    ("attend an Event", a.on_attend)):
        if p is not None:
            parts.append(f"whenever you {when}: {plank(p)}")
    return "; ".join(parts)


def steps(card: Card) -> str:
    return "Zoom" if card.steps == ZOOM else f"{card.steps} step{'s' if card.steps != 1 else ''}"


def card_line(card: Card) -> str:
    """One card, as its face would read."""
    head = [KIND_WORDS[card.kind]]
    if card.kind != "start":
        head.append(steps(card))
    if card.cost:
        head.append(f"cost {amounts(card.cost)}")
    if card.kind in ("booth", "event", "helper"):
        head.append(f"{card.points} point{'s' if card.points != 1 else ''}")
    parts = [f"{card.name} ({', '.join(head)})"]
    if card.start:
        parts.append("The pawns begin here")
    if card.planks:
        lead = {"action": "When you move with it", "start": "Activate"}.get(card.kind,
                                                                          "Activate")
        extra = "" if card.kind != "action" or card.when == "either" else \
            f" ({card.when} activating)"
        parts.append(f"{lead}{extra}: {planks(card.planks, card.choose)}")
    if card.kind == "event":
        parts.append("Activate: attend (a house on a star space)")
    if card.attend is not None:
        parts.append(f"Attendees score {score(card.attend)}")
    if card.owner_bonus is not None:
        parts.append(f"Owner bonus: {plank(card.owner_bonus)}")
    if card.ability is not None:
        parts.append(f"Ongoing: {ability(card.ability)}")
    if card.store is not None:
        parts.append(f"Ongoing: {store(card.store)}")
    if card.bonus is not None:
        parts.append(f"Owner scores {score(card.bonus)}")
    tags = [f"x{card.copies}"] if card.copies > 1 else []
    tags.append("reconstructed" if card.reconstructed else "rulebook")
    return ". ".join(parts) + f". [{', '.join(tags)}]"


def listing(cards: CardSet, markdown: bool = False) -> str:
    """The whole set, kind by kind, with its deck composition: a printable listing."""
    lines = [f"# {cards.title}" if markdown else cards.title, ""]
    if cards.description:
        lines += [cards.description, ""]
    deck = ", ".join(f"{n} {g}" for g, n in cards.deck)
    in_deck = cards.count("action", "booth", "event", "helper")
    lines += [f"Deck: {deck} (hash {cards.content_hash}); {in_deck} cards in the deck.", ""]
    for kind in KIND_ORDER:
        of = [c for c in cards.cards if c.kind == kind]
        if not of:
            continue
        n = sum(c.copies for c in of)
        lines.append(f"## {HEADINGS[kind]} ({n})" if markdown else f"{HEADINGS[kind]} ({n})")
        if markdown:
            lines.append("")
        lines += [("- " if markdown else "  ") + card_line(c) for c in of]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
