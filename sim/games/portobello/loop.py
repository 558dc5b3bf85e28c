"""Playing one Portobello Market game between agents, decision by decision through `Game`:
the loop the step engine (`sim.games.portobello.engines.StepEngine`), the commands that play
one game and the learning's teacher share."""

from __future__ import annotations

from collections.abc import Sequence

from sim.core.errors import AgentError
from sim.games.portobello.actions import describe
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.board import Board
from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

__all__ = ["AgentError", "play_game", "seat_seeds"]


def seat_seeds(game_seed: int, players: int) -> list[int]:
    """The agents' seeds in a game, seat by seat (`sim.core.rng.seat_seed`)."""
    from sim.core.rng import seat_seeds as seeds

    return seeds(game_seed, players)


def play_game(board: Board, rules: Rules, agents: Sequence[BaseAgent], seed: int,
              *, record_events: bool = False, keep_log: bool = True,
              validate: bool = True) -> tuple[Game, int]:
    """Play a whole game; returns the finished game and the number of agent decisions.

    Each agent is reseeded from the game seed and its seat, so a game depends only on its
    seed whatever was played before it. An agent that raises or chooses an illegal action
    raises `AgentError` naming the game.
    """
    if len(agents) != rules.players:
        raise ValueError(f"{len(agents)} agents for {rules.players} players")
    for agent, agent_seed in zip(agents, seat_seeds(seed, len(agents)), strict=True):
        agent.reseed(agent_seed)
    game = Game(board, rules, seed=seed, record_events=record_events, keep_log=keep_log)
    decisions = 0
    while not game.is_over:
        if game.is_chance:
            game.apply(game.sample_chance())
            continue
        seat = game.seat
        agent = agents[seat]
        try:
            action = agent.choose(game)
        except Exception as exc:  # an agent bug must name the game, not kill a whole run
            raise AgentError(f"raised {type(exc).__name__}: {exc}", seed=seed, seat=seat,
                             agent=agent.spec, state=_state(game)) from exc
        if validate:
            reason = game.check(action)
            if reason is not None:
                raise AgentError(f"chose illegal action {describe(action)}: {reason}",
                                 seed=seed, seat=seat, agent=agent.spec, state=_state(game))
        game.apply(action)
        decisions += 1
    return game, decisions


def _state(game: Game) -> str:
    return (f"round {game.round}, turn {game.turn}, seat {game.seat}, "
            f"phase {PHASE_NAMES[game.phase]}, scores {game.scores}, "
            f"stalls left {game.stalls_left}, actions logged "
            f"{len(game.log) if game.log is not None else 'n/a'}")
