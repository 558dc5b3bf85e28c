"""Agents whose every decision is made by compiled code (`sim.games.portobello.agents.compiled`):
the random, greedy, heuristic and learned (`expert`) agents. The compiled agent is the only
implementation of each; this class seats it at a `Game` (a learned agent's network too:
`network_entry`, which the runner's batches check their networks with as well), so that a
game played one decision at a time from Python (the web app, the adapters, a line-up with a
plain-Python agent) is played by the very code the runner plays in batches, and gives the
same game from the same seeds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.core.errors import PortobelloError
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.board import Board
from sim.games.portobello.game import Game


class CompiledAgent(BaseAgent):
    """An agent played by its compiled code: subclasses say which (`compiled_row`)."""

    def __init__(self, seed: int | str | None = 0, spec: str | None = None) -> None:
        super().__init__(seed, spec)
        self._seed = seed
        self._generator: np.ndarray | None = None  # the compiled generator, from `_seed`
        self._seats: dict[tuple[Any, ...], dict[str, Any]] = {}

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._seed, self._generator = seed, None
        for seat in self._seats.values():
            seat["memory"][:] = seat["fresh"]

    def compiled_row(self, players: int) -> CompiledRow:  # pragma: no cover - abstract
        raise NotImplementedError

    def _seat(self, game: Game) -> dict[str, Any]:
        """The compiled agent's row, memory and work space for games of this setup."""
        key = (game.board, game.rules, self.restrict)
        seat = self._seats.get(key)
        if seat is None:
            from sim.games.portobello.agents.compiled import play as FP
            from sim.games.portobello.agents.compiled.params import MAX_LANE_LEN
            from sim.games.portobello.agents.compiled.plan_work import new_work
            from sim.games.portobello.compiled.layout import ACTION_ROOM

            row = self.compiled_row(game.n)
            longest = max(game.board.lane_len)
            if row.kind != FP.KIND_RANDOM and longest > MAX_LANE_LEN:
                raise PortobelloError(
                    f"the {self.name} agent plays lanes of up to {MAX_LANE_LEN} spots; board "
                    f"{game.board.name} has one of {longest}")
            B = game.B
            memory = FP.new_memory(B)
            WF, WI = new_work(B)
            room = int(B[ACTION_ROOM])
            seat = self._seats[key] = {
                "kind": row.kind, "params": np.array(row.params, np.float64),
                "restrict": np.array(row.restrict, np.int64), "memory": memory,
                "fresh": memory.copy(), "buf": np.zeros(room, np.int64),
                "buf2": np.zeros(room, np.int64), "WF": WF, "WI": WI,
            }
            if row.kind == FP.KIND_EXPERT:
                seat["net"] = (*network_entry(row, game.board, B, game.n),  # type: ignore[misc]
                               network_work(B, row.network[0], WF, WI))
        return seat

    def choose(self, game: Game) -> Action:
        from sim.core.rng import new
        from sim.games.portobello.agents.compiled import play as FP

        if self._generator is None:
            self._generator = new(self._seed)
        s = self._seat(game)
        if s["kind"] == FP.KIND_RANDOM:
            return int(FP.decide_random(game.B, game.S, self._generator, s["params"],
                                        s["restrict"], s["memory"], s["buf"], s["buf2"]))
        if s["kind"] == FP.KIND_EXPERT:
            W, L, width, margin, EW = s["net"]
            from sim.games.portobello.agents.compiled.expert import choose_expert

            return int(choose_expert(game.B, game.S, self._generator, s["params"],
                                     s["restrict"], s["memory"], s["buf"], s["WF"], s["WI"],
                                     W, L, width, margin, EW))
        return int(FP.decide_planner(game.B, game.S, self._generator, s["params"],
                                     s["restrict"], s["memory"], s["buf"], s["WF"], s["WI"]))


def network_entry(row: CompiledRow, board: Board, B: np.ndarray, players: int
                  ) -> tuple[np.ndarray, np.ndarray, int, float] | None:
    """A table row's network for `sim.games.portobello.agents.compiled.expert.pack_networks` (None
    for an agent without one), its model checked against the game's board, player count and
    features layout: at a `Game` (`CompiledAgent`) as in the runner's batches."""
    if row.network is None:
        return None
    from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
    from sim.games.portobello.agents.compiled.features import input_count

    model, width, margin, source = row.network
    model.check(board.content_hash, players, int(input_count(B)), FEATURES_VERSION,
                source=str(source))
    return model.W, model.L, int(width), float(margin)


def network_work(B: np.ndarray, model: Any, WF: np.ndarray, WI: np.ndarray
                 ) -> tuple[np.ndarray, ...]:
    """The work space of one learned seat at a `Game`."""
    from sim.games.portobello.agents.compiled.expert import expert_work
    from sim.games.portobello.compiled.layout import S_SIZE

    return expert_work(B, int(B[S_SIZE]), model.inputs, model.widest, WF, WI)


@dataclass(frozen=True)
class Option:
    """An option the planner weighs: its steps (Bobby moves, then the final action) and the
    change of margin it expects."""

    value: float
    steps: tuple[Action, ...]


class PlannerAgent(CompiledAgent):
    """A compiled agent that decides with the planner (greedy, heuristic): it can say what it
    weighs (`ranked_options`), for a hint."""

    def ranked_options(self, game: Game) -> list[Option]:
        """Every option the planner weighs for the seat to move, best first, with the margin
        change it expects: what the agent would do and why, for a hint.

        It reads the planner only (on a copy of the generator, no plan queued), so asking
        never changes how the agent plays. Before the first turn every district is worth 0."""
        from sim.core.rng import new
        from sim.games.portobello.agents.compiled.plan_step import every_option
        from sim.games.portobello.codes import CHANCE
        from sim.games.portobello.codes import OVER
        from sim.games.portobello.codes import SETUP
        from sim.games.portobello.compiled.layout import MAX_STEPS

        if game.phase == SETUP:
            return [Option(0.0, (A.place_bobby(d),)) for d in range(game.board.n_districts)]
        if game.phase in (CHANCE, OVER):
            return []
        s = self._seat(game)
        room = int(s["buf"].shape[0])
        values = np.zeros(room, np.float64)
        steps = np.zeros((room, int(game.B[MAX_STEPS])), np.int64)
        lengths = np.zeros(room, np.int64)
        generator = self._generator if self._generator is not None else new(self._seed)
        k = every_option(game.B, game.S, s["params"], s["restrict"], s["WF"], s["WI"],
                         generator.copy(), values, steps, lengths)
        found = [Option(float(values[i]), tuple(steps[i, :lengths[i]].tolist()))
                 for i in range(k)]
        return sorted(found, key=lambda o: -o.value)
