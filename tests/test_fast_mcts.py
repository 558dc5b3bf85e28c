"""The compiled MCTS agent (`fastmcts`): legal, reproducible, and the same search as the
reference MCTS where the two must agree.

Its strength against the reference MCTS at the same time budget is measured by a
tournament (README, Performance), not here: a test must not depend on the clock.
"""

from __future__ import annotations

import pytest

from sim.agents.registry import AgentSpecError
from sim.agents.registry import make_agent
from sim.engine.board import load_board
from sim.engine.codes import SETUP
from sim.engine.game import Game
from sim.engine.rules import Rules
from sim.run.loop import derive_seed
from sim.run.loop import play_game

STANDARD = load_board("standard")


def positions(rules: Rules, seed: int, every: int = 7) -> list[Game]:
    """Decision points of a heuristic game (no chance nodes, no Bobby placement)."""
    game, _ = play_game(STANDARD, rules, [make_agent("heuristic") for _ in
                                          range(rules.players)], seed)
    assert game.log is not None
    replay = Game(STANDARD, rules, seed=seed)
    out = []
    for i, action in enumerate(game.log):
        if i % every == 3 and replay.phase != SETUP:
            out.append(replay.copy(keep_log=True))
        replay.apply(action)
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_plays_legal_games_and_the_same_seed_gives_the_same_game(players: int) -> None:
    """Iterations-only budgets make play a function of the seed (play_game validates every
    action, so an illegal choice would raise)."""
    rules = Rules(players=players)
    specs = ["fastmcts:iterations=40"] + ["heuristic"] * (players - 1)
    seed = derive_seed("fastmcts", players)
    logs = []
    for _ in range(2):
        game, _ = play_game(STANDARD, rules, [make_agent(s) for s in specs], seed)
        assert game.is_over
        logs.append(game.log)
    assert logs[0] == logs[1]


def test_one_iteration_takes_the_reference_mcts_choice() -> None:
    """With one iteration both searches visit the edge of the highest prior (every score
    is fpu + c x prior), so they choose the same: the heuristic's best option, priced
    identically by the compiled planner."""
    rules = Rules(players=2)
    fast, ref = make_agent("fastmcts:iterations=1"), make_agent("mcts:iterations=1")
    checked = 0
    for game in positions(rules, derive_seed("fastmcts", "prior"))[:25]:
        fast.reseed(1)
        ref.reseed(1)
        assert fast.choose(game) == ref.choose(game), f"turn {game.turn}"
        checked += 1
    assert checked >= 20


def test_the_choice_is_the_most_visited_root_edge_of_a_full_search() -> None:
    """After a decision with N iterations the tree's root has N visits spread over its
    edges, the agent played the first step of the edge with the most visits (ties broken
    by mean value, then prior), and the search is not just the prior: at a fair share of
    positions the choice differs from a one-iteration search. Checked at every position,
    not a sample that tolerates misses."""
    from sim.fast import mcts as M

    rules = Rules(players=2)
    many = make_agent("fastmcts:iterations=400")
    few = make_agent("fastmcts:iterations=1")
    searched = differ = 0
    for game in positions(rules, derive_seed("fastmcts", "search"), every=5)[:30]:
        many.reseed(2)
        few.reseed(2)
        action = many.choose(game)
        node, value, edge, prior = many.tools(game)["tree"][:4]
        first, k = node[0, M.NFIRST], node[0, M.NK]
        if k <= 1:
            continue  # a forced decision is not searched
        searched += 1
        assert many.last_iterations == 400
        children = [edge[e, M.ECHILD] for e in range(first, first + k)]
        visits = [node[c, M.NV] if c >= 0 else 0 for c in children]
        assert sum(visits) == 400 and node[0, M.NV] >= 400
        keys = [(v, value[c] / v if v else 0.0, prior[e]) for v, c, e in
                zip(visits, children, range(first, first + k), strict=True)]
        top = first + max(range(k), key=lambda i: keys[i])
        steps = many.tools(game)["tree"][4]
        assert action == steps[edge[top, M.ESTEP0]]
        differ += action != few.choose(game)
    assert searched >= 20
    assert differ >= searched // 5, f"{differ} of {searched} choices differ from the prior's"


@pytest.mark.parametrize(("bad", "reason"), [
    ("fastmcts:iterations=0", "needs a budget"),
    ("fastmcts:rollout=smart", "rollout must be one of heuristic, random"),
    ("fastmcts:returns=money", "returns must be one of margin, rank"),
    ("fastmcts:width=0", "must be at least 1")])
def test_bad_parameters_are_refused(bad: str, reason: str) -> None:
    with pytest.raises(AgentSpecError, match=reason):
        make_agent(bad)
