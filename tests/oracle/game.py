"""The rules engine: one game's state, its legal actions and how actions change it.

The state is flat lists of ints so that search can copy it thousands of times per decision.
Two doors: `apply` trusts its caller (agents and search pass legal actions), `play` checks
the action first and raises `IllegalActionError` with the reason (files and people).

Chance is explicit: in the drawn customer order, `draw_customer` leaves the game at a
chance node whose outcomes `chance_outcomes()` lists; nothing random happens inside `apply`.

Why one file of about 600 lines: the state is one `__slots__` class whose fields the rules
change in place, and the rules (`_play_token` ... `_finish`) read best beside the fields and
the legal-action generator they must agree with, in the rulebook's order. The explanation
of illegal actions lives apart (`sim.games.portobello.reasons`), since it never changes the state.
"""

from __future__ import annotations

import random
from typing import Any

from sim.core.errors import IllegalActionError
from sim.games.portobello import actions as A
from sim.games.portobello import codes as C
from sim.games.portobello.actions import Action
from sim.games.portobello.board import Board
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import BARON
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import END_REASONS
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import STAT_NAMES
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.reasons import illegal_reason
from sim.games.portobello.rules import Rules

LAST_STALL, BOARD_EXHAUSTED, ROUND_LIMIT = (END_REASONS[C.END_LAST_STALL],
                                          END_REASONS[C.END_BOARD_EXHAUSTED],
                                          END_REASONS[C.END_ROUND_LIMIT])


class Game:
    """One game of Portobello Market under given rules on a given board."""

    __slots__ = (
        "actions_left",
        "bag",
        "baron_square",
        "board",
        "bobby",
        "chance_rng",
        "customers_left",
        "district_scored",
        "end_reason",
        "events",
        "lane_count",
        "lane_dir",
        "lane_scored",
        "lane_seat",
        "line",
        "line_pos",
        "log",
        "mult",
        "n",
        "n_full",
        "n_tokens",
        "neutral_top",
        "pending",
        "phase",
        "round",
        "rules",
        "scored_lanes",
        "scores",
        "seat",
        "seed",
        "spot_seat",
        "square_customer",
        "stalls_left",
        "stats",
        "tok_neutral",
        "tok_up",
        "tok_val",
        "turn",
    )

    board: Board
    rules: Rules

    def __init__(self, board: Board, rules: Rules | None = None, seed: int | None = 0,
                 *, record_events: bool = False, keep_log: bool = True) -> None:
        rules = rules or Rules()
        rules.check_board(board)
        n = rules.players
        self.board = board
        self.rules = rules
        self.n = n
        self.seed = seed
        self.mult = rules.multiplier_table()
        self.chance_rng: random.Random | None = random.Random(seed)
        self.seat = rules.bobby_placer_seat
        self.round = 1
        self.turn = 0
        self.phase = SETUP
        self.actions_left = 0
        self.scores = list(rules.seat_start_scores)
        self.stalls_left = [rules.stalls] * n
        t = len(rules.player_tokens)
        self.n_tokens = t
        self.tok_val = list(rules.player_tokens) * n
        self.tok_neutral = [False] * (n * t)
        self.tok_up = [True] * (n * t)
        self.neutral_top = 0
        nl = board.n_lanes
        self.lane_count = [0] * nl
        self.lane_dir = [-1] * nl
        self.lane_scored = [False] * nl
        self.lane_seat = [0] * (nl * n)
        self.spot_seat = [-1] * board.total_spots
        self.n_full = 0
        self.square_customer = [0] * board.n_squares
        self.district_scored = [-1] * board.n_districts
        self.bobby = -1
        bag = rules.bag
        self.bag = [0, bag["citizen"], bag["aristocrat"]]
        self.customers_left = rules.bag_size
        if rules.customer_order == "known":
            if rules.customer_sequence is not None:
                line = [CUSTOMER_CODES[c] for c in rules.customer_sequence if c != "baron"]
            else:
                line = [1] * bag["citizen"] + [2] * bag["aristocrat"]
                self.chance_rng.shuffle(line)
            self.line: tuple[int, ...] | None = tuple(line)
        else:
            self.line = None
        self.line_pos = 0
        self.pending = 0
        self.baron_square = -1
        self.end_reason: str | None = None
        self.scored_lanes: list[int] = []
        self.stats = [0] * (n * N_STATS)
        self.events: list[dict[str, Any]] | None = [] if record_events else None
        self.log: list[int] | None = [] if keep_log else None

    # -- copies and identity ---------------------------------------------------------------
    def copy(self, keep_log: bool = False) -> Game:
        """An independent copy for search (no random generator, no events, no log)."""
        g = Game.__new__(Game)
        g.board = self.board
        g.rules = self.rules
        g.n = self.n
        g.seed = self.seed
        g.mult = self.mult
        g.chance_rng = None
        g.seat = self.seat
        g.round = self.round
        g.turn = self.turn
        g.phase = self.phase
        g.actions_left = self.actions_left
        g.scores = self.scores[:]
        g.stalls_left = self.stalls_left[:]
        g.n_tokens = self.n_tokens
        g.tok_val = self.tok_val[:]
        g.tok_neutral = self.tok_neutral[:]
        g.tok_up = self.tok_up[:]
        g.neutral_top = self.neutral_top
        g.lane_count = self.lane_count[:]
        g.lane_dir = self.lane_dir[:]
        g.lane_scored = self.lane_scored[:]
        g.lane_seat = self.lane_seat[:]
        g.spot_seat = self.spot_seat[:]
        g.n_full = self.n_full
        g.square_customer = self.square_customer[:]
        g.district_scored = self.district_scored[:]
        g.bobby = self.bobby
        g.bag = self.bag[:]
        g.customers_left = self.customers_left
        g.line = self.line
        g.line_pos = self.line_pos
        g.pending = self.pending
        g.baron_square = self.baron_square
        g.end_reason = self.end_reason
        g.scored_lanes = self.scored_lanes[:]
        g.stats = self.stats[:]
        g.events = None
        g.log = self.log[:] if keep_log and self.log is not None else None
        return g

    def key(self) -> tuple[Any, ...]:
        """Everything that decides the future of the game (equal keys, equal games)."""
        return (
            self.seat, self.round, self.turn, self.phase, self.actions_left,
            tuple(self.scores), tuple(self.stalls_left), tuple(self.tok_val),
            tuple(self.tok_neutral), tuple(self.tok_up), self.neutral_top,
            tuple(self.lane_dir), tuple(self.lane_scored), tuple(self.spot_seat),
            tuple(self.square_customer), tuple(self.district_scored), self.bobby,
            tuple(self.bag), self.line, self.line_pos, self.pending, self.baron_square,
            self.end_reason, tuple(self.scored_lanes), tuple(self.stats),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    # -- queries -------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def is_chance(self) -> bool:
        return self.phase == CHANCE

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    def winners(self) -> list[int]:
        """Seats with the highest score (the current leaders of an unfinished game)."""
        best = max(self.scores)
        return [p for p, s in enumerate(self.scores) if s == best]

    def next_customer(self) -> int:
        """The next customer of the known line (0 if none or drawn order)."""
        if self.line is None or self.line_pos >= len(self.line):
            return 0
        return self.line[self.line_pos]

    def stat(self, seat: int, name: str) -> int:
        return self.stats[seat * N_STATS + STAT_NAMES.index(name)]

    def face_up_tokens(self, seat: int) -> list[tuple[int, bool]]:
        """(value, neutral) of each face-up token the seat holds."""
        t = self.n_tokens
        return [(self.tok_val[i], self.tok_neutral[i]) for i in range(seat * t, seat * t + t)
                if self.tok_val[i] and self.tok_up[i]]

    def held_tokens(self, seat: int) -> list[tuple[int, bool, bool]]:
        """(value, neutral, face_up) of every token the seat holds."""
        t = self.n_tokens
        return [(self.tok_val[i], self.tok_neutral[i], self.tok_up[i])
                for i in range(seat * t, seat * t + t) if self.tok_val[i]]

    def lane_stalls(self, lane: int, seat: int) -> int:
        return self.lane_seat[lane * self.n + seat]

    def lane_full(self, lane: int) -> bool:
        return self.lane_count[lane] == self.board.lane_len[lane]

    def next_spot(self, lane: int, end: int) -> int:
        """Index (from ends[0]) of the spot the next stall takes when built from `end`."""
        c = self.lane_count[lane]
        return c if end == 0 else self.board.lane_len[lane] - 1 - c

    def move_cost(self, lane: int, mover: int) -> tuple[int, list[int]]:
        """Points the mover loses crossing `lane`, and the seats that gain 1 point each."""
        n = self.n
        base = lane * n
        counts = self.lane_seat[base:base + n]
        most = max(counts)
        if most == 0:
            return 1, []
        leaders = [p for p in range(n) if counts[p] == most]
        if counts[mover] == most:
            if len(leaders) == 1:
                return 0, []
            if self.rules.bobby_tie == "pay_bank":
                return 1, []
        others = [p for p in leaders if p != mover]
        return len(others), others

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The customers a draw from the bag can give, with their probabilities."""
        if self.phase != CHANCE:
            return []
        total = self.bag[1] + self.bag[2]
        return [(A.chance(c), self.bag[c] / total) for c in (1, 2) if self.bag[c]]

    def sample_chance(self, rng: random.Random | None = None) -> Action:
        """Draw a customer from the bag with `rng` (default: the game's own generator)."""
        rng = rng or self.chance_rng
        if rng is None:
            raise RuntimeError("a copied game has no generator of its own: pass rng")
        c, a = self.bag[1], self.bag[2]
        return A.chance(1 if rng.randrange(c + a) < c else 2)

    # -- legal actions (hot path) ---------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase == ACTIONS:
            return self._turn_actions()
        if phase == PLACE:
            sc = self.square_customer
            return [A.place_customer(s) for s in range(len(sc)) if not sc[s]]
        if phase == TURN_START:
            return self._start_actions()
        if phase == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if phase == SETUP:
            return [A.place_bobby(d) for d in range(self.board.n_districts)]
        return []

    def _start_actions(self) -> list[Action]:
        seat, t = self.seat, self.n_tokens
        out: list[Action] = []
        scoring: list[Action] = []
        district_tokens = self.rules.district_tokens
        open_districts = [d for d, s in enumerate(self.district_scored) if s < 0]
        for i in range(seat * t, seat * t + t):
            v = self.tok_val[i]
            if v and self.tok_up[i]:
                neutral = self.tok_neutral[i]
                a = A.play_token(v, neutral)
                if a not in out:
                    out.append(a)
                if not neutral and v in district_tokens:
                    scoring.extend(A.score_district(v, d) for d in open_districts)
        out.extend(scoring)
        return out or [A.END]

    def _turn_actions(self) -> list[Action]:
        seat = self.seat
        board = self.board
        out: list[Action] = []
        bobby = self.bobby
        if self.actions_left > 0:
            if self.stalls_left[seat] > 0:
                lane_count, lane_len = self.lane_count, board.lane_len
                for lane in board.district_lanes[bobby]:
                    c = lane_count[lane]
                    if c < lane_len[lane]:
                        if c == 0:
                            out.append(A.place_stall(lane, 0))
                            out.append(A.place_stall(lane, 1))
                        else:
                            out.append(A.place_stall(lane, self.lane_dir[lane]))
            if self.customers_left > 0:
                out.append(A.DRAW)
        allow_negative = self.rules.negative_scores
        score = self.scores[seat]
        for d, lane in board.district_neighbours[bobby]:
            if allow_negative or self.move_cost(lane, seat)[0] <= score:
                out.append(A.move_bobby(d))
        out.append(A.END)
        return out

    # -- the validating door ---------------------------------------------------------------
    def check(self, action: Action) -> str | None:
        """Why `action` is illegal now, or None when it is legal."""
        legal = self.legal_actions()
        if action in legal:
            return None
        k, a = A.kind(action), A.arg(action)
        if k == A.DRAW_CUSTOMER and a and A.DRAW in legal:
            # A draw forced to a given customer (records carry what was drawn).
            if self.line is not None and a == self.next_customer():
                return None
            if self.line is None and a in (1, 2) and self.bag[a] > 0:
                return None
        return illegal_reason(self, action)

    def play(self, action: Action) -> None:
        """Apply `action` after checking it; raises IllegalActionError with the reason."""
        reason = self.check(action)
        if reason is not None:
            raise IllegalActionError(reason)
        self.apply(action)

    # -- the trusted door (hot path) -------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply a legal action (unchecked)."""
        k = A.kind(action)
        a = A.arg(action)
        log = self.log
        if log is not None:
            if k == A.CHANCE:
                log[-1] = A.DRAW | a  # the draw and its outcome are one record action
            else:
                log.append(action)
        if k == A.PLACE_STALL:
            self._place_stall(A.stall_lane(action), A.stall_end(action))
        elif k == A.MOVE_BOBBY:
            self._move_bobby(a)
        elif k == A.END_TURN:
            self._end_turn()
        elif k == A.DRAW_CUSTOMER:
            self._draw(a)
        elif k == A.PLACE_CUSTOMER:
            self._place_customer(a)
        elif k == A.CHANCE:
            self._reveal(a)
        elif k == A.PLAY_TOKEN:
            self._play_token(A.token_value(action), A.token_neutral(action))
        elif k == A.SCORE_DISTRICT:
            self._score_district(A.district_value(action), A.district_of(action))
        elif k == A.PLACE_BOBBY:
            self.bobby = a
            self.seat = 0
            self.round = 1
            self.turn = 1
            self.phase = TURN_START
            if self.events is not None:
                self.events.append({"type": "place_bobby", "seat": self.rules.bobby_placer_seat,
                                    "district": self.board.district_ids[a]})
        else:
            raise ValueError(f"unknown action {action}")

    # -- the rules, one place each ----------------------------------------------------------
    def _play_token(self, value: int, neutral: int) -> None:
        """Flip a face-up token; its value is the number of actions this turn."""
        t = self.n_tokens
        for i in range(self.seat * t, self.seat * t + t):
            if self.tok_val[i] == value and self.tok_neutral[i] == neutral and self.tok_up[i]:
                self.tok_up[i] = False
                break
        self.actions_left = value
        self.phase = ACTIONS

    def _score_district(self, value: int, district: int) -> None:
        """The whole turn: token into the district, value x own stalls bordering it."""
        seat, n, t = self.seat, self.n, self.n_tokens
        lane_seat = self.lane_seat
        stalls = sum(lane_seat[lane * n + seat] for lane in self.board.district_lanes[district])
        points = value * stalls
        self.scores[seat] += points
        self.stats[seat * N_STATS + C.DISTRICT_POINTS] += points
        self.stats[seat * N_STATS + C.DISTRICTS_SCORED] += 1
        self.district_scored[district] = seat
        stack = self.rules.neutral_stack
        for i in range(seat * t, seat * t + t):
            if self.tok_val[i] == value and not self.tok_neutral[i] and self.tok_up[i]:
                if self.neutral_top < len(stack):
                    self.tok_val[i] = stack[self.neutral_top]
                    self.tok_neutral[i] = True
                    self.tok_up[i] = True
                    self.neutral_top += 1
                else:
                    self.tok_val[i] = 0
                    self.tok_neutral[i] = False
                    self.tok_up[i] = False
                break
        if self.events is not None:
            self.events.append({"type": "score_district", "seat": seat, "value": value,
                                "district": self.board.district_ids[district], "stalls": stalls,
                                "points": points})
        self._end_turn()

    def _place_stall(self, lane: int, end: int) -> None:
        seat = self.seat
        board = self.board
        c = self.lane_count[lane]
        length = board.lane_len[lane]
        if c == 0:
            self.lane_dir[lane] = end
        spot = c if end == 0 else length - 1 - c
        self.spot_seat[board.lane_offset[lane] + spot] = seat
        self.lane_count[lane] = c + 1
        self.lane_seat[lane * self.n + seat] += 1
        self.stalls_left[seat] -= 1
        self.stats[seat * N_STATS + C.STALLS_PLACED] += 1
        self.actions_left -= 1
        if self.events is not None:
            self.events.append({"type": "place_stall", "seat": seat,
                                "lane": board.lane_ids[lane], "spot": spot,
                                "value": board.lane_spots[lane][spot]})
        if c + 1 == length:
            self.n_full += 1
            a, b = board.lane_ends[lane]
            if self.square_customer[a] and self.square_customer[b]:
                self._score_lane(lane, C.LANE_POINTS)
        if self.stalls_left[seat] == 0 and self.end_reason is None:
            self.end_reason = LAST_STALL
            if self.events is not None:
                self.events.append({"type": "end_triggered", "seat": seat,
                                    "reason": LAST_STALL})

    def _draw(self, forced: int) -> None:
        """Spend an action on a customer: the known line's next, or a draw from the bag."""
        self.actions_left -= 1
        if self.line is not None:
            self.pending = self.line[self.line_pos]
            self.line_pos += 1
            self.customers_left -= 1
            if self.log is not None:
                self.log[-1] = A.DRAW | self.pending
            self.phase = PLACE
        elif forced:
            self._reveal(forced)
        else:
            self.phase = CHANCE

    def _reveal(self, customer: int) -> None:
        self.bag[customer] -= 1
        self.customers_left -= 1
        self.pending = customer
        self.phase = PLACE

    def _place_customer(self, square: int) -> None:
        seat = self.seat
        customer = self.pending
        self.pending = 0
        self.phase = ACTIONS
        self.square_customer[square] = customer
        self.stats[seat * N_STATS + C.CUSTOMERS_PLACED] += 1
        if self.events is not None:
            self.events.append({"type": "place_customer", "seat": seat,
                                "square": self.board.square_ids[square],
                                "customer": CUSTOMER_NAMES[customer]})
        self._score_lanes_at(square)
        if self.customers_left == 0 and self.rules.baron and self.baron_square < 0:
            baron_square = self.square_customer.index(0)
            self.square_customer[baron_square] = BARON
            self.baron_square = baron_square
            if self.events is not None:
                self.events.append({"type": "place_baron",
                                    "square": self.board.square_ids[baron_square]})
            self._score_lanes_at(baron_square)

    def _score_lanes_at(self, square: int) -> None:
        """Score every full, unscored lane at `square` with customers at both ends."""
        board = self.board
        sc = self.square_customer
        for lane in board.square_lanes[square]:
            if self.lane_scored[lane] or self.lane_count[lane] != board.lane_len[lane]:
                continue
            a, b = board.lane_ends[lane]
            if sc[a] and sc[b]:
                self._score_lane(lane, C.LANE_POINTS)

    def _score_lane(self, lane: int, stat: int) -> None:
        """Each seat scores (sum of its spots' values) x the end customers' multiplier."""
        board = self.board
        a, b = board.lane_ends[lane]
        mult = self.mult[self.square_customer[a] * 4 + self.square_customer[b]]
        n = self.n
        points = [0] * n
        off = board.lane_offset[lane]
        spot_seat = self.spot_seat
        for k, value in enumerate(board.lane_spots[lane]):
            s = spot_seat[off + k]
            if s >= 0:
                points[s] += value
        scores, stats = self.scores, self.stats
        for p in range(n):
            if points[p]:
                gained = points[p] * mult
                points[p] = gained
                scores[p] += gained
                stats[p * N_STATS + stat] += gained
        self.lane_scored[lane] = True
        self.scored_lanes.append(lane)
        if self.events is not None:
            self.events.append({"type": "score_lane", "lane": board.lane_ids[lane],
                                "multiplier": mult, "points": points,
                                "baron": stat == C.BARON_POINTS})

    def _move_bobby(self, district: int) -> None:
        """Cross the one lane shared with the adjacent district, paying for it."""
        seat = self.seat
        lane = next(lane for d, lane in self.board.district_neighbours[self.bobby]
                    if d == district)
        loss, gainers = self.move_cost(lane, seat)
        if loss:
            self.scores[seat] -= loss
            self.stats[seat * N_STATS + C.BOBBY_PAID] += loss
            for p in gainers:
                self.scores[p] += 1
                self.stats[p * N_STATS + C.BOBBY_RECEIVED] += 1
        self.bobby = district
        if self.events is not None:
            self.events.append({"type": "move_bobby", "seat": seat,
                                "district": self.board.district_ids[district],
                                "lane": self.board.lane_ids[lane], "paid": loss,
                                "to": gainers})

    def _end_turn(self) -> None:
        """Refresh tokens, check the end triggers, pass the turn."""
        seat, t = self.seat, self.n_tokens
        tok_val, tok_up = self.tok_val, self.tok_up
        lo, hi = seat * t, seat * t + t
        if not any(tok_up[i] for i in range(lo, hi) if tok_val[i]):
            for i in range(lo, hi):
                if tok_val[i]:
                    tok_up[i] = True
        self.actions_left = 0
        if (self.end_reason is None and self.customers_left == 0
                and self.n_full == self.board.n_lanes):
            self.end_reason = BOARD_EXHAUSTED
            if self.events is not None:
                self.events.append({"type": "end_triggered", "seat": seat,
                                    "reason": BOARD_EXHAUSTED})
        if seat == self.n - 1:
            if self.end_reason is None and self.round >= self.rules.max_rounds:
                self.end_reason = ROUND_LIMIT
            if self.end_reason is not None:
                self._finish()
                return
            self.round += 1
            self.seat = 0
        else:
            self.seat = seat + 1
        self.turn += 1
        self.phase = TURN_START

    def _finish(self) -> None:
        """Baron scoring, then the game is over."""
        if self.baron_square >= 0:
            for lane in self.board.square_lanes[self.baron_square]:
                if not self.lane_scored[lane]:
                    self._score_lane(lane, C.BARON_POINTS)
        self.phase = OVER
        if self.events is not None:
            self.events.append({"type": "game_over", "reason": self.end_reason,
                                "scores": self.scores[:], "winners": self.winners()})

    # -- people ----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"<Game {self.board.name} players={self.n} round={self.round} seat={self.seat} "
                f"phase={PHASE_NAMES[self.phase]} scores={self.scores}>")
