"""An independent reading of River Market's rules, in plain Python, for testing the engine.

Written from the rulebook ("River Market Rulebook", ../shared/seeds/004_...) and the card-set
format of docs/river-market.md, not from the engine's rule functions: it shares with the engine
only the card data (`sim.games.river.effects` and `sim.games.river.cards`: plain values, no rules),
the rules switches (`sim.games.river.rules.RiverRules`: plain values) and the action encoding the
engine's module docstring documents (re-stated below, so that this file needs neither numba
nor numpy). `tests/test_river_oracle.py` plays random games on the engine, replays every
action here and compares the whole observable position after every action.

It is one file on purpose (some 700 lines): an independent reading is checked by reading it
against the rulebook from start to end, setup to scoring, with nothing of it elsewhere.

What the oracle cannot know is chance: the shuffles. It is given the position after setup
(the deck's order, the hands, the river's four Starting Booths and the discard pile the
mulligans left) and, whenever the discard pile is reshuffled into a new deck, it asks a
`Shuffler` for the new deck's order. Everything else it derives from the actions.

The readings (the rulebook's words; where it is silent, the reading stated):

- Physical cards: the deck's cards first, each design's copies in file order, then the four
  Starting Booths. The river is kept clockwise: the top row left to right, then the bottom
  row right to left. Building at the top-left end puts the Booth first clockwise, at the
  top-right end right after the top row (the top row grows), at the bottom-right end right
  after the top row too (it is the bottom row's clockwise-first Booth), at the bottom-left
  end last.
- A turn ("Gameplay"): play a card from the hand to move (with the Zoom token: zooming), to
  build it (a Booth or an Event: a house and its cost, a Helper's building discount leaving
  some of the cost unpaid) or to hire it (a Helper: its cost); pass with an empty hand.
- Moving ("Discarding a Card to Move"): 1 to the card's Step value (plus the mover's
  Helpers' extra steps) Booths clockwise, at most once round the river less one; a Zoom
  card or the Zoom token: any Booth; never the Booth where the pawn began. The Zoom token
  is not offered with a card that Zooms already (spending it would change nothing).
- Activating: each plank as often as its times allow (once by default), one plank only on a
  card that says choose, only when it can be paid for; an Event is attended with a house,
  once per player. The first thing done at the Booth on a visit gives the owner's bonus
  (another player's Booth only: "only once, even if you do multiple things") and the mover's
  Helpers' on-activate effects; attending also gives the on-attend effects; building the
  on-build effects. They resolve in this order: the owner's bonus, the Helpers' effects (the
  latest hired first: the rulebook gives no order, all are free and reach the same outcomes;
  this is the engine's), then the plank (or attendance) that caused them.
- A plank: its fixed payment at once, a payment of Goods of the player's choice one Good at
  a time, then its fixed gains, then Goods of the player's choice one at a time: those of
  any kind, then the different ones (the card format's order; either order reaches the same
  outcomes: `gain_any` Goods of any kinds and `gain_different` Goods of different kinds);
  an owner's bonus is chosen by the owner.
- An Action card's own effect, with the same times and choose readings: "before" only while
  nothing has been done at the Booth, "after" closes the Booth for further activation.
- Refilling ("Refilling Your Hand"): up to the hand limit (plus the Helpers' hand limits)
  from the deck's top (the end of the deck list), the discard pile shuffled into a new deck
  when the deck runs out.
- Game End: the first player out of houses finishes the turn, everyone gets a Zoom token
  (a switch), then everyone has `final_turns` more turns; a turn limit also ends the game.
- Scoring ("Scoring" 1-5): Events attended (a house in a star space or the pawn there, each
  once), Booths and Helpers owned (printed points, bonus scores, stored resources: every
  store filled as far as the holdings allow, the highest points a resource first, Booths
  before Helpers at equal points, as they are scored first), leftover Coins one point per
  two, leftover Goods one point per batch of three different. Scores reckoned on holdings
  (Events, bonuses) count everything the player has, stored or not.

Conventions that are no rule, matched to the engine's front (`sim.games.river.game`): the turn is
counted from 1; nobody decides (-1) once the game is over; the legal actions are listed by
hand slot and use, MOVE clockwise from the pawn, at a Booth its planks, attending, the card's
own effects, then ending the turn, and PAY, GAIN and DISCOUNT by resource.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from sim.games.river.effects import RESOURCES
from sim.games.river.effects import ZOOM
from sim.games.river.effects import Card
from sim.games.river.effects import CardSet
from sim.games.river.effects import Plank
from sim.games.river.effects import Score
from sim.games.river.rules import RiverRules

# -- the action encoding (the engine's module docstring and constants) -----------------------
PHASES = ("turn", "move", "act", "pay", "gain", "discount", "over")
PH_TURN, PH_MOVE, PH_ACT, PH_PAY, PH_GAIN, PH_DISCOUNT, PH_OVER = range(7)
A_PLAY, A_MOVE, A_PLANK, A_FX, A_ATTEND, A_PAY, A_GAIN, A_DISCOUNT, A_END, A_PASS = range(1, 11)
U_MOVE, U_ZOOM, U_BUILD, U_HIRE = 0, 1, 2, 6  # U_BUILD + end spot 0..3
TOP_LEFT, TOP_RIGHT, BOTTOM_RIGHT, BOTTOM_LEFT = range(4)
LOC_DECK, LOC_HAND, LOC_DISC, LOC_RIVER, LOC_HIRED = range(5)

NRES = len(RESOURCES)
COIN = 0
GOOD_IDS = tuple(range(1, NRES))  # Coins are not Goods
BOOTHS = ("booth", "event")  # Events are Booths

# Given (player refilling, the discard pile's cards, cards still to draw): the new deck,
# its top last.
Shuffler = Callable[[int, list[int], int], list[int]]


def action(kind: int, arg: int = 0) -> int:
    """An action's number: its kind times 1000 plus its argument."""
    return kind * 1000 + arg


def batches(goods: list[int], size: int) -> int:
    """How many disjoint batches of `size` different kinds `goods` (a count per kind)
    make: the largest b with sum(min(count, b)) >= size * b (each batch takes at most one
    of a kind, so a kind gives at most b; conversely any counts meeting it can be dealt
    out). Found by counting down, independent of how the batches are picked."""
    b = sum(goods) // size if size else 0
    while b > 0 and sum(min(n, b) for n in goods) < size * b:
        b -= 1
    return b


@dataclass
class Job:
    """One pending effect: a plank resolving for `who`; `stage`: 0 nothing done yet, 1 paid,
    2 the fixed Goods and those of any kind gained, 3 the different Goods gained too."""

    plank: Plank
    who: int
    stage: int = 0


@dataclass
class Visit:
    """What happened at the Booth this turn: the card played, the Booth, whether it was
    activated or closed, the owner paid, and the planks' and the card's own effect's uses."""

    played: int = -1
    zooming: bool = False
    booth: int = -1
    acted: bool = False
    closed: bool = False
    owner_paid: bool = False
    used: dict[int, int] = field(default_factory=dict)
    fx_used: dict[int, int] = field(default_factory=dict)


class RiverOracle:
    """One River Market game, by the rulebook, in plain Python."""

    def __init__(self, cards: CardSet, rules: RiverRules, deck: list[int],
                 hands: list[list[int]], river: list[int], discard: list[int],
                 shuffler: Shuffler | None = None) -> None:
        """The position after setup ("Setup" 1-6): the shuffled deck (top last), each
        player's hand, the four Starting Booths clockwise (two rows of two) and the discard
        pile the mulligans left; the rest (Coins, houses, pawns on the Swap Meet) is derived.
        `shuffler` orders a reshuffled deck (default: a seeded shuffle of its own)."""
        self.rules = rules
        self.n = rules.players
        self.designs: tuple[Card, ...] = cards.cards
        deck_designs = [i for i, d in enumerate(self.designs) if d.kind != "start"
                        for _ in range(d.copies)]
        starts = [i for i, d in enumerate(self.designs) if d.kind == "start"]
        self.card_design: list[int] = deck_designs + starts
        self.n_cards = len(self.card_design)
        self.n_deck = len(deck_designs)
        self.swap_meet = self.n_deck + next(k for k, i in enumerate(starts)
                                            if self.designs[i].start)
        self.houses_each = rules.houses if rules.houses is not None else (
            4 if self.n == 5 else 5)
        self._shuffler = shuffler or self._own_shuffle
        self._rng = random.Random(0)

        self.deck = list(deck)
        self.discard = list(discard)
        self.hands = [list(h) for h in hands]
        self.river = list(river)
        self.top_len = 2  # "two rows of two"
        self.res = [[0] * NRES for _ in range(self.n)]
        for p in range(self.n):
            self.res[p][COIN] = rules.start_coins
        self.houses = [self.houses_each] * self.n
        self.zoom = [0] * self.n
        self.pawn = [self.swap_meet] * self.n
        self.owner = [-1] * self.n_cards
        self.hired: list[list[int]] = [[] for _ in range(self.n)]
        self.attended: dict[int, set[int]] = {}

        self.phase = PH_TURN
        self.seat = 0
        self.decider = 0
        self.turn = 1  # the turn under way, counted from 1
        self.triggered = False
        self.trigger_now = False
        self.final_left = -1  # turns left after the end trigger; -1: not triggered
        self.scores = [0] * self.n
        self.visit = Visit()
        self.queue: list[Job] = []
        self.end_after = False  # the pending effects end the turn (building) or not
        # A payment or gain of the player's choice under way.
        self.pay_left = 0
        self.pay_kind = ""  # "any", "matching", "different"
        self.pay_good = -1
        self.paid: set[int] = set()
        self.gain_left = 0
        self.gain_kind = ""  # "any", "different"
        self.gained: set[int] = set()
        # A build waiting for its discount choices.
        self.build_card = -1
        self.build_end = -1
        self.disc_left = 0
        self.cost_left = [0] * NRES
        self.setup_problems = self._check_setup()

    # -- cards ---------------------------------------------------------------------------------
    def design(self, c: int) -> Card:
        """Physical card `c`'s design."""
        return self.designs[self.card_design[c]]

    def kind(self, c: int) -> str:
        """Physical card `c`'s kind: action, booth, event, helper or start."""
        return self.design(c).kind

    @staticmethod
    def amounts(pairs: tuple[tuple[str, int], ...]) -> list[int]:
        """A cost or a fixed payment/gain as a count per resource."""
        out = [0] * NRES
        for r, k in pairs:
            out[RESOURCES.index(r)] += k
        return out

    def helpers(self, p: int) -> list[Card]:
        """`p`'s hired Helpers' designs, in the order hired."""
        return [self.design(c) for c in self.hired[p]]

    def latest_first(self, p: int) -> list[Card]:
        """`p`'s Helpers in the order their abilities resolve: the latest hired first."""
        return self.helpers(p)[::-1]

    def extra_steps(self, p: int) -> int:
        """Steps `p`'s Helpers add to a move."""
        return sum(h.ability.extra_steps for h in self.helpers(p) if h.ability)

    def hand_limit(self, p: int) -> int:
        """`p`'s hand limit: the rules' and their Helpers' extra cards."""
        return self.rules.hand_limit + sum(h.ability.hand_limit for h in self.helpers(p)
                                           if h.ability)

    def discount(self, p: int) -> int:
        """Resources `p`'s Helpers leave unpaid when `p` builds."""
        return sum(h.ability.build_discount for h in self.helpers(p) if h.ability)

    def _check_setup(self) -> list[str]:
        """What is wrong with the position given as the setup, by "Setup" 1-6."""
        out = []
        everywhere = sorted(self.deck + self.discard + self.river
                            + [c for h in self.hands for c in h])
        if everywhere != list(range(self.n_cards)):
            out.append("the cards are not each in exactly one place")
        if sorted(self.river) != list(range(self.n_deck, self.n_cards)):
            out.append("the river is not the four Starting Booths")
        for p, h in enumerate(self.hands):
            if len(h) != self.rules.hand_limit:
                out.append(f"player {p}'s hand has {len(h)} cards")
            if self.rules.mulligan and not any(self.kind(c) in BOOTHS for c in h):
                out.append(f"player {p}'s hand holds no Booth (the mulligan)")
        return out

    # -- the legal actions ---------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """The decider's legal actions: by hand slot and use; MOVE clockwise from the pawn;
        at a Booth its planks, attending, the card's own effect, ending the turn; PAY, GAIN
        and DISCOUNT by resource."""
        if self.phase == PH_TURN:
            return self._turn_actions()
        if self.phase == PH_MOVE:
            return [action(A_MOVE, c) for c in self.destinations()]
        if self.phase == PH_ACT:
            return self._act_actions()
        if self.phase == PH_PAY:
            return [action(A_PAY, g) for g in self._pay_choices()]
        if self.phase == PH_GAIN:
            return [action(A_GAIN, g) for g in GOOD_IDS
                    if self.gain_kind == "any" or g not in self.gained]
        if self.phase == PH_DISCOUNT:
            return [action(A_DISCOUNT, r) for r in range(NRES) if self._discount_ok(r)]
        return []

    def _turn_actions(self) -> list[int]:
        """Each card in hand, slot by slot: to move; with the Zoom token (not for a card
        that Zooms already: the token would change nothing); to build at each end spot (a
        Booth or Event, a house left, the cost payable but for the discount); to hire (a
        Helper, its cost payable). With no card: pass."""
        p = self.seat
        hand = self.hands[p]
        if not hand:
            return [action(A_PASS)]
        out = []
        for slot, c in enumerate(hand):
            d = self.design(c)
            out.append(action(A_PLAY, slot * 8 + U_MOVE))
            if self.zoom[p] and d.steps != ZOOM:  # a Zoom card needs no token
                out.append(action(A_PLAY, slot * 8 + U_ZOOM))
            if d.kind in BOOTHS and self.houses[p] > 0 and \
                    self.shortfall(p, self.amounts(d.cost)) <= self.discount(p):
                out += [action(A_PLAY, slot * 8 + U_BUILD + e) for e in range(4)]
            if d.kind == "helper" and self.shortfall(p, self.amounts(d.cost)) == 0:
                out.append(action(A_PLAY, slot * 8 + U_HIRE))
        return out

    def shortfall(self, p: int, cost: list[int]) -> int:
        """Resources `p` lacks to pay `cost`."""
        return sum(max(0, need - have) for need, have in zip(cost, self.res[p], strict=True))

    def destinations(self) -> list[int]:
        """Where the pawn may stop, clockwise from where it began ("Discarding a Card to
        Move", "Zooming")."""
        river = self.river
        at = river.index(self.pawn[self.seat])
        steps = self.design(self.visit.played).steps
        if self.visit.zooming or steps == ZOOM:
            reach = len(river) - 1
        else:
            reach = min(int(steps) + self.extra_steps(self.seat), len(river) - 1)
        return [river[(at + k) % len(river)] for k in range(1, reach + 1)]

    def can_pay(self, plank: Plank, p: int) -> bool:
        """Whether `p` can pay for one use of `plank`."""
        res = self.res[p]
        goods = [res[g] for g in GOOD_IDS]
        if any(res[RESOURCES.index(r)] < k for r, k in plank.spend):
            return False
        if plank.spend_any and sum(goods) < plank.spend_any:
            return False
        if plank.spend_matching and max(goods) < plank.spend_matching:
            return False
        return not (plank.spend_different
                    and sum(1 for k in goods if k > 0) < plank.spend_different)

    def _plank_ok(self, planks: tuple[Plank, ...], choose: bool, used: dict[int, int],
                  j: int) -> bool:
        """Plank `j` of a card whose planks were used as `used`: times left, the choice kept,
        affordable."""
        if used.get(j, 0) >= planks[j].times:
            return False
        if choose and any(k != j for k in used):
            return False
        return self.can_pay(planks[j], self.seat)

    def _act_actions(self) -> list[int]:
        """At the Booth: its planks (unless closed), attending (an Event, a house left, not
        yet attended), the played Action's own effects ("before": only while nothing was
        done here), ending the turn."""
        v = self.visit
        p = self.seat
        booth = self.design(v.booth)
        out = []
        if not v.closed and booth.kind in ("start", "booth"):
            out += [action(A_PLANK, j) for j in range(len(booth.planks))
                    if self._plank_ok(booth.planks, booth.choose, v.used, j)]
        if not v.closed and booth.kind == "event" and self.houses[p] > 0 \
                and p not in self.attended.get(v.booth, set()):
            out.append(action(A_ATTEND))
        card = self.design(v.played)
        if card.kind == "action" and not (card.when == "before" and v.acted):
            out += [action(A_FX, j) for j in range(len(card.planks))
                    if self._plank_ok(card.planks, card.choose, v.fx_used, j)]
        out.append(action(A_END))
        return out

    def _pay_choices(self) -> list[int]:
        """The Goods the payer may pay next: any they hold; for matching Goods, one they
        hold enough of and then only it; for different Goods, one not yet paid."""
        res = self.res[self.decider]
        if self.pay_kind == "any":
            return [g for g in GOOD_IDS if res[g] > 0]
        if self.pay_kind == "matching":
            if self.pay_good >= 0:
                return [self.pay_good]
            return [g for g in GOOD_IDS if res[g] >= self.pay_left]
        return [g for g in GOOD_IDS if res[g] > 0 and g not in self.paid]

    def _discount_ok(self, r: int) -> bool:
        """Leaving one `r` unpaid keeps the rest of the cost payable with the discounts
        left."""
        if self.cost_left[r] <= 0:
            return False
        rest = list(self.cost_left)
        rest[r] -= 1
        return self.shortfall(self.seat, rest) <= self.disc_left - 1

    # -- doing an action -----------------------------------------------------------------------
    def apply(self, a: int) -> None:
        """Do legal action `a`."""
        kind, arg = divmod(a, 1000)
        if kind == A_PLAY:
            self._play(*divmod(arg, 8))
        elif kind == A_PASS:
            self._end_turn()
        elif kind == A_MOVE:
            self.pawn[self.seat] = arg
            self.visit.booth = arg
            self.phase = PH_ACT
        elif kind == A_PLANK:
            self._plank(arg)
        elif kind == A_FX:
            self._fx(arg)
        elif kind == A_ATTEND:
            self._attend()
        elif kind == A_END:
            self._end_turn()
        elif kind == A_PAY:
            self._pay(arg)
        elif kind == A_GAIN:
            self._gain(arg)
        elif kind == A_DISCOUNT:
            self.cost_left[arg] -= 1
            self.disc_left -= 1
            if self.disc_left == 0:
                self._build()
        else:
            raise ValueError(f"no such action {a}")

    def _play(self, slot: int, use: int) -> None:
        """Play the card in hand slot `slot`: discard it to move (with the Zoom token:
        zooming), hire it, or build it (its discount chosen first, if any)."""
        p = self.seat
        c = self.hands[p].pop(slot)
        d = self.design(c)
        self.visit = Visit(played=c)
        if use in (U_MOVE, U_ZOOM):
            self.discard.append(c)
            if use == U_ZOOM:
                self.zoom[p] -= 1
            self.visit.zooming = use == U_ZOOM
            self.phase = PH_MOVE
        elif use == U_HIRE:
            self._spend(p, self.amounts(d.cost))
            self.hired[p].append(c)
            self.owner[c] = p
            self._end_turn()
        else:
            self.build_card, self.build_end = c, use - U_BUILD
            self.cost_left = self.amounts(d.cost)
            self.disc_left = min(self.discount(p), sum(self.cost_left))
            if self.disc_left:
                self.phase = PH_DISCOUNT
            else:
                self._build()

    def _build(self) -> None:
        """"Booth Cards": pay the cost (what the discount left), place the Booth at the end
        spot, a house on it; the builder's on-build effects; the turn ends."""
        p, c, end = self.seat, self.build_card, self.build_end
        self._spend(p, self.cost_left)
        if end == TOP_LEFT:
            self.river.insert(0, c)
            self.top_len += 1
        elif end == TOP_RIGHT:
            self.river.insert(self.top_len, c)
            self.top_len += 1
        elif end == BOTTOM_RIGHT:
            self.river.insert(self.top_len, c)
        else:
            self.river.append(c)
        self.owner[c] = p
        self._spend_house(p)
        self.build_card = self.build_end = -1
        self.queue = [Job(h.ability.on_build, p) for h in self.latest_first(p)
                      if h.ability and h.ability.on_build]
        self.end_after = True
        self._run()

    def _spend(self, p: int, amounts: list[int]) -> None:
        """`p` pays `amounts` (a count per resource) to the supply."""
        for r, k in enumerate(amounts):
            self.res[p][r] -= k

    def _spend_house(self, p: int) -> None:
        """A house leaves `p`'s mat; the first player out of houses triggers the end."""
        self.houses[p] -= 1
        if self.houses[p] == 0 and not self.triggered:
            self.triggered = self.trigger_now = True

    def _activation(self) -> list[Job]:
        """The first thing done at the Booth this visit: the owner's bonus (another player's
        Booth), then the mover's Helpers' on-activate effects."""
        v = self.visit
        jobs = []
        if not v.acted:
            v.acted = True
            owner = self.owner[v.booth]
            bonus = self.design(v.booth).owner_bonus
            if owner >= 0 and owner != self.seat and not v.owner_paid and bonus:
                v.owner_paid = True
                jobs.append(Job(bonus, owner))
            jobs += [Job(h.ability.on_activate, self.seat) for h in self.latest_first(self.seat)
                     if h.ability and h.ability.on_activate]
        return jobs

    def _plank(self, j: int) -> None:
        """Plank `j` of the Booth, after what activating it first triggers."""
        v = self.visit
        v.used[j] = v.used.get(j, 0) + 1
        self.queue = [*self._activation(), Job(self.design(v.booth).planks[j], self.seat)]
        self.end_after = False
        self._run()

    def _fx(self, j: int) -> None:
        """The played Action's own effect `j`; an "after" effect closes the Booth."""
        v = self.visit
        card = self.design(v.played)
        v.fx_used[j] = v.fx_used.get(j, 0) + 1
        if card.when == "after":
            v.closed = True
        self.queue = [Job(card.planks[j], self.seat)]
        self.end_after = False
        self._run()

    def _attend(self) -> None:
        """"Events": a house into a star space here."""
        v, p = self.visit, self.seat
        self.attended.setdefault(v.booth, set()).add(p)
        self._spend_house(p)
        jobs = self._activation()
        jobs += [Job(h.ability.on_attend, p) for h in self.latest_first(p)
                 if h.ability and h.ability.on_attend]
        self.queue = jobs
        self.end_after = False
        self._run()

    def _run(self) -> None:
        """Resolve the pending effects in order until one needs a choice of Goods; then
        back to the Booth, or the turn ends."""
        while self.queue:
            job = self.queue[0]
            pl, who = job.plank, job.who
            if job.stage == 0:
                job.stage = 1
                self._spend(who, self.amounts(pl.spend))
                for kind, k in (("any", pl.spend_any), ("matching", pl.spend_matching),
                                ("different", pl.spend_different)):
                    if k:
                        self.pay_left, self.pay_kind = k, kind
                        self.pay_good, self.paid = -1, set()
                        self.phase, self.decider = PH_PAY, who
                        return
            if job.stage == 1:
                job.stage = 2
                for r, k in enumerate(self.amounts(pl.gain)):
                    self.res[who][r] += k
                if pl.gain_any:
                    self._start_gain(pl.gain_any, "any", who)
                    return
            if job.stage == 2:
                job.stage = 3
                if pl.gain_different:
                    self._start_gain(pl.gain_different, "different", who)
                    return
            self.queue.pop(0)
        if self.end_after:
            self._end_turn()
        else:
            self.phase, self.decider = PH_ACT, self.seat

    def _start_gain(self, k: int, kind: str, who: int) -> None:
        """`who` chooses `k` Goods one at a time (`kind`: "any" or "different")."""
        self.gain_left, self.gain_kind, self.gained = k, kind, set()
        self.phase, self.decider = PH_GAIN, who

    def _pay(self, g: int) -> None:
        """One Good of a payment; the effect goes on once it is paid in full."""
        self.res[self.decider][g] -= 1
        self.pay_good = g
        self.paid.add(g)
        self.pay_left -= 1
        if self.pay_left == 0:
            self._run()

    def _gain(self, g: int) -> None:
        """One Good of a choice of gains; the effect goes on once all are chosen."""
        self.res[self.decider][g] += 1
        self.gained.add(g)
        self.gain_left -= 1
        if self.gain_left == 0:
            self._run()

    def _end_turn(self) -> None:
        """Refill the hand; the end trigger's Zoom tokens and final turns; the game's end."""
        p = self.seat
        self.queue = []
        while len(self.hands[p]) < self.hand_limit(p):
            if not self.deck:
                if not self.discard:
                    break
                pile, self.discard = self.discard, []
                new = self._shuffler(p, list(pile), self.hand_limit(p) - len(self.hands[p]))
                if sorted(new) != sorted(pile):
                    raise AssertionError(f"the reshuffled deck {sorted(new)} is not the "
                                         f"discard pile {sorted(pile)}")
                self.deck = list(new)
            self.hands[p].append(self.deck.pop())
        if self.trigger_now:
            self.trigger_now = False
            if self.rules.zoom_tokens:
                self.zoom = [1] * self.n
            self.final_left = self.rules.final_turns * self.n
        elif self.final_left > 0:
            self.final_left -= 1
        self.visit = Visit()
        if self.final_left == 0 or self.turn >= self.rules.max_turns:
            self.phase, self.decider = PH_OVER, -1  # nobody decides any more
            self.scores = [sum(self.score_parts(q)) for q in range(self.n)]
            return
        self.turn += 1
        self.seat = (self.seat + 1) % self.n
        self.phase, self.decider = PH_TURN, self.seat

    def _own_shuffle(self, p: int, cards: list[int], to_draw: int) -> list[int]:
        """A reshuffle when no `Shuffler` was given (the oracle playing on its own)."""
        self._rng.shuffle(cards)
        return cards

    # -- scoring -------------------------------------------------------------------------------
    def owned(self, p: int, kinds: tuple[str, ...]) -> list[int]:
        """`p`'s built Booths (kinds "booth", "event") or hired Helpers ("helper")."""
        out = [c for c in self.river if self.owner[c] == p and self.kind(c) in kinds]
        return out + [c for c in self.hired[p] if self.kind(c) in kinds]

    def score(self, s: Score, p: int, held: list[int]) -> int:
        """A score's points for `p` holding `held`."""
        if s.per is not None:
            r, k = s.per
            return s.points * (held[RESOURCES.index(r)] // k)
        if s.per_different:
            return s.points * batches([held[g] for g in GOOD_IDS], s.per_different)
        if s.per_owned:
            kinds = BOOTHS if s.per_owned == "booth" else (s.per_owned,)
            return s.points * len(self.owned(p, kinds))
        return s.points

    def score_parts(self, p: int) -> list[int]:
        """`p`'s score by "Scoring" 1-5: Events, Booths, Helpers, leftover Coins, leftover
        Goods."""
        held = list(self.res[p])
        events = sum(self.score(self.design(c).attend, p, held) for c in self.river
                     if self.kind(c) == "event" and self.design(c).attend is not None
                     and (p in self.attended.get(c, set()) or self.pawn[p] == c))
        booths, helpers = self.owned(p, BOOTHS), self.owned(p, ("helper",))
        # Stores: the highest points a resource first; Booths (scored first) before Helpers.
        stores = [(c, st) for c in booths + helpers if (st := self.design(c).store)]
        stores.sort(key=lambda cs: -cs[1].points)
        left = list(held)
        stored: dict[int, int] = {}
        for c, st in stores:
            r = RESOURCES.index(st.resource)
            stored[c] = min(st.limit, left[r])
            left[r] -= stored[c]

        def card_points(c: int) -> int:
            """An owned card's printed points, bonus and stored resources."""
            d = self.design(c)
            pts = d.points + (self.score(d.bonus, p, held) if d.bonus else 0)
            return pts + (stored.get(c, 0) * d.store.points if d.store else 0)

        return [events, sum(card_points(c) for c in booths),
                sum(card_points(c) for c in helpers), left[COIN] // 2,
                batches([left[g] for g in GOOD_IDS], 3)]

    # -- the position --------------------------------------------------------------------------
    def locations(self) -> list[int]:
        """Every card's location (LOC_*); -1 for a Booth being built (between its PLAY and
        its last DISCOUNT)."""
        out = [-1] * self.n_cards
        for where, cards in ((LOC_DECK, self.deck), (LOC_DISC, self.discard),
                             (LOC_RIVER, self.river),
                             (LOC_HAND, [c for h in self.hands for c in h]),
                             (LOC_HIRED, [c for h in self.hired for c in h])):
            for c in cards:
                out[c] = where
        return out

    def view(self) -> dict[str, object]:
        """The observable position, field by field (as `tests/test_river_oracle.py` reads
        the engine's)."""
        n = self.n
        return {
            "phase": PHASES[self.phase],
            "seat": self.seat,
            "decider": self.decider,
            "turn": self.turn,
            "resources": [list(r) for r in self.res],
            "houses": list(self.houses),
            "zoom": list(self.zoom),
            "pawns": list(self.pawn),
            "hands": [list(h) for h in self.hands],
            "river": list(self.river),
            "owners": list(self.owner),
            "hired": [list(h) for h in self.hired],
            "attended": {c: sorted(ps) for c, ps in sorted(self.attended.items()) if ps},
            "deck": list(self.deck),
            "discard": sorted(self.discard),
            "scores": list(self.scores) if self.phase == PH_OVER else [0] * n,
        }
