"""The agent protocol: an agent sees the game through the engine's public API and returns a
legal action; it owns a seeded random generator so that its play is reproducible."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from sim.actions import Action
from sim.game import Game


@runtime_checkable
class Agent(Protocol):
    """Anything with a name, a seeded generator and `choose`."""

    name: str
    rng: random.Random

    def choose(self, game: Game) -> Action:
        """A legal action for the seat to move (never called at chance nodes)."""
        ...


class BaseAgent:
    """Common parts: the spec string it was made from and its generator."""

    name = "base"

    def __init__(self, seed: int | str | None = 0, spec: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.spec = spec or self.name

    def reseed(self, seed: int) -> None:
        self.rng.seed(seed)

    def choose(self, game: Game) -> Action:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
