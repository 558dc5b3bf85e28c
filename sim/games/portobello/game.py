"""The game as people, agents written in Python, the web app, the viewer and the adapters
see it: a readable front over the one implementation of the rules, the compiled engine
(`sim.games.portobello.compiled`).

A `Game` holds the compiled state array `S` of one position and the packed board and rules
`B` (`sim.games.portobello.compiled.layout`); every rule runs in compiled code. Two doors: `apply`
trusts its caller (agents and search pass legal actions), `play` checks the action first and
raises `IllegalActionError` with the reason in words (files and people).

The fields of the position read as plain Python values (`game.scores`, `game.lane_seat`,
`game.end_reason`, ...): each is read from `S` when asked, and setting one writes it back,
so a test can set up a position by hand. What happened in an action, in words and numbers
(`events`, for records and the viewer), is read off the state before and after it
(`sim.games.portobello.events`), never worked out again here.

Chance is explicit: in the drawn customer order, `draw_customer` leaves the game at a chance
node whose outcomes `chance_outcomes()` lists; nothing random happens inside `apply`.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

import numpy as np

from sim.core import rng as R
from sim.core.errors import IllegalActionError
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.board import Board
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import END_REASONS
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.codes import STAT_NAMES
from sim.games.portobello.compiled import engine as E
from sim.games.portobello.compiled import layout as L
from sim.games.portobello.compiled import transitions as T
from sim.games.portobello.events import events_of
from sim.games.portobello.reasons import illegal_reason
from sim.games.portobello.rules import Rules

_NO_LOG = np.zeros(0, np.int64)
_LOG_ROOM = 256  # record actions the log array holds at first (it doubles when full)


@lru_cache(maxsize=64)
def packed(board: Board, rules: Rules) -> np.ndarray:
    """The board and rules as the compiled engine reads them
    (`sim.games.portobello.compiled.layout`), made once per board and rules (a board is hashed by
    identity, rules by value)."""
    B = L.pack(board, rules)
    B.setflags(write=False)
    return B


@lru_cache(maxsize=64)
def _table_lengths(board: Board, rules: Rules) -> dict[int, int]:
    """The length of each table of the state, by its slot (`layout.state_tables`)."""
    return dict(L.state_tables(board, rules))


def _scalar(slot: int, doc: str) -> property:
    def get(self: Game) -> int:
        return int(self.S[slot])

    def put(self: Game, value: int) -> None:
        self.S[slot] = value

    return property(get, put, doc=doc)


def _table(slot: int, doc: str) -> property:
    """A table of the state as a list (its length: `layout.pack`'s)."""

    def get(self: Game) -> list[int]:
        at = int(self.B[slot])
        return self.S[at:at + self._length(slot)].tolist()

    def put(self: Game, values: list[int]) -> None:
        at = int(self.B[slot])
        size = self._length(slot)
        if len(values) != size:
            raise ValueError(f"{len(values)} values for a table of {size}")
        self.S[at:at + size] = values

    return property(get, put, doc=doc)


class Game:
    """One game of Portobello Market under given rules on a given board."""

    __slots__ = ("B", "S", "_chance", "_lengths", "_log", "board", "events", "n", "rules",
                 "seed")

    board: Board
    rules: Rules

    def __init__(self, board: Board, rules: Rules | None = None, seed: int | None = 0,
                 *, record_events: bool = False, keep_log: bool = True) -> None:
        rules = rules or Rules()
        rules.check_board(board)
        self.board = board
        self.rules = rules
        self.n = rules.players
        self.seed = seed
        self.B = packed(board, rules)
        self._lengths = _table_lengths(board, rules)
        # The game's own generator for chance: a known line is shuffled with it at the start
        # and the bag's draws come from it (`sample_chance`).
        self._chance: np.ndarray | None = R.new(seed, R.CHANCE_STREAM)
        self.S = E.new_game(self.B, self._chance)
        self._log = np.zeros(_LOG_ROOM, np.int64) if keep_log else _NO_LOG
        self.events: list[dict[str, Any]] | None = [] if record_events else None

    @classmethod
    def at(cls, board: Board, rules: Rules, S: np.ndarray) -> Game:
        """A game standing at the compiled position `S` (shared, not copied), with no log,
        no events and no generator of its own: for reading a position, or searching on."""
        return cls._standing(board, rules, packed(board, rules), _table_lengths(board, rules),
                             S)

    def _standing_at(self, S: np.ndarray) -> Game:
        """`Game.at` on this game's board and rules, already packed: the position `S`."""
        return Game._standing(self.board, self.rules, self.B, self._lengths, S)

    @classmethod
    def _standing(cls, board: Board, rules: Rules, B: np.ndarray, lengths: dict[int, int],
                  S: np.ndarray) -> Game:
        g = cls.__new__(cls)
        g.board, g.rules, g.n, g.seed = board, rules, rules.players, None
        g.B, g._lengths, g.S = B, lengths, S
        g._chance = None
        g._log = _NO_LOG
        g.events = None
        return g

    # -- copies and identity ---------------------------------------------------------------
    def copy(self, keep_log: bool = False) -> Game:
        """An independent copy for search (no generator, no events; the log if asked)."""
        g = self._standing_at(self.S.copy())
        g.seed = self.seed
        if keep_log and self._log.shape[0]:
            g._log = self._log.copy()
        else:
            g.S[L.LOG_LEN] = 0
        return g

    def key(self) -> tuple[Any, ...]:
        """Everything that decides the future of the game (equal keys, equal games)."""
        state = self.S.copy()
        state[L.LOG_LEN] = state[L.LOG_OVERFLOW] = 0
        return (state.tobytes(),)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    # -- the position ----------------------------------------------------------------------
    seat = _scalar(L.SEAT, "the seat to move")
    round = _scalar(L.ROUND, "the round, from 1")
    turn = _scalar(L.TURN, "the turn, from 1 (0 before the Bobby is placed)")
    phase = _scalar(L.PHASE, "the phase code (sim.games.portobello.codes)")
    actions_left = _scalar(L.ACTIONS_LEFT, "actions left in the turn")
    neutral_top = _scalar(L.NEUTRAL_TOP, "neutral tokens handed out so far")
    n_full = _scalar(L.N_FULL_LANES, "lanes that are full")
    n_scored_lanes = _scalar(L.N_SCORED_LANES, "lanes scored so far")
    bobby = _scalar(L.BOBBY, "the Bobby's district (-1: not placed)")
    customers_left = _scalar(L.CUSTOMERS_LEFT, "customers left to draw")
    line_pos = _scalar(L.LINE_POS, "the next position in the known customer line")
    pending = _scalar(L.PENDING, "the drawn customer waiting for a square (0: none)")
    baron_square = _scalar(L.BARON_SQUARE, "the baron's square (-1: none yet)")
    scores = _table(L.S_SCORES, "each seat's score")
    stalls_left = _table(L.S_STALLS_LEFT, "stalls each seat has left")
    tok_val = _table(L.S_TOK_VAL, "token values, seat by seat (0: gone)")
    tok_neutral = _table(L.S_TOK_NEUTRAL, "1 where the token is a neutral one")
    tok_up = _table(L.S_TOK_UP, "1 where the token is face up")
    lane_count = _table(L.S_LANE_COUNT, "stalls in each lane")
    lane_dir = _table(L.S_LANE_DIR, "the end each lane is built from (-1: none)")
    lane_scored = _table(L.S_LANE_SCORED, "1 where the lane has been scored")
    lane_seat = _table(L.S_LANE_SEAT, "stalls of seat p in lane l, at l * players + p")
    spot_seat = _table(L.S_SPOT_SEAT, "the seat owning each spot, lane by lane (-1: empty)")
    square_customer = _table(L.S_SQUARE_CUSTOMER, "the customer code on each square (0: none)")
    district_scored = _table(L.S_DISTRICT_SCORED, "the seat that scored each district (-1)")
    stats = _table(L.S_STATS, "per-seat statistics, at seat * N_STATS + k (codes.STAT_NAMES)")

    def _length(self, slot: int) -> int:
        return self._lengths[slot]

    @property
    def n_tokens(self) -> int:
        return len(self.rules.player_tokens)

    @property
    def end_reason(self) -> str | None:
        """Why the end of the game was triggered (None: not yet)."""
        return END_REASONS[int(self.S[L.END_REASON])]

    @property
    def bag(self) -> list[int]:
        """Customers left in the bag by code: [0, citizens, aristocrats]."""
        return [0, int(self.S[L.BAG_CITIZENS]), int(self.S[L.BAG_ARISTOCRATS])]

    @property
    def line(self) -> tuple[int, ...] | None:
        """The known customer line (None when customers are drawn from the bag)."""
        if not self.B[L.KNOWN_ORDER]:
            return None
        at = int(self.B[L.S_LINE])
        return tuple(self.S[at:at + self.rules.bag_size].tolist())

    @property
    def scored_lanes(self) -> list[int]:
        """The lanes scored so far, in the order they scored."""
        return self.scored_lanes_from(0)

    def scored_lanes_from(self, first: int) -> list[int]:
        """The lanes scored so far from the `first`-th on (an action's, given the count
        before it), in the order they scored."""
        at = int(self.B[L.S_SCORED_LANES])
        return self.S[at + first:at + self.n_scored_lanes].tolist()

    @property
    def log(self) -> list[Action] | None:
        """The record's actions so far (None for a game that keeps no log)."""
        if not self._log.shape[0]:
            return None
        return self._log[:int(self.S[L.LOG_LEN])].tolist()

    # -- queries -------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return bool(self.S[L.PHASE] == OVER)

    @property
    def is_chance(self) -> bool:
        return bool(self.S[L.PHASE] == CHANCE)

    @property
    def finished(self) -> bool:
        return bool(self.S[L.PHASE] == OVER)

    def winners(self) -> list[int]:
        """Seats with the highest score (the current leaders of an unfinished game)."""
        scores = self.scores
        best = max(scores)
        return [p for p, s in enumerate(scores) if s == best]

    def next_customer(self) -> int:
        """The next customer of the known line (0 if none or drawn order)."""
        line = self.line
        if line is None or self.line_pos >= len(line):
            return 0
        return line[self.line_pos]

    def stat(self, seat: int, name: str) -> int:
        return int(self.S[self.B[L.S_STATS] + seat * N_STATS + STAT_NAMES.index(name)])

    def face_up_tokens(self, seat: int) -> list[tuple[int, bool]]:
        """(value, neutral) of each face-up token the seat holds."""
        return [(v, neutral) for v, neutral, up in self.held_tokens(seat) if up]

    def held_tokens(self, seat: int) -> list[tuple[int, bool, bool]]:
        """(value, neutral, face_up) of every token the seat holds."""
        t = self.n_tokens
        S, B = self.S, self.B
        out = []
        for i in range(seat * t, seat * t + t):
            v = int(S[B[L.S_TOK_VAL] + i])
            if v:
                out.append((v, bool(S[B[L.S_TOK_NEUTRAL] + i]), bool(S[B[L.S_TOK_UP] + i])))
        return out

    def lane_stalls(self, lane: int, seat: int) -> int:
        return int(self.S[self.B[L.S_LANE_SEAT] + lane * self.n + seat])

    def lane_full(self, lane: int) -> bool:
        return int(self.S[self.B[L.S_LANE_COUNT] + lane]) == self.board.lane_len[lane]

    def next_spot(self, lane: int, end: int) -> int:
        """Index (from ends[0]) of the spot the next stall takes when built from `end`."""
        return int(T.next_spot(self.B, self.S, lane, end))

    def move_cost(self, lane: int, mover: int) -> tuple[int, list[int]]:
        """Points the mover loses crossing `lane`, and the seats that gain 1 point each."""
        loss, gainers, most = E.move_cost(self.B, self.S, lane, mover)
        if not gainers:
            return int(loss), []
        return int(loss), [p for p in range(self.n)
                           if p != mover and self.lane_stalls(lane, p) == most]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The customers a draw from the bag can give, with their probabilities."""
        if self.S[L.PHASE] != CHANCE:
            return []
        bag = self.bag
        total = bag[1] + bag[2]
        return [(A.chance(c), bag[c] / total) for c in (1, 2) if bag[c]]

    def sample_chance(self, rng: random.Random | None = None) -> Action:
        """Draw a customer from the bag with `rng` (one draw of it seeds the draw), or
        with the game's own generator."""
        if rng is not None:
            return int(E.sample_chance(self.S, R.new(rng.getrandbits(64))))
        if self._chance is None:
            raise RuntimeError("a copied game has no generator of its own: pass rng")
        return int(E.sample_chance(self.S, self._chance))

    def advance_chance(self) -> None:
        """Move the game's own generator on as one draw from the bag would (a draw replayed
        from a record, whose customer is already known, keeps later draws where they were)."""
        if self._chance is not None and self.line is None:
            E.sample_chance(self.S, self._chance)

    def legal_actions(self) -> list[Action]:
        out = np.empty(int(self.B[L.ACTION_ROOM]), np.int64)
        k = E.legal_actions(self.B, self.S, out)
        return out[:k].tolist()

    # -- the validating door ---------------------------------------------------------------
    def check(self, action: Action) -> str | None:
        """Why `action` is illegal now, or None when it is legal."""
        legal = self.legal_actions()
        if action in legal:
            return None
        k, a = A.kind(action), A.arg(action)
        if k == A.DRAW_CUSTOMER and a and A.DRAW in legal:
            # A draw forced to a given customer (records carry what was drawn).
            line = self.line
            if line is not None and a == self.next_customer():
                return None
            if line is None and a in (1, 2) and self.bag[a] > 0:
                return None
        return illegal_reason(self, action)

    def play(self, action: Action) -> None:
        """Apply `action` after checking it; raises IllegalActionError with the reason."""
        reason = self.check(action)
        if reason is not None:
            raise IllegalActionError(reason)
        self.apply(action)

    # -- the trusted door ------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply a legal action (unchecked)."""
        log = self._log
        if log.shape[0] and self.S[L.LOG_LEN] >= log.shape[0]:
            self._log = log = np.concatenate([log, np.zeros(log.shape[0], np.int64)])
        if self.events is None:
            E.apply(self.B, self.S, action, log)
            return
        before = self._standing_at(self.S.copy())
        E.apply(self.B, self.S, action, log)
        self.events.extend(events_of(before, self, action))

    # -- people ----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"<Game {self.board.name} players={self.n} round={self.round} seat={self.seat} "
                f"phase={PHASE_NAMES[self.phase]} scores={self.scores}>")
