"""`RiverGame`: the readable front over River Market's compiled rules (`sim.games.river.compiled`),
for people, tests, agents written in Python and (later) the viewer: the legal actions, a
trusted `apply`, a validating `play` with the reason in words, `copy`, and the position in
named parts (hands, river, resources, houses, scores)."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import numpy as np

from sim.core import rng
from sim.core.errors import IllegalActionError
from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river import words
from sim.games.river.cards import load_cards
from sim.games.river.effects import RESOURCES
from sim.games.river.effects import CardSet
from sim.games.river.rules import RiverRules
from sim.games.river.tables import Tables
from sim.games.river.tables import build_tables
from sim.games.river.words import count

PHASES = ("turn", "move", "act", "pay", "gain", "discount", "over")
USES = {C.U_MOVE: "move", C.U_ZOOM: "zoom", C.U_HIRE: "hire"}
ENDS = ("top-left", "top-right", "bottom-right", "bottom-left")


@dataclass
class RiverGame:
    """One game: its tables and its state array."""

    tables: Tables
    S: np.ndarray
    seed: int = 0
    rules: RiverRules = field(default_factory=RiverRules)
    history: list[int] = field(default_factory=list)  # the actions done, in order

    @classmethod
    def new(cls, rules: RiverRules | None = None, cards: CardSet | str = "river-market",
            seed: int = 0) -> RiverGame:
        """A game at its first decision (after setup and the mulligans)."""
        rules = rules or RiverRules()
        card_set = load_cards(cards) if isinstance(cards, str) else cards
        t = build_tables(card_set, rules)
        S = C.new_game(t.CD, t.CARD, t.R, np.uint64(rng.word(seed)))
        return cls(t, S, seed, rules)

    # -- the rules' door ----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        out = np.empty(512, np.int64)
        t = self.tables
        n = C.legal_actions(t.CD, t.PL, t.CARD, t.R, self.S, out)
        return [int(a) for a in out[:n]]

    def apply(self, action: int) -> None:
        """A legal action, unchecked."""
        t = self.tables
        C.apply(t.CD, t.PL, t.CARD, t.R, self.S, int(action))
        self.history.append(int(action))

    def play(self, action: int) -> None:
        """An action, refused in words when the rules do not allow it now."""
        if self.over:
            raise IllegalActionError("the game is over")
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(f"{self.describe(action)} is not allowed now (legal: "
                                     f"{', '.join(self.describe(a) for a in legal[:8])}"
                                     f"{', ...' if len(legal) > 8 else ''})")
        self.apply(action)

    def copy(self) -> RiverGame:
        return RiverGame(self.tables, self.S.copy(), self.seed, self.rules, list(self.history))

    # -- the position -------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return int(self.tables.R[T.R_PLAYERS])

    @property
    def phase(self) -> str:
        return PHASES[int(self.S[T.PHASE])]

    @property
    def over(self) -> bool:
        return int(self.S[T.PHASE]) == C.PH_OVER

    @property
    def seat(self) -> int:
        """Whose turn it is."""
        return int(self.S[T.SEAT])

    @property
    def decider(self) -> int:
        """Who decides now (another player decides their owner's bonus Goods)."""
        return int(self.S[T.DECIDER])

    @property
    def turn(self) -> int:
        return int(self.S[T.TURN])

    def card_name(self, c: int) -> str:
        return self.tables.designs[int(self.tables.CARD[c])].name

    def hand(self, p: int) -> list[int]:
        R = self.tables.R
        at = int(R[T.R_O_HAND] + p * R[T.R_HMAX])
        return [int(c) for c in self.S[at:at + int(self.S[R[T.R_O_HAND_LEN] + p])]]

    def river(self) -> list[int]:
        """The river's Booths, clockwise from the top row's left end."""
        at = int(self.tables.R[T.R_O_RIVER])
        return [int(c) for c in self.S[at:at + int(self.S[T.RIVER_LEN])]]

    def resources(self, p: int) -> dict[str, int]:
        at = int(self.tables.R[T.R_O_RES]) + p * T.NRES
        return {r: int(self.S[at + i]) for i, r in enumerate(RESOURCES)}

    def houses(self, p: int) -> int:
        return int(self.S[self.tables.R[T.R_O_HOUSES] + p])

    def pawn(self, p: int) -> int:
        return int(self.S[self.tables.R[T.R_O_PAWN] + p])

    def owner(self, c: int) -> int:
        return int(self.S[self.tables.R[T.R_O_OWNER] + c])

    def location(self, c: int) -> int:
        return int(self.S[self.tables.R[T.R_O_LOC] + c])

    def scores(self) -> list[int]:
        """Final scores (zeros before the end)."""
        at = int(self.tables.R[T.R_O_SCORE])
        return [int(x) for x in self.S[at:at + self.players]]

    def score_parts(self, p: int) -> list[int]:
        """`p`'s score now, part by part in the rulebook's order: Events, Booths, Helpers,
        leftover Coins, leftover Goods."""
        t = self.tables
        S = self.S.copy()  # the work space is written: the position stays as it was
        C.final_score(t.CD, t.CARD, t.R, S, p)
        return [int(C.score_part(t.R, S, i)) for i in range(5)]

    # -- words --------------------------------------------------------------------------------
    def describe(self, action: int) -> str:
        """An action in words."""
        kind, arg = divmod(int(action), 1000)
        if kind == C.A_PLAY:
            slot, use = divmod(arg, 8)
            hand = self.hand(self.seat)
            name = self.card_name(hand[slot]) if slot < len(hand) else f"card {slot}"
            if C.U_BUILD <= use < C.U_BUILD + 4:
                return f"build {name} at the {ENDS[use - C.U_BUILD]} end"
            return f"{USES.get(use, 'use')} with {name}"
        if kind == C.A_MOVE:
            return f"move to {self.card_name(arg)}" if 0 <= arg < self.tables.n_cards \
                else f"move to card {arg}"
        if kind in (C.A_PLANK, C.A_FX):
            c = int(self.S[T.BOOTH] if kind == C.A_PLANK else self.S[T.PLAYED])
            card = self.tables.designs[int(self.tables.CARD[c])] if c >= 0 else None
            if card is None or arg >= len(card.planks):
                return f"{'booth' if kind == C.A_PLANK else 'card'} effect {arg + 1}"
            return f"{card.name}: {words.plank(card.planks[arg])}"
        if kind in (C.A_PAY, C.A_GAIN):
            word = "pay" if kind == C.A_PAY else "take"
            return f"{word} {count(1, RESOURCES[arg])}" if 0 <= arg < len(RESOURCES) \
                else f"{word} resource {arg}"
        if kind == C.A_DISCOUNT:
            return f"leave 1 {RESOURCES[arg]} unpaid" if 0 <= arg < len(RESOURCES) else \
                "discount"
        return {C.A_ATTEND: "attend the Event", C.A_END: "end the turn",
                C.A_PASS: "pass (no card in hand)"}.get(kind, f"action {action}")
