"""Turn planning shared by the greedy, heuristic and MCTS agents.

The unit of choice is an `Option`: a short run of actions that ends in one meaningful step
(Bobby moves along the cheapest path, then a stall; a customer draw; a token; a district
scoring; the end of the turn), priced by the change of the seat's margin under an
`Evaluator`. Grouping Bobby moves with the step they serve keeps every option one decision
deep, which is what lets a greedy choice, a heuristic plan or a search tree see a whole
turn in a handful of choices.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sim.agents.base import NO_RESTRICTIONS
from sim.agents.base import Plan
from sim.agents.base import PlanningAgent
from sim.agents.base import Restrictions
from sim.agents.evaluate import Evaluator
from sim.agents.evaluate import State
from sim.engine import actions as A
from sim.engine.actions import Action
from sim.engine.board import Board
from sim.engine.codes import ACTIONS
from sim.engine.codes import PLACE
from sim.engine.codes import SETUP
from sim.engine.codes import TURN_START
from sim.engine.game import Game
from sim.engine.rules import Rules

EPS = 1e-9


@dataclass(slots=True)
class Option:
    """A run of actions (Bobby moves first) and the margin change it is expected to bring."""

    value: float
    steps: tuple[Action, ...]

    @property
    def kind(self) -> int:
        return A.kind(self.steps[-1])


def pick(options: list[Option], rng: random.Random | None) -> Option:
    """The best option; ties (within 1e-9) broken by `rng`, or the first when it is None."""
    best = max(o.value for o in options)
    tied = [o for o in options if o.value >= best - EPS]
    if rng is None or len(tied) == 1:
        return tied[0]
    return tied[rng.randrange(len(tied))]


class Planner:
    """Options for the seat to move, priced by an evaluator, honouring restrictions.

    `simulate` (heuristic) prices a token by playing the turn it would give on a copy;
    without it (rollouts) a token is priced from the options open right now. `leave`
    considers moving the Bobby at the end of a turn to hinder the next player.
    """

    def __init__(self, evaluator: Evaluator, restrict: Restrictions = NO_RESTRICTIONS,
                 simulate: bool = True, min_gain: float = 0.0, leave: bool = True) -> None:
        self.ev = evaluator
        self.board = evaluator.board
        self.rules = evaluator.rules
        self.w = evaluator.w
        self.restrict = restrict
        self.simulate = simulate
        self.min_gain = min_gain
        self.leave = leave

    # -- the Bobby ------------------------------------------------------------------------
    def paths(self, game: Game, seat: int) -> list[tuple[float, tuple[Action, ...]] | None]:
        """Cheapest way (margin cost, moves) to bring the Bobby to each district; None when
        it cannot get there (restricted, or the score cannot pay)."""
        nd = self.board.n_districts
        start = game.bobby
        out: list[tuple[float, tuple[Action, ...]] | None] = [None] * nd
        out[start] = (0.0, ())
        if self.restrict.bobby:
            return out
        ev = self.ev
        allow_negative = self.rules.negative_scores
        score = game.scores[seat]
        # Dijkstra on (margin cost, moves, points lost); 12 districts, so a plain scan.
        best: list[tuple[float, int, int] | None] = [None] * nd
        best[start] = (0.0, 0, 0)
        done = [False] * nd
        moves: list[tuple[Action, ...]] = [()] * nd
        neighbours = self.board.district_neighbours
        while True:
            cur, cur_key = -1, None
            for d in range(nd):
                k = best[d]
                if k is not None and not done[d] and (cur_key is None or k < cur_key):
                    cur, cur_key = d, k
            if cur < 0 or cur_key is None:
                break
            done[cur] = True
            cost, steps, lost = cur_key
            for d, lane in neighbours[cur]:
                if done[d]:
                    continue
                delta, loss = ev.move_delta(game, seat, lane)
                if not allow_negative and lost + loss > score:
                    continue
                key = (cost - ev.margin(delta, seat), steps + 1, lost + loss)
                if best[d] is None or key < best[d]:  # type: ignore[operator]
                    best[d] = key
                    moves[d] = (*moves[cur], A.move_bobby(d))
        for d in range(nd):
            k = best[d]
            if k is not None:
                out[d] = (k[0], moves[d])
        return out

    # -- options during a turn ------------------------------------------------------------
    def stall_options(self, game: Game, st: State, seat: int,
                      paths: list[tuple[float, tuple[Action, ...]] | None]) -> list[Option]:
        """A stall in every lane the Bobby can reach (cheapest path), from each allowed end."""
        b = self.board
        ev = self.ev
        out: list[Option] = []
        first_end = self.restrict.first_end
        for lane in range(b.n_lanes):
            count = game.lane_count[lane]
            if count == b.lane_len[lane]:
                continue
            route: tuple[float, tuple[Action, ...]] | None = None
            for d in b.lane_districts[lane]:
                p = paths[d]
                if p is not None and (route is None or (p[0], len(p[1])) <
                                      (route[0], len(route[1]))):
                    route = p
            if route is None:
                continue
            cost, moves = route
            if count:
                ends: tuple[int, ...] = (game.lane_dir[lane],)
            else:
                ends = (0,) if first_end else (0, 1)
            for end in ends:
                value = ev.margin(ev.stall_delta(st, seat, lane, end), seat) - cost
                out.append(Option(value, (*moves, A.place_stall(lane, end))))
        return out

    def draw_outcomes(self, game: Game) -> list[tuple[int, float]]:
        """The customers a draw can bring now, with their probabilities."""
        if game.line is not None:
            return [(game.next_customer(), 1.0)]
        total = game.bag[1] + game.bag[2]
        return [(c, game.bag[c] / total) for c in (1, 2) if game.bag[c]]

    def square_values(self, st: State, seat: int, customer: int,
                      last: bool) -> list[tuple[float, int]]:
        """(margin change, square) of placing `customer` on each empty square."""
        ev = self.ev
        sc = st.game.square_customer
        return [(ev.margin(ev.customer_delta(st, s, customer, last), seat), s)
                for s in range(len(sc)) if not sc[s]]

    def draw_value(self, game: Game, st: State, seat: int) -> float:
        """Expected margin change of a draw placed on the best square for what comes out."""
        last = game.customers_left == 1
        total = 0.0
        for customer, p in self.draw_outcomes(game):
            total += p * max(v for v, _ in self.square_values(st, seat, customer, last))
        return total

    def action_options(self, game: Game, st: State, seat: int) -> list[Option]:
        """Options while actions are left: stalls (with Bobby paths) and a customer draw."""
        out: list[Option] = []
        if game.actions_left <= 0:
            return out
        if game.stalls_left[seat] > 0:
            out.extend(self.stall_options(game, st, seat, self.paths(game, seat)))
        if game.customers_left > 0 and not self.restrict.customers:
            out.append(Option(self.draw_value(game, st, seat), (A.DRAW,)))
        return out

    def leave_option(self, game: Game, st: State, seat: int) -> Option:
        """End the turn, first moving the Bobby where it serves the next player least
        (`bobby` weight x the best stall gain open to them there) if that is worth its
        cost. The option's value is the gain over ending the turn where the Bobby stands."""
        end = Option(0.0, (A.END,))
        if not self.leave or self.restrict.bobby or self.w.bobby <= 0 or self.ev.immediate:
            return end
        nxt = (seat + 1) % game.n
        if nxt == seat or game.stalls_left[nxt] <= 0:
            return end
        b = self.board
        ev = self.ev
        chance = [0.0] * b.n_lanes  # the next player's best stall gain per lane
        for lane in range(b.n_lanes):
            count = game.lane_count[lane]
            if count == b.lane_len[lane]:
                continue
            ends = (game.lane_dir[lane],) if count else (0, 1)
            chance[lane] = max(0.0, max(ev.margin(ev.stall_delta(st, nxt, lane, e), nxt)
                                        for e in ends))
        weight = self.w.bobby
        here = weight * max(chance[lane] for lane in b.district_lanes[game.bobby])
        best_value, best_steps = 0.0, (A.END,)
        for d, route in enumerate(self.paths(game, seat)):
            if route is None or not route[1]:
                continue
            value = here - route[0] - weight * max(chance[lane] for lane in b.district_lanes[d])
            if value > best_value + EPS:
                best_value, best_steps = value, (*route[1], A.END)
        return Option(best_value, best_steps)

    # -- whole decisions ------------------------------------------------------------------
    def turn_step(self, game: Game, seat: int, rng: random.Random | None,
                  st: State | None = None, must_act: bool = False) -> Option:
        """The option to take now in the actions phase: the best action if it gains at
        least `min_gain` (or whatever it gains when `must_act`: a turn is not passed
        idle while an action is open, or two players who both wait would never end the
        game), otherwise the end of the turn (via `leave_option`)."""
        st = st or self.ev.state(game)
        options = self.action_options(game, st, seat)
        if options:
            best = pick(options, rng)
            if must_act or best.value >= self.min_gain - EPS:
                return best
        return self.leave_option(game, st, seat)

    def place_step(self, game: Game, seat: int, rng: random.Random | None,
                   st: State | None = None) -> Option:
        """The best square for the customer just drawn."""
        st = st or self.ev.state(game)
        values = self.square_values(st, seat, game.pending, game.customers_left == 0)
        return pick([Option(v, (A.place_customer(s),)) for v, s in values], rng)

    def token_actions(self, game: Game, seat: int) -> dict[int, Action]:
        """One play_token action per face-up value; a neutral token is flipped before an own
        one of the same value, so the own 2 and 4 stay free to score districts."""
        out: dict[int, Action] = {}
        for value, neutral in game.face_up_tokens(seat):
            action = A.play_token(value, neutral)
            if value not in out or neutral:
                out[value] = action
        return out

    def plan_values(self, game: Game, seat: int, steps: int) -> list[float]:
        """Margin gained by the best first 0..`steps` actions of a turn (greedy plan on a
        copy; draws resolved to their likeliest customer). Entry k is the best prefix of at
        most k actions."""
        sim = game.copy()
        sim.phase = ACTIONS
        sim.actions_left = steps
        ev = self.ev
        gains = [0.0]
        while sim.actions_left > 0 and sim.phase == ACTIONS:
            st = ev.state(sim)
            options = self.action_options(sim, st, seat)
            if not options:
                break
            best = pick(options, None)
            if best.value <= 0:
                break
            for a in best.steps[:-1]:
                sim.apply(a)
            last = best.steps[-1]
            if last == A.DRAW:
                outcomes = self.draw_outcomes(sim)
                customer = max(outcomes, key=lambda cp: cp[1])[0]
                sim.apply(A.DRAW | customer if sim.line is None else A.DRAW)
                sim.apply(self.place_step(sim, seat, None).steps[0])
            else:
                sim.apply(last)
            gains.append(gains[-1] + best.value)
        out = [0.0]
        for k in range(1, steps + 1):
            out.append(max(out[-1], gains[min(k, len(gains) - 1)]))
        return out

    def start_options(self, game: Game, seat: int, st: State | None = None) -> list[Option]:
        """Token plays (priced by the turn they give plus the change of the token term)
        and district scorings (points, potentials, the neutral token that replaces)."""
        st = st or self.ev.state(game)
        ev = self.ev
        tokens = self.token_actions(game, seat)
        out: list[Option] = []
        if tokens:
            top = max(tokens)
            if self.simulate:
                plan = self.plan_values(game, seat, top)
            else:
                gains = sorted((o.value for o in self.action_options(_as_actions(game, top),
                                                                       st, seat)),
                               reverse=True)
                plan = [0.0]
                for k in range(1, top + 1):
                    plan.append(plan[-1] + max(0.0, gains[k - 1] if k <= len(gains) else 0.0))
            for value, action in tokens.items():
                out.append(Option(plan[value] + ev.token_delta(st, seat, value), (action,)))
        if not self.restrict.district:
            for value, neutral in dict.fromkeys(game.face_up_tokens(seat)):
                if neutral or value not in ev.dtokens:
                    continue
                for d, scored in enumerate(game.district_scored):
                    if scored < 0:
                        gain = ev.margin(ev.district_delta(st, seat, value, d), seat)
                        out.append(Option(gain, (A.score_district(value, d),)))
        return out

    def start_step(self, game: Game, seat: int, rng: random.Random | None,
                   st: State | None = None) -> Option:
        options = self.start_options(game, seat, st)
        if not options:
            return Option(0.0, (A.END,))
        best = max(o.value for o in options)
        tied = [o for o in options if o.value >= best - EPS]
        plays = [o for o in tied if o.kind == A.PLAY_TOKEN]
        return pick(plays or tied, rng)

    def step(self, game: Game, rng: random.Random | None, must_act: bool = False) -> Option:
        """The option for the seat to move, whatever the phase (not at chance nodes);
        `must_act`: no stall or customer yet this turn (see `turn_step`)."""
        seat = game.seat
        phase = game.phase
        if phase == ACTIONS:
            return self.turn_step(game, seat, rng, must_act=must_act)
        if phase == PLACE:
            return self.place_step(game, seat, rng)
        if phase == TURN_START:
            return self.start_step(game, seat, rng)
        if phase == SETUP:
            nd = self.board.n_districts
            d = rng.randrange(nd) if rng is not None else 0
            return Option(0.0, (A.place_bobby(d),))
        raise ValueError(f"no decision to take in phase {phase}")


def _as_actions(game: Game, actions: int) -> Game:
    """A copy of a turn-start position as if a token of `actions` had been played."""
    sim = game.copy()
    sim.phase = ACTIONS
    sim.actions_left = actions
    return sim


class PlannerAgent(PlanningAgent):
    """An agent that takes the planner's option each decision and queues its remaining
    steps (the Bobby moves of a path are one decision, executed over several calls)."""

    name = "planner"

    def __init__(self, seed: int | None = 0, spec: str | None = None) -> None:
        super().__init__(seed, spec)
        self._planners: dict[tuple[Board, Rules, Restrictions], Planner] = {}

    def make_planner(self, game: Game) -> Planner:  # pragma: no cover - abstract
        raise NotImplementedError

    def planner(self, game: Game) -> Planner:
        """The planner for this board and rules (built once, then reused)."""
        key = (game.board, game.rules, self.restrict)  # the objects, not ids: ids get reused
        p = self._planners.get(key)
        if p is None:
            p = self._planners[key] = self.make_planner(game)
        return p

    def decide(self, game: Game, plan: Plan) -> Action:
        option = self.planner(game).step(game, self.rng, must_act=plan.acted_turn != game.turn)
        return plan.start(game, option.steps)

    def ranked_options(self, game: Game) -> list[Option]:
        """Every option the planner weighs for the seat to move, best first, with the
        margin change it expects: what the agent would do and why, for a hint.

        It reads the planner only (no generator draw, no plan queued), so asking never
        changes how the agent plays. Ending the turn is listed with its value (0 unless
        moving the Bobby first pays); before the first turn every district is worth 0."""
        planner = self.planner(game)
        seat, phase = game.seat, game.phase
        if phase == ACTIONS:
            st = planner.ev.state(game)
            options = [*planner.action_options(game, st, seat),
                       planner.leave_option(game, st, seat)]
        elif phase == PLACE:
            st = planner.ev.state(game)
            options = [Option(v, (A.place_customer(s),)) for v, s in
                       planner.square_values(st, seat, game.pending, game.customers_left == 0)]
        elif phase == TURN_START:
            options = planner.start_options(game, seat) or [Option(0.0, (A.END,))]
        elif phase == SETUP:
            options = [Option(0.0, (A.place_bobby(d),)) for d in range(game.board.n_districts)]
        else:
            return []
        return sorted(options, key=lambda o: -o.value)
