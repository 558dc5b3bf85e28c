"""A game as the adapters step it: the engine's game, preceded in known order (with no
line given) by chance drawing the line one customer at a time, and with at most
`bobby_moves` Bobby moves offered per turn.

The engine decides every rule; a position only adds the line's drawing (the engine
shuffles its line with its own generator, a framework wants each customer as a chance
step with its probability) and the bound on moves (a framework wants a finite game).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.adapters.core.actions import CUSTOMER_OUTCOMES
from sim.adapters.core.actions import OUTCOME_CUSTOMERS
from sim.adapters.core.actions import ActionTable
from sim.adapters.core.settings import Settings
from sim.core.errors import quote
from sim.games.portobello import actions as A
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.game import Game


class Position:
    """One game in progress; `game` is None while chance is still drawing the line."""

    __slots__ = ("game", "keep_log", "line", "moves", "moves_turn", "settings", "table")

    def __init__(self, settings: Settings, table: ActionTable, *, keep_log: bool = False) -> None:
        self.settings = settings
        self.table = table
        self.keep_log = keep_log
        self.line: list[int] = []
        self.game: Game | None = None
        self.moves = 0  # Bobby moves made in turn `moves_turn`
        self.moves_turn = -1
        if not settings.draws_line:
            self.game = Game(settings.board, settings.rules, seed=0, keep_log=keep_log)

    @classmethod
    def at(cls, settings: Settings, table: ActionTable, game: Game,
           moves_made: int = 0) -> Position:
        """A position at an engine game (a copy of it), `moves_made` Bobby moves into the
        turn: how an agent hands its game to a framework's search."""
        pos = cls.__new__(cls)
        pos.settings, pos.table, pos.keep_log = settings, table, False
        pos.line = []
        pos.game = game.copy()
        pos.moves, pos.moves_turn = moves_made, game.turn
        return pos

    def copy(self) -> Position:
        pos = Position.__new__(Position)
        pos.settings, pos.table, pos.keep_log = self.settings, self.table, self.keep_log
        pos.line = self.line[:]
        pos.game = None if self.game is None else self.game.copy(keep_log=self.keep_log)
        pos.moves, pos.moves_turn = self.moves, self.moves_turn
        return pos

    # -- whose step ------------------------------------------------------------------------
    @property
    def is_chance(self) -> bool:
        return self.game is None or self.game.is_chance

    @property
    def is_over(self) -> bool:
        return self.game is not None and self.game.is_over

    @property
    def seat(self) -> int:
        """The seat to act (meaningful when neither chance nor over)."""
        assert self.game is not None
        return self.game.seat

    @property
    def drawing_line(self) -> bool:
        return self.game is None

    # -- chance ------------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability) of the chance step now: a customer from the bag (or from
        what the line has not taken yet), each in proportion to how many are left."""
        if self.game is None:
            bag = self.settings.rules.bag
            left = [bag[CUSTOMER_NAMES[c]] - self.line.count(c) for c in OUTCOME_CUSTOMERS]
            total = sum(left)
            return [(i, k / total) for i, k in enumerate(left) if k]
        return [(CUSTOMER_OUTCOMES[A.arg(code)], p) for code, p in self.game.chance_outcomes()]

    def apply_outcome(self, outcome: int) -> None:
        customer = OUTCOME_CUSTOMERS[outcome]
        if self.game is not None:
            self.game.apply(A.chance(customer))
            return
        self.line.append(customer)
        settings = self.settings
        if len(self.line) == settings.rules.bag_size:
            line = tuple(CUSTOMER_NAMES[c] for c in self.line)
            rules = settings.rules.with_changes(customer_sequence=line)
            self.game = Game(settings.board, rules, seed=0, keep_log=self.keep_log)

    # -- the players' steps ---------------------------------------------------------------------
    def moves_left(self) -> int:
        """Bobby moves still offered this turn."""
        assert self.game is not None
        made = self.moves if self.moves_turn == self.game.turn else 0
        return self.settings.bobby_moves - made

    def legal(self) -> list[int]:
        """The legal actions' indices, ascending."""
        game = self.game
        assert game is not None
        codes = game.legal_actions()
        if self.moves_left() <= 0:
            codes = [c for c in codes if A.kind(c) != A.MOVE_BOBBY]
        return self.table.indices(codes)

    def check(self, index: Any) -> str | None:
        """None when action `index` may be played now; otherwise why not, in the engine's
        words (an index that is no action, a Bobby move over the turn's bound)."""
        if self.game is None or self.is_chance:
            return "chance is to move, not a player"
        if self.is_over:
            return "the game is over"
        if isinstance(index, bool) or not isinstance(index, int | np.integer) \
                or not 0 <= index < len(self.table):
            return (f"{quote(index)} is not an action of this game (actions are integers "
                    f"from 0 to {len(self.table) - 1})")
        code = self.table.codes[int(index)]
        if A.kind(code) == A.MOVE_BOBBY and self.moves_left() <= 0:
            return (f"no more Bobby moves this turn: at most {self.settings.bobby_moves} a "
                    "turn here")
        return self.game.check(code)

    def check_outcome(self, outcome: Any) -> str | None:
        """None when `outcome` is one chance may give now; otherwise why not."""
        if not self.is_chance:
            return "a player is to move, not chance"
        possible = [o for o, _ in self.chance_outcomes()]
        if isinstance(outcome, bool) or not isinstance(outcome, int | np.integer) \
                or int(outcome) not in possible:
            return (f"{quote(outcome)} is not a chance outcome now (outcomes: "
                    f"{', '.join(map(str, possible))})")
        return None

    def apply(self, index: int) -> None:
        """Apply a legal action by its index (trusted: `check` first where in doubt)."""
        game = self.game
        assert game is not None
        code = self.table.codes[index]
        if A.kind(code) == A.MOVE_BOBBY:
            if self.moves_turn != game.turn:
                self.moves_turn, self.moves = game.turn, 0
            self.moves += 1
        game.apply(code)

    # -- the outcome -------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """Every seat's return at the end (zeros before): see `Settings.returns`."""
        n = self.settings.players
        if not self.is_over:
            return [0.0] * n
        assert self.game is not None
        scores = self.game.scores
        if self.settings.returns == "margin":
            total = sum(scores)
            return [s - (total - s) / (n - 1) for s in scores]
        winners = self.game.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def __deepcopy__(self, memo: dict[int, object]) -> Position:
        # Frameworks clone states with copy.deepcopy: share the board, rules and table.
        return self.copy()
