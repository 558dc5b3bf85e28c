"""Portobello Market as an OpenSpiel game, `python_portobello`, registered with pyspiel on
import (needs the extra `portobello[openspiel]`):

    import pyspiel
    import sim.adapters.openspiel  # registers the game
    game = pyspiel.load_game("python_portobello", {"players": 4, "customer_order": "known"})

Parameters (`sim.adapters.core.settings`): `players`, `customer_order`, `neutral_stack`
(values top first, separated by spaces or commas), `board` (a shipped name or a board file),
`rules` (a rules file), `bobby_moves` (Bobby moves offered per turn; 0: the board's
default) and `returns` (`win` or `margin`).

The game plays on the engine (`sim.games.portobello.game`) through `sim.adapters.core.Position`:
actions are the engine's codes numbered densely (`core.actions`); customer draws are
chance nodes with the bag's probabilities, and in known order with no line given the line
is drawn by chance before the Bobby is placed.

Information. Every fact of a position is public and each draw is decided when it happens,
so no seat knows less than another. The game is declared imperfect-information all the
same, so that information-set algorithms (ISMCTS, CFR) accept it; they are exact here:
`resample_from_infostate` returns the one state an information state allows. The
information-state string is the seat and the whole action history (perfect recall); the
tensors of both kinds are the observation (`core.observation`), since the position alone
decides the rest of the game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.adapters.core import observation
from sim.adapters.core.actions import OUTCOME_CUSTOMERS
from sim.adapters.core.actions import ActionTable
from sim.adapters.core.actions import outcome_name
from sim.adapters.core.position import Position
from sim.adapters.core.settings import DEFAULTS
from sim.adapters.core.settings import Settings
from sim.adapters.core.settings import default_bobby_moves
from sim.adapters.core.settings import settings as make_settings
from sim.core.errors import IllegalActionError
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the extra is installed by `make`
    raise ImportError("the OpenSpiel adapter needs open-spiel: "
                      "pip install 'portobello[openspiel]'") from exc

SHORT_NAME = "python_portobello"
MAX_PLAYERS = 4


def game_type(returns: str = "win") -> pyspiel.GameType:
    """The game's type; `win` returns sum to 1 (constant-sum), `margin` returns to 0."""
    utility = (pyspiel.GameType.Utility.CONSTANT_SUM if returns == "win"
               else pyspiel.GameType.Utility.ZERO_SUM)
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Portobello Market",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS),
    )


class PortobelloGame(pyspiel.Game):
    """The game under the given parameters (bad ones raise AdapterError or a board or
    rules error naming the parameter or file and the reason)."""

    def __init__(self, params: dict[str, Any] | None = None, *,
                 settings: Settings | None = None) -> None:
        named = {**DEFAULTS, **(params or {})}
        self.settings: Settings = settings or make_settings(
            **{k: v for k, v in named.items() if k in DEFAULTS})
        s = self.settings
        self.table = ActionTable(s.board, s.rules)
        low, high = s.utility_bounds
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.table),
            max_chance_outcomes=len(OUTCOME_CUSTOMERS),
            num_players=s.players,
            min_utility=low,
            max_utility=high,
            utility_sum=1.0 if s.returns == "win" else 0.0,
            max_game_length=s.max_game_length,
        )
        if named["neutral_stack"]:  # commas would split the game string's parameters
            named["neutral_stack"] = " ".join(map(str, s.rules.neutral_stack))
        super().__init__(game_type(s.returns), info, named)

    @classmethod
    def for_engine(cls, board: Board, rules: Rules) -> PortobelloGame:
        """The game on a board and rules at hand (an agent's engine game's), with the
        default Bobby-move bound and win returns; its parameters name the player count."""
        s = Settings(board=board, rules=rules, bobby_moves=default_bobby_moves(board, rules),
                     returns="win")
        return cls({"players": rules.players}, settings=s)

    def new_initial_state(self) -> PortobelloState:
        return PortobelloState(self)

    def state_at(self, engine_game: Any, moves_made: int = 0) -> PortobelloState:
        """A state at an engine game of this game's board and rules (a copy of it),
        `moves_made` Bobby moves into the turn: how an agent hands its game to an
        OpenSpiel bot. Its history starts there."""
        pos = Position.at(self.settings, self.table, engine_game, moves_made)
        return PortobelloState(self, pos, origin=observation.text(pos))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> PortobelloObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        return PortobelloObserver(self.settings, iig_obs_type)


class PortobelloState(pyspiel.State):
    """A game in progress: a `Position` and, for a state made at an engine game, the
    position it started from (part of its information states)."""

    def __init__(self, game: PortobelloGame, position: Position | None = None,
                 origin: str = "") -> None:
        super().__init__(game)
        self.pos = position or Position(game.settings, game.table)
        self.origin = origin

    def current_player(self) -> int:
        pos = self.pos
        if pos.is_over:
            return pyspiel.PlayerId.TERMINAL
        if pos.is_chance:
            return pyspiel.PlayerId.CHANCE
        return pos.seat

    def _legal_actions(self, player: int) -> list[int]:
        return self.pos.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.pos.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        """Apply an action or chance outcome; an illegal one raises IllegalActionError
        with the engine's reason, and the state stays as it was."""
        pos = self.pos
        reason = pos.check_outcome(action) if pos.is_chance else pos.check(action)
        if reason is not None:
            raise IllegalActionError(reason)
        if pos.is_chance:
            pos.apply_outcome(action)
        else:
            pos.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return outcome_name(action, into_line=self.pos.drawing_line)
        return self.pos.table.name(action)

    def is_terminal(self) -> bool:
        return self.pos.is_over

    def returns(self) -> list[float]:
        return self.pos.returns()

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        history = " ".join(map(str, self.history()))
        return f"seat {seat}\n{self.origin}\n{history}" if self.origin \
            else f"seat {seat}\n{history}"

    def resample_from_infostate(self, player: int, sampler: Any) -> PortobelloState:
        """The one state this information state allows (nothing is hidden)."""
        return self.clone()

    def __str__(self) -> str:
        return observation.text(self.pos)


class PortobelloObserver:
    """OpenSpiel's observer protocol: a tensor with named views and a string, of the
    observation or (with perfect recall) the information state."""

    def __init__(self, settings: Settings, iig_obs_type: Any = None) -> None:
        public = iig_obs_type is None or iig_obs_type.public_info
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        parts = observation.pieces(settings, public=public)
        self.tensor = np.zeros(observation.size(settings, public=public), np.float32)
        self.dict = observation.views(self.tensor, parts)

    def set_from(self, state: PortobelloState, player: int) -> None:
        observation.fill(self.dict, state.pos, player)

    def string_from(self, state: PortobelloState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        if "to_move" not in self.dict:
            return f"seat {player}"
        return observation.text(state.pos, player)


pyspiel.register_game(game_type(), PortobelloGame)
