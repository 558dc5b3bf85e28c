"""The agent protocol: an agent sees the game through the engine's public API and returns a
legal action; it owns a seeded random generator so that its play is reproducible.

Restricted play (balance by restriction, `sim.games.portobello.agents.restricted`) is a property of
the agent: `restrict` names the features it may not use, and every agent draws its choices from
`legal_actions(game)`, which leaves those actions out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Protocol
from typing import runtime_checkable

from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.codes import ACTIONS
from sim.games.portobello.game import Game


@dataclass(frozen=True)
class Restrictions:
    """Features an agent may not use (all allowed by default).

    - `district`: never score a district;
    - `customers`: never draw (so never place) a customer;
    - `bobby`: never move the Bobby (placing it before the first turn is still required);
    - `first_end`: start every empty lane from its first listed end (`ends[0]`).
    """

    district: bool = False
    customers: bool = False
    bobby: bool = False
    first_end: bool = False

    @property
    def any(self) -> bool:
        return self.district or self.customers or self.bobby or self.first_end

    def allows(self, action: Action, game: Game) -> bool:
        """Whether the restriction lets the agent take `action` now (legality aside)."""
        k = A.kind(action)
        if k == A.SCORE_DISTRICT:
            return not self.district
        if k == A.DRAW_CUSTOMER:
            return not self.customers
        if k == A.MOVE_BOBBY:
            return not self.bobby
        if k == A.PLACE_STALL and self.first_end and A.stall_end(action):
            return game.lane_count[A.stall_lane(action)] > 0  # a started lane has its end
        return True

    def flags(self) -> tuple[bool, bool, bool, bool]:
        """(district, customers, bobby, first_end): the row the compiled agents read."""
        return self.district, self.customers, self.bobby, self.first_end

    def merged(self, other: Restrictions) -> Restrictions:
        return Restrictions(self.district or other.district, self.customers or other.customers,
                            self.bobby or other.bobby, self.first_end or other.first_end)


NO_RESTRICTIONS = Restrictions()


class Plan:
    """An option being carried out over several decisions: its steps still to take (Bobby
    moves before the stall they lead to) within the turn it was chosen in, and the last turn
    in which the agent placed a stall or drew a customer (a turn is not passed idle)."""

    __slots__ = ("acted_turn", "broken", "steps", "turn")

    def __init__(self) -> None:
        self.steps: list[Action] = []
        self.turn = -1
        self.acted_turn = -1
        self.broken = False  # the last queued step no longer applied

    def next_step(self, game: Game) -> Action | None:
        """The next queued step while it still applies (same turn, still legal); None
        otherwise, and the rest is dropped (`broken` says whether a step was dropped)."""
        self.broken = False
        if self.steps and self.turn == game.turn and game.phase == ACTIONS:
            action = self.steps.pop(0)
            if action in game.legal_actions():
                return action
            self.broken = True
        self.steps = []
        return None

    def start(self, game: Game, steps: tuple[Action, ...] | list[Action]) -> Action:
        """Take an option's first step now and queue the others for this turn."""
        if A.kind(steps[-1]) in (A.PLACE_STALL, A.DRAW_CUSTOMER):
            self.acted_turn = game.turn
        self.steps = list(steps[1:])
        self.turn = game.turn
        return steps[0]


@dataclass(frozen=True)
class CompiledRow:
    """An agent's row of the compiled agent table (`sim.games.portobello.agents.compiled`): its kind
    (`sim.games.portobello.agents.compiled.play.KIND_*`), its parameter row and its restriction
    flags. The compiled engine plays whole batches from these rows alone."""

    kind: int
    params: tuple[float, ...]
    restrict: tuple[bool, bool, bool, bool]
    # A learned agent's network: (model, width, margin, where the model came from).
    network: Any = field(default=None, compare=False)


@runtime_checkable
class Agent(Protocol):
    """Anything with a name, a seeded generator and `choose`."""

    name: str
    rng: random.Random

    def choose(self, game: Game) -> Action:
        """A legal action for the seat to move (never called at chance nodes)."""
        ...


class BaseAgent:
    """Common parts: the spec string it was made from, its generator and its restrictions."""

    name = "base"

    def __init__(self, seed: int | str | None = 0, spec: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.spec = spec or self.name
        self.restrict: Restrictions = NO_RESTRICTIONS

    def reseed(self, seed: int) -> None:
        """Start a new game: reseed the generator and forget any per-game memory."""
        self.rng.seed(seed)

    def legal_actions(self, game: Game) -> list[Action]:
        """The legal actions this agent may take: the engine's list minus restricted ones.

        A restriction never leaves the agent without a move: a stall on a started lane
        obeys `first_end` trivially, and `end_turn` is always left once a token is played.
        """
        legal = game.legal_actions()
        if not self.restrict.any:
            return legal
        allowed = [a for a in legal if self.restrict.allows(a, game)]
        if not allowed and game.phase == ACTIONS:  # pragma: no cover - end_turn is legal
            return [A.END]
        return allowed or legal

    def choose(self, game: Game) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def compiled_row(self, players: int) -> CompiledRow | None:
        """The agent's row of the compiled agent table for games of `players`, or None when
        it has none (a plain-Python agent, the search, an OpenSpiel bot): a line-up with
        such an agent is played decision by decision through `Game`.

        On the compiled engine an agent is its row alone, so the row must name the very
        play of this agent's `choose`; a `CompiledAgent` plays its own row at a `Game`,
        which makes it so."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class PlanningAgent(BaseAgent):
    """An agent whose decisions are options of several steps (a Bobby path and the stall it
    leads to): `decide` picks an option and returns its first step after queuing the rest
    on `plan`; later calls take the queued steps while they still apply."""

    def __init__(self, seed: int | str | None = 0, spec: str | None = None) -> None:
        super().__init__(seed, spec)
        self._plan = Plan()

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._plan = Plan()

    def choose(self, game: Game) -> Action:
        action = self._plan.next_step(game)
        if action is not None:
            return action
        return self.decide(game, self._plan)

    def decide(self, game: Game, plan: Plan) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError
