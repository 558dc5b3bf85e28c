"""The effect language of River Market's cards: what the rulebook's iconography can say,
as small immutable values a card set is built from and an engine can run.

- A **plank** is one effect: gains (fixed resources, any Goods, different Goods), at most one
  way of paying (fixed resources, any Goods, matching Goods, different Goods) and how many
  times it may be done. A plank without a payment is a brown (free) plank, one with a
  payment a red one.
- A **score** is a way of earning points at the game's end: flat points, points per so many
  of a resource held, per set of different Goods, or per card of a kind owned.
- A **store** lets an owner keep one resource on the card, up to a limit, for points each.
- An **ability** is a Helper's ongoing effect: more steps, a larger hand, a cheaper build,
  or a free plank whenever its owner activates a Booth, builds or attends an Event.

Everything here is data; nothing plays a rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

GOODS = ("veggie", "fish", "cloth", "tool", "lily")  # the five Goods
COIN = "coin"  # a resource, not a Good
RESOURCES = (COIN, *GOODS)  # the order costs and gains are listed in
PLURAL = {"veggie": "Veggies", "fish": "Fish", "cloth": "Cloth", "tool": "Tools",
          "lily": "Lilies", "coin": "Coins"}
SINGULAR = {"veggie": "Veggie", "fish": "Fish", "cloth": "Cloth", "tool": "Tool",
            "lily": "Lily", "coin": "Coin"}

KINDS = ("action", "booth", "event", "helper", "start")  # "start": a Starting Booth
# What a per-owned score can count: "booth" counts every Booth built, Events included (Events
# are Booths); "event" only Events; "helper" Helpers hired.
OWNED_KINDS = ("booth", "event", "helper")
ZOOM = "zoom"  # a card's Step value: move anywhere but where you began

Amounts = tuple[tuple[str, int], ...]  # (resource, how many), in RESOURCES order


@dataclass(frozen=True)
class Plank:
    """One effect: gains, at most one way of paying, and how many times it may be done."""

    gain: Amounts = ()
    gain_any: int = 0  # Goods of the player's choice (a kind may repeat)
    gain_different: int = 0  # that many Goods, each of a different kind
    spend: Amounts = ()
    spend_any: int = 0
    spend_matching: int = 0  # that many Goods of one kind
    spend_different: int = 0  # that many Goods, each of a different kind
    times: int = 1

    @property
    def free(self) -> bool:
        """A brown plank: nothing to pay."""
        return not (self.spend or self.spend_any or self.spend_matching or self.spend_different)


@dataclass(frozen=True)
class Score:
    """End-of-game points: `points` flat, or per `per` of a resource, per set of
    `per_different` different Goods, or per card of kind `per_owned` owned."""

    points: int
    per: tuple[str, int] | None = None
    per_different: int = 0
    per_owned: str = ""


@dataclass(frozen=True)
class Store:
    """Up to `limit` of `resource` kept on the card, `points` each at the game's end."""

    resource: str
    limit: int
    points: int = 1


@dataclass(frozen=True)
class Ability:
    """A Helper's ongoing ability (any of these, at least one)."""

    extra_steps: int = 0  # may move up to this many steps more
    hand_limit: int = 0  # this many more cards in hand
    build_discount: int = 0  # building a Booth costs this many fewer resources (your choice)
    on_activate: Plank | None = None  # a free plank each time its owner activates a Booth
    on_build: Plank | None = None  # ... each time its owner builds a Booth
    on_attend: Plank | None = None  # ... each time its owner attends an Event


@dataclass(frozen=True)
class Card:
    """One card design of a card set (`copies` of it in the deck)."""

    id: str
    name: str
    kind: str
    steps: int | str = 0  # 1.. or ZOOM; 0 for a Starting Booth (never in a hand)
    copies: int = 1
    reconstructed: bool = True  # False: its effects are the rulebook's own
    note: str = ""
    cost: Amounts = ()  # to build (Booths, Events) or hire (Helpers)
    points: int = 0  # printed value (Booths, Events, Helpers)
    planks: tuple[Plank, ...] = ()  # a Booth's activation, an Action's bonus effect
    choose: bool = False  # one of the planks (True) or all of them, in any order
    when: str = "either"  # an Action's effect: before, after or either side of activating
    owner_bonus: Plank | None = None
    attend: Score | None = None  # an Event's scoring for its attendees
    bonus: Score | None = None  # an owned card's extra scoring for its owner
    store: Store | None = None
    ability: Ability | None = None
    start: bool = False  # the Starting Booth the pawns begin on


@dataclass(frozen=True)
class CardSet:
    """A validated card set: its deck's cards (with copies), the Starting Booths, and the
    deck composition it declares."""

    name: str
    title: str
    description: str
    cards: tuple[Card, ...]
    deck: tuple[tuple[str, int], ...]  # (kind group, count): actions, booths, helpers, start
    source: str = "<dict>"
    content_hash: str = ""
    by_id: dict[str, Card] = field(default_factory=dict, compare=False)
    # The parsed file it was built from: a worker or another machine rebuilds it from this.
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def count(self, *kinds: str) -> int:
        """Cards of these kinds, copies counted."""
        return sum(c.copies for c in self.cards if c.kind in kinds)
