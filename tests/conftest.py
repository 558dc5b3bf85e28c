"""Shared fixtures: the standard board, rules by player count and seeded generators.

Figures are closed after every test so a failing chart test cannot leak memory into the
next one; every generator is seeded, never the clock.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # helpers, strategies, differential

from sim.engine.board import Board
from sim.engine.board import load_board
from sim.engine.rules import Rules
from sim.engine.rules import preset


@pytest.fixture(scope="session")
def standard_board() -> Board:
    return load_board("standard")


@pytest.fixture
def make_rules() -> Callable[..., Rules]:
    """Rules of a preset at a player count: `make_rules(3, "known-order")`."""
    def make(players: int = 2, name: str = "standard", **changes: object) -> Rules:
        return preset(name).with_changes(players=players, **changes)
    return make


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261201)


@pytest.fixture
def np_rng() -> np.random.Generator:
    return np.random.default_rng(20261201)


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")
