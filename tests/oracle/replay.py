"""Replay a game of the engine on the oracle, action by action, and require the whole state
equal after every action (and the legal actions equal before each).

The oracle never draws a random number: the known customer line is the only thing chance
decides before the first action, so it is taken from the engine's start; every later draw is
in the record (a draw and its customer are one action).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from oracle.convert import state_from_game
from oracle.game import Game as Oracle
from sim.games.portobello.board import Board
from sim.games.portobello.compiled import layout as L
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

# Slots of the state's header that are bookkeeping of the compiled log, not the game.
_LOG_SLOTS = (L.LOG_LEN, L.LOG_OVERFLOW)
_TABLE_NAMES = {getattr(L, name): name for name in dir(L)
                if name.startswith("S_") and name not in ("S_SIZE", "S_HEADER")}
_SCALARS = {getattr(L, name): name for name in ("SEAT", "ROUND", "TURN", "PHASE",
            "ACTIONS_LEFT", "NEUTRAL_TOP", "N_FULL_LANES", "BOBBY", "BAG_CITIZENS",
            "BAG_ARISTOCRATS", "CUSTOMERS_LEFT", "LINE_POS", "PENDING", "BARON_SQUARE",
            "END_REASON", "N_SCORED_LANES")}


def oracle_at_start(game: Game, *, events: bool = False) -> Oracle:
    """The oracle's game at the start of `game` (its known line, if any, taken over)."""
    oracle = Oracle(game.board, game.rules, seed=0, record_events=events)
    oracle.line = game.line
    oracle.chance_rng = None
    return oracle


def whole_state(B: np.ndarray, game: Game | Oracle) -> np.ndarray:
    S = game.S.copy() if isinstance(game, Game) else state_from_game(B, game)
    S[list(_LOG_SLOTS)] = 0
    return S


def differing_fields(game: Game, a: np.ndarray, b: np.ndarray) -> list[str]:
    """Names of the state's fields where `a` and `b` differ (for a readable failure)."""
    out = [name for slot, name in _SCALARS.items() if a[slot] != b[slot]]
    for slot, length in L.state_tables(game.board, game.rules):
        at = int(game.B[slot])
        x, y = a[at:at + length], b[at:at + length]
        if not np.array_equal(x, y):
            out.append(f"{_TABLE_NAMES[slot]}: engine {x.tolist()}, oracle {y.tolist()}")
    return out


def replay_agrees(board: Board, rules: Rules, seed: int, log: Sequence[int], *,
                  events: bool = False, where: str = "") -> int:
    """Replay `log` on the engine's front and on the oracle; fail at the first action after
    which their states (or before which their legal actions) differ. Returns the number of
    states compared."""
    game = Game(board, rules, seed=seed, record_events=events)
    oracle = oracle_at_start(game, events=events)
    B = game.B
    compared = 0
    for i in range(len(log) + 1):
        mine, theirs = whole_state(B, game), whole_state(B, oracle)
        if not np.array_equal(mine, theirs):
            raise AssertionError(f"{where}: states differ after action {i - 1} "
                                 f"({log[i - 1] if i else 'start'}): "
                                 + "; ".join(differing_fields(game, mine, theirs)))
        compared += 1
        if i == len(log):
            break
        legal, expected = game.legal_actions(), oracle.legal_actions()
        assert legal == expected, f"{where}: legal actions differ before action {i}: " \
                                  f"engine {legal}, oracle {expected}"
        game.apply(log[i])
        oracle.apply(log[i])
    assert game.is_over and oracle.is_over, f"{where}: the record does not end the game"
    if events:
        assert game.events == oracle.events, f"{where}: events differ"
    return compared
