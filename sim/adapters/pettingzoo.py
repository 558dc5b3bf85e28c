"""Portobello Market as a PettingZoo AEC environment (needs the extra
`portobello[pettingzoo]`), with PettingZoo's usual entry points:

    from sim.adapters import pettingzoo as portobello
    env = portobello.env(players=4, customer_order="known")  # wrapped
    env = portobello.raw_env(players=4)                       # unwrapped

The parameters are the OpenSpiel game's (`sim.adapters.core.settings`): `players`,
`customer_order`, `neutral_stack`, `board`, `rules`, `bobby_moves` and `returns` (the
reward: `win`, each winner's share of the win, or `margin`, the score minus the mean of
the others'), and `render_mode`.

Agents are `player_0` ... (the seats, 0 first). Each observation is a dict: the
`observation` array (`sim.adapters.core.observation`, from the agent's own chair) and
the `action_mask` over the dense action numbering (`sim.adapters.core.actions`), all
zeros for an agent not to move. A seat takes every step of its turn in a row, so the same
agent is selected until it ends its turn. Chance (the bag's draws, the known line) is
drawn inside the environment from its generator, seeded by `reset(seed=...)`, so a seed
gives the same game for the same actions. Rewards come once, at the end; no game is cut
short (`truncations` stay false).

`render()`: `ansi` returns the position as text, `human` prints it, and `html` returns
the game so far as the viewer's page (`portobello view`), one self-contained HTML file
that opens at the latest step and steps back through the game.
"""

from __future__ import annotations

from typing import Any
from typing import ClassVar

import numpy as np

from sim.adapters.core import observation
from sim.adapters.core.actions import ActionTable
from sim.adapters.core.position import Position
from sim.adapters.core.settings import Settings
from sim.adapters.core.settings import settings as make_settings
from sim.core.errors import IllegalActionError

try:
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - the extra is installed by `make`
    raise ImportError("the PettingZoo environment needs pettingzoo: "
                      "pip install 'portobello[pettingzoo]'") from exc

RENDER_MODES = ("ansi", "human", "html")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's checks: an action out of bounds or out of turn,
    or a step after the end, raises."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped environment
    """The AEC environment; parameters as the module says."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES), "name": "portobello_v0", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or "
                             f"None, got {render_mode!r}")
        self.render_mode = render_mode
        self.settings: Settings = make_settings(**params)
        self.table = ActionTable(self.settings.board, self.settings.rules)
        n = self.settings.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        size = observation.size(self.settings)
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        bound = self.settings.score_bound
        parts = observation.pieces(self.settings)
        observation.views(low, parts)["scores"][:] = -bound / observation.SCORE_SCALE
        observation.views(high, parts)["scores"][:] = bound / observation.SCORE_SCALE
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(len(self.table),), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(len(self.table))
                              for a in self.possible_agents}
        self._parts = parts
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.pos = Position(self.settings, self.table, keep_log=True)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the game --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.pos = Position(self.settings, self.table, keep_log=True)
        self._play_chance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.pos.seat]

    def _play_chance(self) -> None:
        """Draw every chance step now due (the line, a customer) from the generator."""
        pos = self.pos
        while pos.is_chance and not pos.is_over:
            outcomes = pos.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            pick = int(self.np_random.choice(len(outcomes), p=probs / probs.sum()))
            pos.apply_outcome(outcomes[pick][0])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.possible_agents.index(agent)
        tensor = np.zeros(observation.size(self.settings), np.float32)
        observation.fill(observation.views(tensor, self._parts), self.pos, player)
        mask = np.zeros(len(self.table), np.int8)
        if not self.pos.is_over and agent == self.agent_selection:
            mask[self.pos.legal()] = 1
        return {"observation": tensor, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        reason = self.pos.check(action)
        if reason is not None:
            raise IllegalActionError(f"{agent}: {reason}")
        self._cumulative_rewards[agent] = 0.0
        self.pos.apply(int(action))
        self._play_chance()
        if self.pos.is_over:
            returns = self.pos.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = returns[i]
                self.terminations[a] = True
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.agents[self.pos.seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- people ----------------------------------------------------------------------------
    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "html":
            return self._page()
        text = observation.text(self.pos)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _page(self) -> str:
        from sim.games.portobello.records import game_on_board
        from sim.games.portobello.records import record_from_game
        from sim.games.portobello.view.page import render
        from sim.games.portobello.view.source import GameSource

        game = self.pos.game
        if game is None:
            raise ValueError("the line is still being drawn: reset() first")
        record = record_from_game(game, agents=self.possible_agents)
        record["seed"] = int(self.np_random_seed)  # the environment's: it drew the chance
        fresh = game_on_board(record, self.settings.board)
        return render(GameSource(record=record, label="PettingZoo game", game=fresh),
                      at_end=True)

    def close(self) -> None:
        pass
