"""Random legal play with every action checked: the seeded random player (`play`) and the
`Checker`, a small independent reading of the rules (docs/rules.md) that compares the game
after each action with the state before it (tests/test_properties.py uses them).
"""

from __future__ import annotations

import random
from typing import Any

from strategies import Policy

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import OVER
from sim.games.portobello.codes import PLACE
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.game import Game

END_REASONS = {"last_stall", "board_exhausted", "round_limit"}
TURN_ENDERS = (A.END_TURN, A.SCORE_DISTRICT)


# -- the random player -------------------------------------------------------------------------
def choose(game: Game, rng: random.Random, policy: Policy, moves_made: int) -> Action:
    """A random legal action: kind first at the start of a turn, few Bobby moves per turn."""
    legal = game.legal_actions()
    if game.phase == ACTIONS:
        moves = [a for a in legal if A.kind(a) == A.MOVE_BOBBY]
        work = [a for a in legal if A.kind(a) in (A.PLACE_STALL, A.DRAW_CUSTOMER)]
        if moves and moves_made < policy.max_moves and (not work or rng.random() < policy.p_move):
            return rng.choice(moves)
        if work and rng.random() >= policy.p_end:
            return rng.choice(work)
        assert A.END in legal
        return A.END
    if game.phase == TURN_START:
        kinds = sorted({A.kind(a) for a in legal})
        k = rng.choice(kinds)
        return rng.choice([a for a in legal if A.kind(a) == k])
    return rng.choice(legal)


def step_limit(game: Game, policy: Policy) -> int:
    """More steps than any game under `policy` can take (a turn is bounded, so are rounds)."""
    r = game.rules
    most = max([*r.player_tokens, *r.neutral_stack, 1])
    per_turn = 2 + 3 * most + policy.max_moves
    return 2 + r.max_rounds * r.players * per_turn


def play(game: Game, policy: Policy, *, checker: Checker | None = None,
         on_step: Any = None) -> list[Action]:
    """Play `game` to its end; returns every action applied (chance outcomes included)."""
    rng = random.Random(policy.seed)
    moves, turn = 0, -1
    applied: list[Action] = []
    limit = step_limit(game, policy)
    while not game.is_over:
        if game.is_chance:
            action = game.sample_chance(rng)
        else:
            if game.turn != turn:
                turn, moves = game.turn, 0
            action = choose(game, rng, policy, moves)
            if A.kind(action) == A.MOVE_BOBBY:
                moves += 1
        if checker is not None:
            checker.before(action)
        game.apply(action)
        applied.append(action)
        if checker is not None:
            checker.after(action)
        if on_step is not None:
            on_step(game, action)
        assert len(applied) <= limit, f"game did not end within {limit} steps: {game!r}"
    return applied


# -- an independent reading of the rules ---------------------------------------------------------
class Checker:
    """Checks every action against the state before it and against SPEC.md."""

    def __init__(self, game: Game) -> None:
        self.game = game
        board, rules = game.board, game.rules
        self.board = board
        self.rules = rules
        self.n = rules.players
        mult: dict[tuple[int, int], int] = {}
        codes = {name: code for code, name in CUSTOMER_NAMES.items()}
        for pair, value in rules.multipliers:
            a, b = (codes[x] for x in pair.split("-"))
            mult[a, b] = mult[b, a] = value
        self.mult = mult
        self.lane_sets = [set(lanes) for lanes in board.district_lanes]
        self.adjacent: list[dict[int, int]] = [{} for _ in board.district_ids]
        for d, lanes in enumerate(self.lane_sets):
            for e, other in enumerate(self.lane_sets):
                shared = lanes & other
                if d != e and shared:
                    assert len(shared) == 1
                    self.adjacent[d][e] = next(iter(shared))
        self.square_lanes = [sorted(i for i, ends in enumerate(board.lane_ends) if s in ends)
                             for s in range(board.n_squares)]
        self.prev = game.copy()
        self.check_state(game)

    # helpers
    def counts(self, g: Game, lane: int) -> list[int]:
        off, length = self.board.lane_offset[lane], self.board.lane_len[lane]
        seats = g.spot_seat[off:off + length]
        return [seats.count(p) for p in range(self.n)]

    def full(self, g: Game, lane: int) -> bool:
        off, length = self.board.lane_offset[lane], self.board.lane_len[lane]
        return -1 not in g.spot_seat[off:off + length]

    def ends_held(self, g: Game, lane: int) -> bool:
        a, b = self.board.lane_ends[lane]
        return bool(g.square_customer[a] and g.square_customer[b])

    def lane_points(self, g: Game, lane: int) -> list[int]:
        a, b = self.board.lane_ends[lane]
        m = self.mult.get((g.square_customer[a], g.square_customer[b]), 0)
        off = self.board.lane_offset[lane]
        pts = [0] * self.n
        for k, value in enumerate(self.board.lane_spots[lane]):
            s = g.spot_seat[off + k]
            if s >= 0:
                pts[s] += value * m
        return pts

    def move_cost(self, counts: list[int], mover: int) -> tuple[int, list[int]]:
        most = max(counts)
        if most == 0:
            return 1, []
        leaders = [p for p in range(self.n) if counts[p] == most]
        if counts[mover] == most and len(leaders) == 1:
            return 0, []
        if counts[mover] == most and self.rules.bobby_tie == "pay_bank":
            return 1, []
        others = [p for p in leaders if p != mover]
        return len(others), others

    # before an action: the legal actions are what the rules allow
    def before(self, action: Action) -> None:
        g = self.game
        legal = set(g.legal_actions())
        assert len(legal) == len(g.legal_actions())
        want = self.legal(g)
        assert legal == want, (sorted(map(A.describe, legal)), sorted(map(A.describe, want)))
        assert action in legal or A.kind(action) == A.CHANCE

    def legal(self, g: Game) -> set[Action]:
        """The legal actions as the rules describe them (chance outcomes aside)."""
        board, seat = self.board, g.seat
        if g.phase == SETUP:
            return {A.place_bobby(d) for d in range(board.n_districts)}
        if g.phase == PLACE:
            return {A.place_customer(s) for s in range(board.n_squares)
                    if not g.square_customer[s]}
        if g.phase == CHANCE:
            return {A.chance(c) for c in (1, 2) if g.bag[c]}
        if g.phase == OVER:
            return set()
        if g.phase == TURN_START:
            want = {A.play_token(v, neutral) for v, neutral in g.face_up_tokens(seat)}
            open_districts = [d for d in range(board.n_districts) if g.district_scored[d] < 0]
            want |= {A.score_district(v, d) for v, neutral in g.face_up_tokens(seat)
                     if not neutral and v in self.rules.district_tokens for d in open_districts}
            return want or {A.END}
        want = {A.END}
        if g.actions_left > 0:
            if g.stalls_left[seat] > 0:
                for lane in self.lane_sets[g.bobby]:
                    c = g.lane_count[lane]
                    if c < board.lane_len[lane]:
                        ends = (0, 1) if c == 0 else (g.lane_dir[lane],)
                        want |= {A.place_stall(lane, e) for e in ends}
            if g.customers_left > 0:
                want.add(A.DRAW)
        for d, lane in self.adjacent[g.bobby].items():
            cost = self.move_cost(self.counts(g, lane), seat)[0]
            if self.rules.negative_scores or cost <= g.scores[seat]:
                want.add(A.move_bobby(d))
        return want

    def tokens_after_turn(self, p: Game, action: Action) -> list[tuple[int, bool, bool]]:
        """The seat's tokens after its turn ends with `action`, read from the rules."""
        seat = p.seat
        held = list(p.held_tokens(seat))
        if A.kind(action) == A.SCORE_DISTRICT:
            value = A.district_value(action)
            held.remove((value, False, True))
            stack = self.rules.neutral_stack
            if p.neutral_top < len(stack):
                held.append((stack[p.neutral_top], True, True))
        if held and not any(up for _, _, up in held):
            held = [(v, neutral, True) for v, neutral, _ in held]
        return sorted(held)

    # after an action: compare with the state before it
    def after(self, action: Action) -> None:
        g, p = self.game, self.prev
        k, a = A.kind(action), A.arg(action)
        seat, n, rules = p.seat, self.n, self.rules
        self.check_state(g)
        # Occupied spots never change; the direction of a started lane never changes.
        for i, s in enumerate(p.spot_seat):
            if s >= 0:
                assert g.spot_seat[i] == s
        for lane, c in enumerate(p.lane_count):
            if c:
                assert g.lane_dir[lane] == p.lane_dir[lane]
        # Scoring: a lane once, in the right order, for the right points.
        assert g.scored_lanes[:len(p.scored_lanes)] == p.scored_lanes
        new = g.scored_lanes[len(p.scored_lanes):]
        expected: list[int] = []
        baron_end: list[int] = []
        if k == A.PLACE_STALL:
            lane = A.stall_lane(action)
            if self.full(g, lane) and self.ends_held(g, lane):
                expected = [lane]
        elif k == A.PLACE_CUSTOMER:
            expected = [lane for lane in self.square_lanes[a]
                        if not p.lane_scored[lane] and self.full(g, lane)
                        and p.square_customer[sum(self.board.lane_ends[lane]) - a]]
            if g.baron_square >= 0 and p.baron_square < 0:
                b = g.baron_square
                expected += [lane for lane in self.square_lanes[b]
                             if not p.lane_scored[lane] and lane not in expected
                             and self.full(g, lane) and self.ends_held(g, lane)]
        elif g.is_over and not p.is_over and g.baron_square >= 0:
            baron_end = [lane for lane in self.square_lanes[g.baron_square]
                         if not p.lane_scored[lane]]
        assert new == expected + baron_end, (A.describe(action), new, expected, baron_end)
        gained = [0] * n
        for lane in expected:
            for s, pts in enumerate(self.lane_points(g, lane)):
                gained[s] += pts
        baron_gained = [0] * n
        for lane in baron_end:
            for s, pts in enumerate(self.lane_points(g, lane)):
                baron_gained[s] += pts
        for s in range(n):
            assert g.stat(s, "lane_points") - p.stat(s, "lane_points") == gained[s]
            assert g.stat(s, "baron_points") - p.stat(s, "baron_points") == baron_gained[s]
        delta = [g.scores[s] - p.scores[s] for s in range(n)]
        # Bobby moves.
        if k == A.MOVE_BOBBY:
            assert a in self.adjacent[p.bobby] and g.bobby == a
            lane = self.adjacent[p.bobby][a]
            loss, gainers = self.move_cost(self.counts(p, lane), seat)
            assert p.move_cost(lane, seat) == (loss, gainers)
            to_nobody = loss - len(gainers)
            assert to_nobody in (0, 1)
            assert delta[seat] == -loss
            assert all(delta[q] == (1 if q in gainers else 0) for q in range(n) if q != seat)
            # Points paid = points gained by the others + points lost to nobody.
            assert -delta[seat] == sum(delta[q] for q in range(n) if q != seat) + to_nobody
            assert g.stat(seat, "bobby_paid") - p.stat(seat, "bobby_paid") == loss
            if not rules.negative_scores:
                assert loss <= p.scores[seat]
        else:
            assert g.bobby == p.bobby or k == A.PLACE_BOBBY
            district = [0] * n
            if k == A.SCORE_DISTRICT:
                value, d = A.district_value(action), A.district_of(action)
                assert p.district_scored[d] < 0 and g.district_scored[d] == seat
                assert value in rules.district_tokens
                mine = sum(self.counts(p, lane)[seat] for lane in self.lane_sets[d])
                district[seat] = value * mine
                assert (value, False) in p.face_up_tokens(seat)
                took = p.neutral_top < len(rules.neutral_stack)
                assert g.neutral_top == p.neutral_top + took
            else:
                assert g.neutral_top == p.neutral_top
            for s in range(n):
                assert g.stat(s, "district_points") - p.stat(s, "district_points") == district[s]
                assert delta[s] == gained[s] + baron_gained[s] + district[s]
        # Stalls and customers.
        if k == A.PLACE_STALL:
            lane, end = A.stall_lane(action), A.stall_end(action)
            assert lane in self.lane_sets[p.bobby] and p.actions_left > 0
            assert g.lane_count[lane] == p.lane_count[lane] + 1
            if p.lane_count[lane] == 0:
                assert g.lane_dir[lane] == end
            assert g.stalls_left[seat] == p.stalls_left[seat] - 1
            assert g.actions_left == p.actions_left - 1
        else:
            assert g.stalls_left == p.stalls_left
        if k == A.DRAW_CUSTOMER:
            assert g.actions_left == p.actions_left - 1
            if g.line is not None:
                assert g.phase == PLACE and g.pending == g.line[p.line_pos]
            elif a:
                assert g.phase == PLACE and g.pending == a
            else:
                assert g.phase == CHANCE
        if k == A.CHANCE:
            assert p.phase == CHANCE and g.phase == PLACE and g.pending == a
            assert g.bag[a] == p.bag[a] - 1
        if k == A.PLACE_CUSTOMER:
            assert p.phase == PLACE and p.square_customer[a] == 0
            assert g.square_customer[a] == p.pending and g.phase == ACTIONS
        if k == A.PLAY_TOKEN:
            value = A.token_value(action)
            assert g.actions_left == value and g.phase == ACTIONS
            up = p.face_up_tokens(seat)
            up.remove((value, bool(A.token_neutral(action))))
            assert sorted(g.face_up_tokens(seat)) == sorted(up)
            assert len(g.held_tokens(seat)) == len(p.held_tokens(seat))
        elif k not in TURN_ENDERS:
            assert g.held_tokens(seat) == p.held_tokens(seat)
        # The end of the game and the passing of turns.
        if p.end_reason is not None:
            assert g.end_reason == p.end_reason
        elif g.end_reason is not None:
            if g.end_reason == "last_stall":
                assert k == A.PLACE_STALL and g.stalls_left[seat] == 0
            elif g.end_reason == "board_exhausted":
                assert k in TURN_ENDERS
            else:
                assert g.end_reason == "round_limit"
                assert k in TURN_ENDERS and seat == n - 1 and p.round == rules.max_rounds
        if k == A.PLACE_STALL and g.stalls_left[seat] == 0 and p.end_reason is None:
            assert g.end_reason == "last_stall"
        if k in TURN_ENDERS:
            exhausted = g.customers_left == 0 and all(self.full(g, x) for x in
                                                      range(self.board.n_lanes))
            if p.end_reason is None and exhausted:
                assert g.end_reason == "board_exhausted"
            held = g.held_tokens(seat)
            assert sorted(held) == self.tokens_after_turn(p, action)
            if held:
                assert any(up for _, _, up in held), held
            if seat == n - 1 and g.end_reason is not None:
                assert g.is_over and g.round == p.round
            else:
                assert g.phase == TURN_START and g.seat == (seat + 1) % n
                assert g.round == p.round + (seat == n - 1)
                assert g.actions_left == 0
        elif k == A.PLACE_BOBBY:
            assert p.phase == SETUP and g.seat == 0 and g.phase == TURN_START
            assert p.seat == rules.bobby_placer_seat
        else:
            assert g.seat == p.seat and g.round == p.round and not g.is_over
        self.prev = g.copy()

    def check_state(self, g: Game) -> None:
        """Facts that hold in every state."""
        board, rules, n = self.board, self.rules, self.n
        # Stalls on the board plus in hand never change.
        on_board = [g.spot_seat.count(s) for s in range(n)]
        for s in range(n):
            assert on_board[s] + g.stalls_left[s] == rules.stalls
            assert g.stat(s, "stalls_placed") == on_board[s]
        # Each lane is a contiguous run from one end.
        full = 0
        for lane in range(board.n_lanes):
            c, length = g.lane_count[lane], board.lane_len[lane]
            off = board.lane_offset[lane]
            filled = [s >= 0 for s in g.spot_seat[off:off + length]]
            assert sum(filled) == c
            if c == 0:
                assert g.lane_dir[lane] == -1
            else:
                run = [True] * c + [False] * (length - c)
                assert filled == (run if g.lane_dir[lane] == 0 else run[::-1])
            full += c == length
            assert [g.lane_stalls(lane, s) for s in range(n)] == self.counts(g, lane)
            # No full lane with customers at both ends waits for its scoring.
            if c == length and self.ends_held(g, lane):
                assert g.lane_scored[lane]
            # A scored lane was full with customers at both ends, or baron-scored at the end.
            if g.lane_scored[lane]:
                a, b = board.lane_ends[lane]
                assert (c == length and self.ends_held(g, lane)) or (
                    g.is_over and g.baron_square in (a, b))
        assert g.n_full == full
        assert len(set(g.scored_lanes)) == len(g.scored_lanes)
        assert set(g.scored_lanes) == {x for x in range(board.n_lanes) if g.lane_scored[x]}
        # Scores add up from the statistics.
        for s in range(n):
            st_ = {name: g.stat(s, name) for name in ("lane_points", "district_points",
                                                        "baron_points", "bobby_received",
                                                        "bobby_paid")}
            assert g.scores[s] == (rules.seat_start_scores[s] + st_["lane_points"]
                                   + st_["district_points"] + st_["baron_points"]
                                   + st_["bobby_received"] - st_["bobby_paid"])
            if not rules.negative_scores:
                assert g.scores[s] >= 0
        paid = sum(g.stat(s, "bobby_paid") for s in range(n))
        received = sum(g.stat(s, "bobby_received") for s in range(n))
        assert received <= paid
        # Customers: every one is in the bag/line, waiting, or on a square; the baron last.
        placed = [g.square_customer.count(c) for c in (1, 2, 3)]
        waiting = 1 if g.phase == PLACE else 0
        assert placed[0] + placed[1] + waiting + g.customers_left == rules.bag_size
        assert sum(g.stat(s, "customers_placed") for s in range(n)) == placed[0] + placed[1]
        if g.line is None:
            bag = rules.bag
            for c, name in ((1, "citizen"), (2, "aristocrat")):
                assert placed[c - 1] + g.bag[c] + (waiting and g.pending == c) == bag[name]
        baron_due = rules.baron and g.customers_left == 0 and g.phase not in (PLACE, CHANCE)
        assert placed[2] == (1 if baron_due else 0) == (g.baron_square >= 0)
        assert 1 <= g.round <= rules.max_rounds
        assert g.phase != OVER or g.end_reason in END_REASONS


def check_final(game: Game) -> None:
    """Every game ends, for a reason the SPEC names, within `max_rounds`."""
    assert game.is_over and game.finished
    assert game.end_reason in END_REASONS
    assert game.round <= game.rules.max_rounds
    if game.end_reason == "round_limit":
        assert game.round == game.rules.max_rounds
    assert game.legal_actions() == []
    assert game.winners() == [s for s, v in enumerate(game.scores) if v == max(game.scores)]
