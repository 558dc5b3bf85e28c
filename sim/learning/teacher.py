"""The search as teacher: self-play games of a search agent in every seat, and at each of
its decisions, what its root says of every option (`sim.games.portobello.agents.compiled.labels`).

A game's rows are the options of every decision: the position the option leads to as the
chooser sees it (features), the search's visits and mean value for it, whether it was
chosen, and once the game is over the chooser's final margin (its score minus the best
other), squashed as the search squashes margins (`1 / (1 + exp(-margin / scale))`), so the
two targets share one scale. Games are played by `sim.games.portobello.loop.play_game`, so
they depend only on their seeds: the same seeds give the same rows on any worker.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import Plan
from sim.games.portobello.agents.base import PlanningAgent
from sim.games.portobello.agents.model import Model
from sim.games.portobello.board import Board
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules
from sim.learning.spec import StartBonus


@dataclass
class Rows:
    """Training rows, one per option of each searched decision."""

    X: np.ndarray  # (rows, features) float64
    value: np.ndarray  # the search's mean value for the chooser
    visits: np.ndarray  # the search's visits
    chosen: np.ndarray  # 1 for the option the search took
    outcome: np.ndarray  # the chooser's final margin, squashed
    decision: np.ndarray  # the decision's index in its task (rows of one decision share it)

    @classmethod
    def concat(cls, parts: Sequence[Rows]) -> Rows:
        """The parts one after the other, their decisions numbered apart (a decision's
        rows keep one number, no two decisions share one)."""
        decisions, offset = [], 0
        for p in parts:
            if len(p):
                low = int(p.decision.min())
                decisions.append(p.decision - low + offset)
                offset += int(p.decision.max()) - low + 1
            else:
                decisions.append(p.decision)
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("X", "value", "visits", "chosen", "outcome")),
                   np.concatenate(decisions) if decisions else np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.value)


class Recorder:
    """Reads every finished search of one agent (its `searched` hook)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.rows: list[tuple[np.ndarray, ...]] = []  # per decision, this game
        agent.searched = self.searched

    def searched(self, game: Game, tools: dict[str, Any], S: np.ndarray, tree: Any) -> None:
        from sim.games.portobello.agents.compiled import mcts as M
        from sim.games.portobello.agents.compiled.features import input_count
        from sim.games.portobello.agents.compiled.labels import root_labels

        k = int(tree[0][0, M.NK])
        X = np.zeros((k, input_count(game.B)))
        visits = np.zeros(k, np.int64)
        values = np.zeros(k)
        settings = tools["settings"]
        root_labels(game.B, S, tree, game.seat, settings[M.TEMP], int(settings[M.WIDTH]), X,
                    visits, values)
        chosen = np.zeros(k, np.int8)
        chosen[M.best(tree) - tree[0][0, M.NFIRST]] = 1
        self.rows.append((X, values, visits, chosen, np.full(k, game.seat, np.int64)))


def squashed_margins(scores: Sequence[int], scale: float) -> list[float]:
    """Each seat's final margin over the best other score, squashed into (0, 1)."""
    out = []
    for p, mine in enumerate(scores):
        other = max(s for q, s in enumerate(scores) if q != p)
        m = max(-50.0, min(50.0, (mine - other) / scale))
        out.append(1.0 / (1.0 + math.exp(-m)))
    return out


class Mixed(PlanningAgent):
    """A seat of a labelling game after the first round (DAgger): the teacher searches at
    every decision (its root is recorded), and the move played is the teacher's with
    probability `beta`, else the student's, so the rows cover the positions the student
    reaches, not only the teacher's."""

    name = "mixed"

    def __init__(self, teacher: PlanningAgent, student: Any, beta: float) -> None:
        super().__init__(0, "mixed")
        self.teacher, self.student, self.beta = teacher, student, beta
        self.scale = getattr(teacher, "scale", 15.0)

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self.teacher.reseed(seed)
        self.student.reseed(seed ^ 0x5A5A5A5A)

    def decide(self, game: Game, plan: Plan) -> Action:
        if self.rng.random() < self.beta:
            return self.teacher.decide(game, plan)
        shadow = Plan()  # the teacher searches as if it were to play (its own turn state)
        shadow.acted_turn = plan.acted_turn
        self.teacher.decide(game, shadow)  # searched and recorded, not played
        return self.student.choose(game)  # its first step; it queues the rest itself


def teach(board: Board, rules: Rules, teacher: str, seeds: Sequence[int],
          student: Model | None = None, beta: float = 1.0,
          bonus: StartBonus | None = None) -> Rows:
    """Games of `teacher` (a `fastmcts` spec) in every seat on `seeds`, every search's
    rows; with a `student` model, each seat plays the teacher's move with probability
    `beta`, else the student's (`Mixed`); with a `bonus`, each game's start scores are
    spread as it says (the game's seed decides them)."""
    from sim.games.portobello.agents.expert import ExpertAgent
    from sim.games.portobello.agents.fast_mcts import FastMCTSAgent
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.loop import play_game

    teachers = [make_agent(teacher) for _ in range(rules.players)]
    if not all(isinstance(a, FastMCTSAgent) for a in teachers):
        raise ValueError(f"the teacher must be a search agent (fastmcts), got {teacher!r}")
    recorders = [Recorder(a) for a in teachers]
    agents: list[Any] = list(teachers)
    if student is not None:
        agents = [Mixed(t, ExpertAgent.with_model(student), beta) for t in teachers]
    parts: list[Rows] = []
    decision = 0
    for seed in seeds:
        for r in recorders:
            r.rows.clear()
        played = bonus.apply(rules, seed) if bonus is not None else rules
        game, _ = play_game(board, played, agents, seed, keep_log=False)
        final = squashed_margins(list(game.scores), teachers[0].scale)
        for r in recorders:
            for X, values, visits, chosen, seat in r.rows:
                k = len(values)
                parts.append(Rows(X, values, visits, chosen,
                                  np.array([final[s] for s in seat]),
                                  np.full(k, decision, np.int64)))
                decision += 1
    return Rows.concat(parts)
