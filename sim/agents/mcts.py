"""The MCTS agent: information-set Monte Carlo tree search over grouped actions.

- Information sets. The only thing nobody sees is the order the bag will give its customers
  (drawn variant). Every iteration samples one order of the customers left in the bag with
  the agent's own generator (the real game's generator is never touched) and resolves every
  draw of that iteration, in the tree and in the rollout, from it. Tree nodes are keyed by
  what every player observes (the options taken and the customers revealed), so statistics
  gathered under different orders pool in the same node: single-observer ISMCTS. In the
  known variant there is nothing to sample and this is plain MCTS.
- Action grouping. An edge is a planner `Option`: Bobby moves along the cheapest path plus the
  stall they lead to, a draw, a customer's square, a token, a district scoring or the end of
  the turn (moving the Bobby first where it hinders the next player). Only the `width` best
  options by the heuristic's price become edges, and a decision with one option is not
  searched at all.
- Selection is PUCT: the heuristic's prices, through a softmax of temperature `temp`, are the
  priors, so few iterations already follow the heuristic and search only has to find where
  it is wrong.
- Rollouts follow the heuristic's fast policy to the searching seat's next turn (`horizon`
  more rounds if asked, or to the end with `horizon=-1`) and are scored by the evaluation
  margin squashed to [0, 1] (`scale` points); a finished game is scored by its final margin
  or, with `returns=rank`, by win share.
- Budget: `iterations` per decision, and/or `time` seconds per decision (0 = no limit) on the
  `clock` (`wall`, or `cpu`: the process's own CPU time, steady on a shared machine); with
  iterations only, play is fully determined by the seed. The subtree of the chosen option is
  kept for the next decision of the same turn and counts towards the iterations.
"""

from __future__ import annotations

import math
import time as _time

from sim.agents import weight_sets
from sim.agents.base import Plan
from sim.agents.base import PlanningAgent
from sim.agents.base import Restrictions
from sim.agents.evaluate import Evaluator
from sim.agents.planning import Option
from sim.agents.planning import Planner
from sim.engine import actions as A
from sim.engine.actions import Action
from sim.engine.board import Board
from sim.engine.codes import ACTIONS
from sim.engine.codes import PLACE
from sim.engine.codes import SETUP
from sim.engine.codes import TURN_START
from sim.engine.game import Game
from sim.engine.rules import Rules

RETURNS = ("margin", "rank")
CLOCKS = {"wall": _time.perf_counter, "cpu": _time.process_time}


def check_budget(name: str, iterations: int, time: float, returns: str, clock: str) -> None:
    """The settings every MCTS agent shares: a budget, a known return and a known clock."""
    if iterations < 1 and time <= 0:
        raise ValueError(f"{name} needs a budget: iterations >= 1 or time > 0")
    if returns not in RETURNS:
        raise ValueError(f"returns must be one of {', '.join(RETURNS)}, got {returns!r}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {clock!r}")


class Node:
    """Statistics of one information set, and the options leaving it."""

    __slots__ = ("children", "n", "options", "priors", "seat", "w")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # the seat that chooses here (-1: chance)
        self.n = 0
        self.w = 0.0  # summed value for the seat that chose the edge into this node
        self.options: list[Option] | None = None
        self.priors: list[float] = []
        self.children: dict[Action, Node] = {}


class MCTSAgent(PlanningAgent):
    name = "mcts"

    def __init__(self, seed: int | None = 0, spec: str | None = None, *,
                 iterations: int = 200, time: float = 0.0, c: float = 1.2, temp: float = 3.0,
                 width: int = 8, horizon: int = 2, scale: float = 15.0,
                 returns: str = "margin", reuse: bool = True, rollout: bool = True,
                 rollout_sim: bool = False, clock: str = "wall",
                 weights: str = weight_sets.DEFAULT) -> None:
        super().__init__(seed, spec)
        check_budget(self.name, iterations, time, returns, clock)
        weight_sets.check(weights)
        self.weight_ref = weights
        self.iterations = iterations
        self.time = time
        self.c = c
        self.temp = temp
        self.width = width
        self.horizon = horizon
        self.scale = scale
        self.returns = returns
        self.reuse = reuse
        self.rollout = rollout
        self.clock = clock
        self.rollout_sim = rollout_sim
        self._kept: tuple[Node, int, Action] | None = None
        self._tools: dict[tuple[Board, Rules, Restrictions],
                          tuple[Planner, Planner, Planner, Planner]] = {}
        self.last_iterations = 0

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._kept = None

    # -- tools ------------------------------------------------------------------------------
    def tools(self, game: Game) -> tuple[Planner, Planner, Planner, Planner]:
        """Planners: (tree, own seat), (tree, other seats), (rollout, own), (rollout, others).
        The agent's restriction binds its own seat only; tree nodes price tokens by playing
        the turn out, rollouts use the cheaper pricing unless `rollout_sim`."""
        key = (game.board, game.rules, self.restrict)  # the objects, not ids: ids get reused
        t = self._tools.get(key)
        if t is None:
            ev = Evaluator(game.board, game.rules,
                           weight_sets.resolve(self.weight_ref, game.n).weights)
            t = self._tools[key] = (
                Planner(ev, self.restrict, simulate=True),
                Planner(ev, simulate=True),
                Planner(ev, self.restrict, simulate=self.rollout_sim, leave=False),
                Planner(ev, simulate=self.rollout_sim, leave=False),
            )
        return t

    # -- the decision -----------------------------------------------------------------------
    def decide(self, game: Game, plan: Plan) -> Action:
        if plan.broken:
            self._kept = None  # not where the plan expected: search afresh
        if game.phase == SETUP:
            legal = self.legal_actions(game)
            return legal[self.rng.randrange(len(legal))]
        me = game.seat
        root = self._reused_root(game)
        self._expand(root, game, me)
        assert root.options is not None
        if game.phase == ACTIONS and plan.acted_turn != game.turn and \
                any(o.kind != A.END_TURN for o in root.options):
            # A turn is not passed idle while an action is open (see Planner.turn_step).
            keep = [i for i, o in enumerate(root.options) if o.kind != A.END_TURN]
            root.options = [root.options[i] for i in keep]
            root.priors = _normalised([root.priors[i] for i in keep])
        self.last_iterations = 0
        if len(root.options) > 1:
            self._search(root, game, me)
            best = max(range(len(root.options)), key=lambda i: self._rank(root, i))
        else:
            best = 0
        option = root.options[best]
        last = option.steps[-1]
        child = root.children.get(last)
        self._kept = (child, game.turn, last) if child is not None and self.reuse else None
        return plan.start(game, option.steps)

    def _rank(self, node: Node, i: int) -> tuple[int, float, float]:
        """Most visits, then best mean value, then best prior."""
        assert node.options is not None
        child = node.children.get(node.options[i].steps[-1])
        if child is None or child.n == 0:
            return (0, 0.0, node.priors[i])
        return (child.n, child.w / child.n, node.priors[i])

    def _reused_root(self, game: Game) -> Node:
        """The kept subtree when this decision continues the turn of the last one."""
        kept, self._kept = self._kept, None
        if kept is None or game.phase == TURN_START:
            return Node(game.seat)
        node: Node | None = kept[0]
        turn, last = kept[1], kept[2]
        if turn != game.turn or node is None:
            return Node(game.seat)
        if last == A.DRAW:
            if game.phase != PLACE:
                return Node(game.seat)
            node = node.children.get(A.chance(game.pending))
        if node is None or node.seat not in (-1, game.seat):
            return Node(game.seat)
        node.seat = game.seat
        return node

    # -- the search -------------------------------------------------------------------------
    def _search(self, root: Node, game: Game, me: int) -> None:
        now = CLOCKS[self.clock]
        deadline = now() + self.time if self.time > 0 else math.inf
        # A kept subtree counts towards the budget (at least a quarter is new work).
        limit = max(self.iterations - root.n, self.iterations // 4, 1) \
            if self.iterations > 0 else 1 << 30
        # Roll out to the start of this seat's next turn (+ `horizon` rounds).
        stop_turn = game.turn + game.n * (1 + max(self.horizon, 0))
        done = 0
        while done < limit:
            self._iterate(root, game, me, stop_turn)
            done += 1
            if now() >= deadline:
                break
        self.last_iterations = done

    def _iterate(self, root: Node, game: Game, me: int, stop_turn: int) -> None:
        """One iteration: sample a bag order, descend by PUCT (expanding a node on its
        second visit), roll out from the first new node, back the values up."""
        sim = game.copy()
        order = self._determinize(sim)
        node = root
        path = [root]
        while not sim.is_over:
            if sim.is_chance:
                action = A.chance(order.pop())
                sim.apply(action)
            else:
                if node.options is None:
                    if node.n == 0:
                        break  # first visit: a leaf
                    self._expand(node, sim, me)
                option = node.options[self._select(node)]  # type: ignore[index]
                for a in option.steps:
                    sim.apply(a)
                action = option.steps[-1]
            child = node.children.get(action)
            if child is None:
                child = node.children[action] = Node(-1)
            node = child
            path.append(node)
        values = self._rollout(sim, order, stop_turn, me)
        root.n += 1
        for k in range(1, len(path)):
            child = path[k]
            child.n += 1
            chooser = path[k - 1].seat
            if chooser >= 0:
                child.w += values[chooser]

    def _determinize(self, sim: Game) -> list[int]:
        """One order of the customers left in the bag (popped from the end), drawn with the
        agent's generator; empty in the known order (the line is visible)."""
        if sim.line is not None:
            return []
        order = [1] * sim.bag[1] + [2] * sim.bag[2]
        self.rng.shuffle(order)
        return order

    def _expand(self, node: Node, sim: Game, me: int) -> None:
        """Give a node its `width` best options and their priors."""
        if node.options is not None:
            return
        tree_me, tree_other, _, _ = self.tools(sim)
        options = _options(tree_me if sim.seat == me else tree_other, sim)
        options.sort(key=lambda o: -o.value)
        options = options[: self.width]
        top = options[0].value
        weights = [math.exp((o.value - top) / self.temp) for o in options]
        total = sum(weights)
        node.options = options
        node.priors = [x / total for x in weights]
        node.seat = sim.seat

    def _select(self, node: Node) -> int:
        """PUCT: mean value + c x prior x sqrt(visits) / (1 + child visits)."""
        assert node.options is not None
        sqrt_n = math.sqrt(node.n + 1)
        best, best_score = 0, -math.inf
        c = self.c
        children = node.children
        fpu = node.w / node.n if node.n else 0.5  # unvisited: the node's own mean
        for i, option in enumerate(node.options):
            child = children.get(option.steps[-1])
            if child is None or child.n == 0:
                q, visits = fpu, 0
            else:
                q, visits = child.w / child.n, child.n
            score = q + c * node.priors[i] * sqrt_n / (1 + visits)
            if score > best_score:
                best, best_score = i, score
        return best

    def _rollout(self, sim: Game, order: list[int], stop_turn: int, me: int) -> list[float]:
        """Play on with the heuristic's fast policy; the value of the end for every seat."""
        _, _, roll_me, roll_other = self.tools(sim)
        if not self.rollout:
            return self._values(sim, roll_other.ev)
        to_end = self.horizon < 0
        rng = self.rng
        while not sim.is_over:
            if sim.is_chance:
                sim.apply(A.chance(order.pop()))
                continue
            if not to_end and sim.phase == TURN_START and sim.turn >= stop_turn:
                break
            option = (roll_me if sim.seat == me else roll_other).step(sim, rng)
            for a in option.steps:
                sim.apply(a)
                if sim.is_chance:
                    sim.apply(A.chance(order.pop()))
        return self._values(sim, roll_other.ev)

    def _values(self, sim: Game, ev: Evaluator) -> list[float]:
        """Every seat's value of a rollout's end in [0, 1]."""
        n = sim.n
        if sim.is_over:
            scores = sim.scores
            if self.returns == "rank":
                best = max(scores)
                winners = scores.count(best)
                return [1.0 / winners if s == best else 0.0 for s in scores]
            margins = [float(scores[p] - max(scores[q] for q in range(n) if q != p))
                       for p in range(n)]
        else:
            margins = ev.value_margins(sim)
        scale = self.scale
        return [1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, m / scale)))) for m in margins]


def _options(planner: Planner, game: Game) -> list[Option]:
    """Every option of the seat to move (the edges of a node before pruning)."""
    seat = game.seat
    phase = game.phase
    st = planner.ev.state(game)
    if phase == ACTIONS:
        out = planner.action_options(game, st, seat)
        out.append(planner.leave_option(game, st, seat))
        return _dedupe(out)
    if phase == PLACE:
        values = planner.square_values(st, seat, game.pending, game.customers_left == 0)
        return [Option(v, (A.place_customer(s),)) for v, s in values]
    if phase == TURN_START:
        out = planner.start_options(game, seat, st)
        return _dedupe(out) or [Option(0.0, (A.END,))]
    raise ValueError(f"no options in phase {phase}")


def _normalised(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights] if total > 0 else [1.0 / len(weights)] * len(weights)


def _dedupe(options: list[Option]) -> list[Option]:
    """One option per final action (the tree keys edges by it)."""
    seen: dict[Action, Option] = {}
    for o in options:
        key = o.steps[-1]
        if key not in seen or o.value > seen[key].value:
            seen[key] = o
    return list(seen.values())
