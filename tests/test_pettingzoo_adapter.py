"""The PettingZoo environment (`sim.adapters.pettingzoo`): PettingZoo's own `api_test`
and `seed_test` for 2, 3 and 4 players in both customer orders, whole games to the end
with masked random actions (rewards, terminations, the engine's own record), seeding,
the renders and refused actions."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test
from pettingzoo.test import seed_test

from sim.adapters import pettingzoo as portobello
from sim.games.portobello.records import record_from_game
from sim.games.portobello.records import replay

CASES = [(n, order) for n in (2, 3, 4) for order in ("drawn", "known")]

# PettingZoo's checks advise a plain array observation; a dict of the observation and its
# action mask is PettingZoo's own convention for board games (its classic environments
# draw the same two warnings).
pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent probably")]


@pytest.mark.parametrize(("players", "order"), CASES)
def test_pettingzoos_api_and_seed_tests_pass(players: int, order: str) -> None:
    api_test(portobello.env(players=players, customer_order=order), num_cycles=400)
    seed_test(lambda: portobello.env(players=players, customer_order=order), num_cycles=400)


def _play(env: object, seed: int, action_seed: int) -> tuple[list[int], dict[str, float]]:
    """A whole game with random masked actions; the actions and the rewards summed."""
    rng = np.random.default_rng(action_seed)
    env.reset(seed=seed)
    actions, total = [], dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        total[agent] += reward
        assert not truncated
        if terminated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        actions.append(action)
        env.step(action)
    return actions, total


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_ends_with_the_win_shared_among_the_leaders(players: int) -> None:
    env = portobello.raw_env(players=players)
    _actions, total = _play(env, seed=players, action_seed=1)
    game = env.pos.game
    assert game.is_over and not env.agents  # every agent left after its last step
    best = max(game.scores)
    leaders = [p for p, s in enumerate(game.scores) if s == best]
    assert total == {f"player_{p}": (1 / len(leaders) if p in leaders else 0.0)
                     for p in range(players)}
    # The engine's record of the game replays to the same scores: the environment plays
    # the engine's rules and nothing else.
    replayed = replay(record_from_game(game))
    assert replayed.scores == game.scores and replayed.is_over


def test_margin_rewards_are_each_score_minus_the_mean_of_the_others() -> None:
    env = portobello.raw_env(players=3, returns="margin")
    _actions, total = _play(env, seed=5, action_seed=2)
    s = env.pos.game.scores
    want = [s[0] - (s[1] + s[2]) / 2, s[1] - (s[0] + s[2]) / 2, s[2] - (s[0] + s[1]) / 2]
    assert [total[f"player_{p}"] for p in range(3)] == pytest.approx(want)
    assert sum(total.values()) == pytest.approx(0.0)


def test_the_seed_decides_the_draws() -> None:
    """The same seed and actions give the same game; other seeds draw other customers."""
    env = portobello.raw_env(players=2)
    first, _ = _play(env, seed=11, action_seed=3)
    scores = env.pos.game.scores[:]
    again, _ = _play(env, seed=11, action_seed=3)
    assert again == first and env.pos.game.scores == scores
    squares = set()
    for seed in range(6):
        env.reset(seed=seed)
        line_env = portobello.raw_env(customer_order="known")
        line_env.reset(seed=seed)
        squares.add(line_env.pos.game.line)
    assert len(squares) > 1


def test_only_the_agent_to_move_has_a_mask_and_observations_are_in_their_space() -> None:
    env = portobello.raw_env(players=3)
    env.reset(seed=0)
    mover = env.agent_selection
    for agent in env.agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert obs["action_mask"].any() == (agent == mover)
    assert obs["observation"].dtype == np.float32


def test_illegal_and_out_of_turn_actions_are_refused() -> None:
    env = portobello.env(players=2)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    code = env.unwrapped.table.codes[illegal]
    reason = env.unwrapped.pos.game.check(code)
    with pytest.raises(ValueError) as refused:
        env.step(illegal)
    assert str(refused.value) == f"{env.agent_selection}: {reason}"  # the engine's words
    with pytest.raises(AssertionError):
        env.step(len(mask))  # out of the action space
    with pytest.raises(Exception, match="reset"):
        portobello.env(players=2).step(0)  # before reset


@pytest.mark.parametrize("action", [1.5, 2.9, "3", True, None, np.float32(1.0), [1]])
def test_the_raw_environment_refuses_what_is_not_an_action(action: object) -> None:
    env = portobello.raw_env(players=2)
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    before = env.pos.game.key()
    with pytest.raises(ValueError, match="is not an action of this game"):
        env.step(action)
    assert env.pos.game.key() == before  # nothing was played
    env.step(np.int64(legal))  # a NumPy integer is an action
    assert env.pos.game.key() != before


def test_renders_text_and_the_viewer_page() -> None:
    env = portobello.raw_env(players=2, render_mode="ansi")
    _play(env, seed=4, action_seed=4)
    text = env.render()
    assert text.startswith("round ") and "game over" in text
    env.render_mode = "html"
    page = env.render()
    found = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', page,
                      re.S)
    data = json.loads(found.group(1))
    # One step per record action, and one for the start.
    assert len(data["steps"]) == len(record_from_game(env.pos.game)["actions"]) + 1
    assert data["steps"][-1]["scores"] == env.pos.game.scores
    assert data["start"] == len(data["steps"]) - 1  # the page opens at the latest step
    with pytest.raises(ValueError, match="render_mode must be one of"):
        portobello.raw_env(render_mode="rgb_array")


def test_bad_parameters_name_the_parameter() -> None:
    with pytest.raises(ValueError, match="returns: must be one of win, margin"):
        portobello.env(returns="points")
