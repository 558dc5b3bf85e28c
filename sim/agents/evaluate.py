"""Position evaluation shared by the greedy, heuristic and MCTS agents.

A seat's value is what a good player would count it worth, in points:

    V = score
      + sum over unscored lanes of (own spot values) x (expected multiplier) x (chance the lane
        is scored: 1 at the baron, 0 when the stalls in all hands cannot fill it)
                                                         -- `lane`, `fill`, `end`
      + district potential: own district tokens x best open districts' own stall counts
        (plus the share of the stalls in hand expected to join them), fading as the end
        nears                                            -- `district`, `growth`, `horizon`
      + majorities: inner lanes where the seat alone has the most stalls (free crossings,
        Bobby fees from the others)                      -- `majority`
      + stalls kept in hand, worth less as the end nears -- `stall`, `horizon`
      + tokens: tempo x (the face-up tokens' values above the average token, plus the
        turns left x the average token), so playing a big token now is weighed against
        keeping it, and a district scoring that swaps a 4 for a neutral 1 pays for the
        actions it gives up                               -- `tempo`

An agent compares actions by the change of its margin `V_me - rival * mean(V_others)`.
A seat's last stall is priced as the end of the game (score, the lane it may complete and
the baron's lanes; every hope is gone). `immediate=True` keeps only the score (the greedy
agent's points margin).

Evaluating a whole position builds a `State` cache (per-lane terms, per-district stall
counts, potentials); the `*_delta` functions then price one action from the cache in a few
microseconds without copying the game, which is what makes the heuristic fast enough to be a
rollout policy for MCTS.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields
from typing import Any

from sim.engine.board import Board
from sim.engine.codes import BARON
from sim.engine.game import Game
from sim.engine.rules import Rules

STALLS_PER_TURN = 2.3  # stalls an average turn places (for the turns-left estimate)


@dataclass(frozen=True)
class Weights:
    """Tunable weights of the evaluation (see the module docstring)."""

    lane: float = 1.0  # weight of the expected value of stalls in unscored lanes
    fill: float = 0.8  # chance factor per empty spot a lane still needs to be full
    end: float = 0.85  # chance factor per end square still waiting for a customer
    district: float = 0.8  # weight of the district-scoring potential
    growth: float = 0.15  # share of the stalls still in hand expected in a scored district
    horizon: float = 3.0  # turns before the end over which the district potential fades
    majority: float = 0.4  # per inner lane where the seat alone has the most stalls
    stall: float = 0.6  # value of a stall kept in hand
    tempo: float = 1.5  # points an action is worth on an average turn
    bobby: float = 0.2  # weight of the next player's chances where the Bobby is left
    rival: float = 1.0  # weight of the rivals' values in the margin

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.names()}


def compiled_params(weights: Weights | None = None, *, immediate: bool = False,
                    simulate: bool = True, min_gain: float = 0.0, leave: bool = True) -> Any:
    """The compiled twin's parameter row (a numpy array) for these weights and planner
    switches (greedy: `immediate=True` and the default weights)."""
    from sim.fast.params import planner_params

    return planner_params((weights or Weights()).as_dict(), STALLS_PER_TURN,
                          immediate=immediate, simulate=simulate, min_gain=min_gain,
                          leave=leave)


class State:
    """A position's evaluation cache (valid only until the game changes)."""

    __slots__ = ("bumped", "dcnt", "dtok", "e1", "e2", "game", "hand", "lead", "n", "own",
                 "pot", "pot_w", "stall_w", "tau", "term", "top", "turns", "values")

    game: Game
    n: int
    e1: list[float]
    e2: float
    hand: int
    own: list[list[int]]
    term: list[list[float]]
    lead: list[int]
    dcnt: list[list[int]]
    dtok: list[list[int]]
    top: list[list[tuple[int, int]]]
    bumped: dict[int, float]
    pot: list[float]
    pot_w: float
    stall_w: float
    tau: list[float]
    turns: float
    values: list[float]


class Evaluator:
    """Seat values and action deltas under given weights (see the module docstring)."""

    def __init__(self, board: Board, rules: Rules, weights: Weights | None = None,
                 immediate: bool = False) -> None:
        self.board = board
        self.rules = rules
        self.w = weights or Weights()
        self.immediate = immediate
        self.n = rules.players
        self.mult = rules.multiplier_table()
        self.inner = [len(ds) == 2 for ds in board.lane_districts]
        self.lane_info = [(board.lane_offset[lane], board.lane_spots[lane], board.lane_len[lane],
                           *board.lane_ends[lane], self.inner[lane])
                          for lane in range(board.n_lanes)]
        longest = max(board.lane_len)
        self.fill_pow = [self.w.fill ** r for r in range(longest + 1)]
        self.end_pow = [1.0, self.w.end, self.w.end ** 2]
        self.dtokens = frozenset(rules.district_tokens)
        self._pool_cache: dict[tuple[int, int, int], tuple[list[float], float]] = {}

    # -- building blocks ----------------------------------------------------------------
    def pool(self, game: Game) -> tuple[list[float], float]:
        """Expected multipliers of a lane end still empty: `e1[c]` when the other end holds
        customer c, `e2` when both are empty; from the customers still to come (the baron
        counts as one of them: it lands on the last empty square)."""
        if game.line is not None:
            rest = game.line[game.line_pos:]
            cit, ari = rest.count(1), rest.count(2)
        else:
            cit, ari = game.bag[1], game.bag[2]
        bar = 1 if self.rules.baron and game.baron_square < 0 else 0
        key = (cit, ari, bar)
        hit = self._pool_cache.get(key)
        if hit is not None:
            return hit
        total = cit + ari + bar
        mult = self.mult
        if total == 0:
            out: tuple[list[float], float] = ([0.0] * 4, 0.0)
        else:
            probs = (0.0, cit / total, ari / total, bar / total)
            e1 = [sum(probs[x] * mult[c * 4 + x] for x in (1, 2, 3)) for c in range(4)]
            e2 = sum(probs[x] * e1[x] for x in (1, 2, 3))
            out = (e1, e2)
        self._pool_cache[key] = out
        return out

    def turns_left(self, game: Game) -> float:
        """A rough count of each seat's turns still to come (0 once the end is triggered)."""
        if game.end_reason is not None:
            return 0.0
        return min(game.stalls_left) / STALLS_PER_TURN

    def lane_factor(self, st: State, lane: int, count: int, ca: int, cb: int,
                    baron_end: bool) -> float:
        """Expected points per unit of spot value in an unscored lane: expected multiplier
        x chance the lane is scored (1 for a lane at the baron: scored at the end anyway;
        0 when the stalls left in all hands cannot fill it)."""
        if ca and cb:
            m = float(self.mult[ca * 4 + cb])
        elif ca or cb:
            m = st.e1[ca or cb]
        else:
            m = st.e2
        if baron_end:
            return m * self.w.lane
        missing = self.board.lane_len[lane] - count
        if missing > st.hand:  # not enough stalls left in all hands to fill it
            return 0.0
        return m * self.w.lane * self.fill_pow[missing] * self.end_pow[(ca == 0) + (cb == 0)]

    def token_term(self, up: list[int], held: list[int], turns: float) -> float:
        """The tokens' worth in actions x `tempo`: face-up values above the average token
        (they are this cycle's turns) plus the turns left x the average token."""
        if self.immediate or not held:
            return 0.0
        mean = sum(held) / len(held)
        return self.w.tempo * (sum(up) - len(up) * mean + turns * mean)

    def seat_tokens(self, game: Game, seat: int) -> tuple[list[int], list[int]]:
        """(face-up values, held values) of a seat's tokens."""
        t = game.n_tokens
        up: list[int] = []
        held: list[int] = []
        for i in range(seat * t, seat * t + t):
            v = game.tok_val[i]
            if v:
                held.append(v)
                if game.tok_up[i]:
                    up.append(v)
        return up, held

    def _leader(self, counts: list[int]) -> int:
        most = max(counts)
        if most == 0 or counts.count(most) > 1:
            return -1
        return counts.index(most)

    def district_tokens(self, game: Game, seat: int) -> list[int]:
        """The seat's own tokens that can still score a district, largest first."""
        t = game.n_tokens
        return sorted((game.tok_val[i] for i in range(seat * t, seat * t + t)
                       if not game.tok_neutral[i] and game.tok_val[i] in self.dtokens),
                      reverse=True)

    def potential(self, st: State, tokens: list[int], counts: list[int], left: int) -> float:
        """District potential: tokens (largest first) paired with the best open districts'
        own stall counts (largest first) plus the expected share of `left` stalls in hand."""
        if not tokens or st.pot_w == 0.0:
            return 0.0
        extra = self.w.growth * left
        return st.pot_w * sum(v * (c + extra) for v, c in zip(tokens, counts, strict=False))

    def _bumped_potential(self, st: State, seat: int, lane: int) -> float:
        """The seat's potential after one more of its stalls in `lane` (memoised)."""
        tokens = st.dtok[seat]
        if not tokens:
            return 0.0
        key = seat * 4096 + lane
        hit = st.bumped.get(key)
        if hit is not None:
            return hit
        ds = self.board.lane_districts[lane]
        top = st.top[seat]
        k = len(tokens) + 2
        counts = [c + 1 if d in ds else c for c, d in top[:k]]
        scored = st.game.district_scored
        for d in ds:
            if scored[d] < 0 and all(d != dd for _, dd in top[:k]):
                counts.append(st.dcnt[d][seat] + 1)
        counts.sort(reverse=True)
        value = st.bumped[key] = self.potential(st, tokens, counts,
                                                st.game.stalls_left[seat] - 1)
        return value

    # -- whole positions ----------------------------------------------------------------
    def state(self, game: Game) -> State:
        """Evaluate a position and keep the pieces the deltas need."""
        st = State()
        st.game = game
        n = st.n = game.n
        st.e1, st.e2 = self.pool(game)
        st.hand = sum(game.stalls_left)
        b = self.board
        w = self.w
        sc = game.square_customer
        spot_seat = game.spot_seat
        baron = game.baron_square
        own_all: list[list[int]] = []
        terms: list[list[float]] = []
        leads: list[int] = []
        values = [float(s) for s in game.scores]
        immediate = self.immediate
        lane_count, lane_dir, lane_scored = game.lane_count, game.lane_dir, game.lane_scored
        lane_seat = game.lane_seat
        majority = w.majority
        zeros = [0.0] * n
        for lane, (off, spots, length, a, z, inner) in enumerate(self.lane_info):
            own = [0] * n
            c = lane_count[lane]
            if c:  # the stalls are a run of c spots from the end the lane is built from
                first = 0 if lane_dir[lane] == 0 else length - c
                for k in range(first, first + c):
                    own[spot_seat[off + k]] += spots[k]
            own_all.append(own)
            if not c or immediate or lane_scored[lane]:
                terms.append(zeros)
            else:
                f = self.lane_factor(st, lane, c, sc[a], sc[z], baron in (a, z))
                term = [o * f for o in own]
                for p in range(n):
                    values[p] += term[p]
                terms.append(term)
            lead = -1
            if inner and c and not immediate:
                lead = self._leader(lane_seat[lane * n:lane * n + n])
                if lead >= 0:
                    values[lead] += majority
            leads.append(lead)
        st.own, st.term, st.lead = own_all, terms, leads
        per_lane = [lane_seat[lane * n:lane * n + n] for lane in range(b.n_lanes)]
        dcnt = [[sum(col) for col in zip(*(per_lane[lane] for lane in lanes), strict=True)]
                for lanes in b.district_lanes]
        st.dcnt = dcnt
        st.bumped = {}
        if immediate:
            st.pot_w = st.stall_w = st.turns = 0.0
            st.pot = [0.0] * n
            st.tau = [0.0] * n
            st.dtok = [[] for _ in range(n)]
            st.top = [[] for _ in range(n)]
        else:
            tl = st.turns = self.turns_left(game)
            fade = min(1.0, max(0.0, (tl - 2.0) / w.horizon)) if w.horizon > 0 else 1.0
            st.pot_w = w.district * fade
            # Stalls in hand are worth less as the end nears (and nothing at the end): a
            # player must not sit on its last stalls when placing them would end the game.
            st.stall_w = w.stall * (min(1.0, max(0.0, (tl - 1.0) / w.horizon))
                                    if w.horizon > 0 else 1.0)
            scored = game.district_scored
            st.dtok = [self.district_tokens(game, p) for p in range(n)]
            st.top = [sorted(((dcnt[d][p], d) for d in range(len(dcnt)) if scored[d] < 0),
                             reverse=True) for p in range(n)]
            st.pot = [self.potential(st, st.dtok[p], [c for c, _ in st.top[p]],
                                     game.stalls_left[p]) for p in range(n)]
            st.tau = [self.token_term(*self.seat_tokens(game, p), tl) for p in range(n)]
            for p in range(n):
                values[p] += st.pot[p] + st.stall_w * game.stalls_left[p] + st.tau[p]
        st.values = values
        return st

    def margin(self, values: list[float], seat: int) -> float:
        """The seat's value minus `rival` x the mean of the others' (also for deltas)."""
        n = len(values)
        if n == 1:
            return values[0]
        return values[seat] - self.w.rival * (sum(values) - values[seat]) / (n - 1)

    def value_margins(self, game: Game) -> list[float]:
        """Each seat's value minus the best other seat's value (for search leaves)."""
        values = self.state(game).values
        out = []
        for p in range(len(values)):
            best = max(v for q, v in enumerate(values) if q != p)
            out.append(values[p] - best)
        return out

    # -- deltas of single actions (no copy of the game) ---------------------------------
    def stall_delta(self, st: State, seat: int, lane: int, end: int) -> list[float]:
        """Change of every seat's value when `seat` places a stall in `lane` from `end`."""
        g = st.game
        b = self.board
        n = st.n
        c = g.lane_count[lane]
        length = b.lane_len[lane]
        v = b.lane_spots[lane][c if end == 0 else length - 1 - c]
        own = st.own[lane]
        before = st.term[lane]
        a, z = b.lane_ends[lane]
        sc = g.square_customer
        ca, cb = sc[a], sc[z]
        scored_now = bool(c + 1 == length and ca and cb)
        if scored_now:
            f = float(self.mult[ca * 4 + cb])
        elif self.immediate:
            return [0.0] * n
        else:
            f = self.lane_factor(st, lane, c + 1, ca, cb, g.baron_square in (a, z))
        delta = [(own[p] + v if p == seat else own[p]) * f - before[p] for p in range(n)]
        if self.immediate:
            return delta
        if g.stalls_left[seat] == 1 and g.end_reason is None:
            return self._ending_delta(st, seat, lane, v, scored_now)
        if self.inner[lane]:
            counts = g.lane_seat[lane * n:lane * n + n]
            counts[seat] += 1
            lead = self._leader(counts)
            old = st.lead[lane]
            if lead != old:
                mj = self.w.majority
                if old >= 0:
                    delta[old] -= mj
                if lead >= 0:
                    delta[lead] += mj
        if st.pot_w:
            delta[seat] += self._bumped_potential(st, seat, lane) - st.pot[seat]
        delta[seat] -= st.stall_w
        return delta

    def _ending_delta(self, st: State, seat: int, lane: int, value: int,
                      scored_now: bool) -> list[float]:
        """The change when the stall (worth `value` in `lane`) is the seat's last: the game
        ends with this round, so what counts is the score (with the lane this stall may
        complete) plus the lanes the baron will score; potentials, tokens and hopes of
        unfinished lanes are gone."""
        g = st.game
        b = self.board
        n = st.n
        sc = g.square_customer
        mult = self.mult
        ends = [float(x) for x in g.scores]
        own_lane = st.own[lane][:]
        own_lane[seat] += value
        if scored_now:
            a, z = b.lane_ends[lane]
            m = mult[sc[a] * 4 + sc[z]]
            for p in range(n):
                ends[p] += own_lane[p] * m
        baron = g.baron_square
        if baron >= 0:
            for bl in b.square_lanes[baron]:
                if g.lane_scored[bl] or (bl == lane and scored_now):
                    continue
                a, z = b.lane_ends[bl]
                m = mult[BARON * 4 + (sc[z] if a == baron else sc[a])]
                own = own_lane if bl == lane else st.own[bl]
                for p in range(n):
                    ends[p] += own[p] * m
        return [ends[p] - st.values[p] for p in range(n)]

    def customer_delta(self, st: State, square: int, customer: int, last: bool) -> list[float]:
        """Change of every seat's value when `customer` is placed on `square` (`last`: it
        is the last customer, so the baron follows on the one other empty square)."""
        g = st.game
        b = self.board
        n = st.n
        sc = g.square_customer
        changes = {square: customer}
        baron = g.baron_square
        if last and self.rules.baron and baron < 0:
            for s, cust in enumerate(sc):
                if not cust and s != square:
                    changes[s] = BARON
                    baron = s
                    break
        delta = [0.0] * n
        seen: set[int] = set()
        mult = self.mult
        for s in changes:
            for lane in b.square_lanes[s]:
                if lane in seen or g.lane_scored[lane]:
                    continue
                seen.add(lane)
                own = st.own[lane]
                if not any(own):
                    continue
                a, z = b.lane_ends[lane]
                ca = changes.get(a, sc[a])
                cb = changes.get(z, sc[z])
                count = g.lane_count[lane]
                before = st.term[lane]
                if ca and cb and count == b.lane_len[lane]:
                    m = mult[ca * 4 + cb]
                    for p in range(n):
                        delta[p] += own[p] * m - before[p]
                elif not self.immediate:
                    f = self.lane_factor(st, lane, count, ca, cb, baron in (a, z))
                    for p in range(n):
                        delta[p] += own[p] * f - before[p]
        return delta

    def token_delta(self, st: State, seat: int, value: int, neutral: bool = False) -> float:
        """Change of the seat's token term when it plays a token of `value`."""
        up, held = self.seat_tokens(st.game, seat)
        before = st.tau[seat] if st.tau else 0.0
        up.remove(value)
        if not up:
            up = held[:]  # all face down: they turn face up at the end of the turn
        return self.token_term(up, held, st.turns) - before

    def district_delta(self, st: State, seat: int, value: int, district: int) -> list[float]:
        """Change of every seat's value when `seat` scores `district` with its `value` token
        (points, district potentials, and the token swapped for the top neutral one)."""
        n = st.n
        delta = [0.0] * n
        delta[seat] = float(value * st.dcnt[district][seat])
        if not self.immediate:
            g = st.game
            up, held = self.seat_tokens(g, seat)
            up.remove(value)
            held.remove(value)
            stack = self.rules.neutral_stack
            if g.neutral_top < len(stack):
                up.append(stack[g.neutral_top])
                held.append(stack[g.neutral_top])
            if not up:
                up = held[:]
            delta[seat] += self.token_term(up, held, st.turns) - st.tau[seat]
        if st.pot_w:
            g = st.game
            for p in range(n):
                tokens = st.dtok[p]
                if p == seat and value in tokens:
                    tokens = tokens[:]
                    tokens.remove(value)
                counts = [c for c, d in st.top[p] if d != district]
                delta[p] += self.potential(st, tokens, counts, g.stalls_left[p]) - st.pot[p]
        return delta

    def move_delta(self, game: Game, seat: int, lane: int) -> tuple[list[float], int]:
        """Change of every seat's score when `seat` moves the Bobby across `lane`, and the
        points the mover loses."""
        loss, gainers = game.move_cost(lane, seat)
        delta = [0.0] * game.n
        delta[seat] -= loss
        for p in gainers:
            delta[p] += 1.0
        return delta, loss

    def describe(self) -> dict[str, Any]:
        return {"immediate": self.immediate, **{k: getattr(self.w, k) for k in Weights.names()}}

