"""The rules engine: board, rules switches, codes, the compiled rules (`compiled`), the game's
readable front (`Game`), records and replay.

Everything else in the toolkit stands on this package; it imports nothing from the rest.
`Game` is imported when first asked for, so reading a board or rules never loads the
compiler.
"""

from typing import Any

from sim.engine.board import Board
from sim.engine.board import load_board
from sim.engine.errors import BoardError
from sim.engine.errors import IllegalActionError
from sim.engine.errors import PortobelloError
from sim.engine.errors import RecordError
from sim.engine.errors import RulesError
from sim.engine.rules import Rules
from sim.engine.rules import load_rules

__all__ = [
    "Board",
    "BoardError",
    "Game",
    "IllegalActionError",
    "PortobelloError",
    "RecordError",
    "Rules",
    "RulesError",
    "load_board",
    "load_rules",
]


def __getattr__(name: str) -> Any:
    if name == "Game":
        from sim.engine.game import Game

        return Game
    raise AttributeError(f"module 'sim.engine' has no attribute {name!r}")
