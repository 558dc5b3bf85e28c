"""The MCTS agent (`fastmcts`, also named `mcts`): legal, reproducible from its seed, a kept
subtree reused whole, the choice the search's visits make, and its parameters checked.

Its strength against the heuristic is measured by tournaments (docs/agents.md, "Search at
every player count"), not here: a test must not depend on the clock.
"""

from __future__ import annotations

import pytest

from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.codes import SETUP
from sim.games.portobello.codes import TURN_START
from sim.games.portobello.game import Game
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed

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


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("reuse", ["true", "false"])
def test_plays_legal_games_and_the_same_seed_gives_the_same_game(players: int,
                                                                 reuse: str) -> None:
    """Iterations-only budgets make play a function of the seed, with the subtree kept or
    not (play_game validates every action, so an illegal choice would raise); the agent
    objects played before replay the game exactly (a kept tree never outlives a game)."""
    rules = Rules(players=players)
    specs = [f"fastmcts:iterations=40,reuse={reuse}"] + ["heuristic"] * (players - 1)
    seed = derive_seed("fastmcts", players)
    logs = []
    agents = [make_agent(s) for s in specs]
    for fresh in (True, False):
        game, _ = play_game(STANDARD, rules, [make_agent(s) for s in specs] if fresh
                            else agents, seed)
        assert game.is_over
        logs.append(game.log)
    again, _ = play_game(STANDARD, rules, agents, seed)
    assert logs[0] == logs[1] == again.log


def _subtree(T: tuple, x: int) -> object:
    """A node's statistics and edges with their subtrees, as nested tuples (indices out)."""
    from sim.games.portobello.agents.compiled import mcts as M

    node, value, edge, prior, steps = T[:5]
    chance = tuple(_subtree(T, node[x, c]) if node[x, c] >= 0 else None
                   for c in (M.NCC1, M.NCC2))
    first, k = node[x, M.NFIRST], node[x, M.NK]
    edges = tuple((tuple(steps[edge[e, M.ESTEP0]:edge[e, M.ESTEP0] + edge[e, M.ENSTEPS]]),
                   prior[e], _subtree(T, edge[e, M.ECHILD]) if edge[e, M.ECHILD] >= 0
                   else None) for e in range(first, first + k))
    return (node[x, M.NV], value[x], node[x, M.NSEAT], chance, edges)


def test_a_kept_subtree_is_copied_whole_and_counts_towards_the_budget() -> None:
    """After a decision the chosen edge's subtree is what the next decision starts from:
    when the next decision is the very position that edge leads to (the rest of the same
    turn) its root has exactly the child's visits, copied node by node, and only the rest
    of the budget (at least a quarter) is searched anew. Without reuse nothing is kept."""
    from sim.games.portobello.agents.compiled import mcts as M

    rules = Rules(players=2)
    agent = make_agent("fastmcts:iterations=300")
    off = make_agent("fastmcts:iterations=300,reuse=false")
    checked = 0
    for game in positions(rules, derive_seed("fastmcts", "reuse"), every=5)[:24]:
        agent.reseed(3)
        off.reseed(3)
        action = agent.choose(game)
        off.choose(game)
        assert off.last_kept == 0 and off._kept is None
        tree = agent.tools(game)["tree"]
        e = M.best(tree)
        child = tree[2][e, M.ECHILD]
        steps = tree[4][tree[2][e, M.ESTEP0]:tree[2][e, M.ESTEP0] + tree[2][e, M.ENSTEPS]]
        if child < 0 or tree[0][child, M.NSEAT] == M.UNSET:
            continue  # the chosen edge leads to a chance draw or a leaf
        want = _subtree(tree, child)
        visits = tree[0][child, M.NV]
        game.apply(action)
        for a in steps[1:]:
            assert agent.choose(game) == a
            game.apply(a)
        if game.seat != tree[0][child, M.NSEAT]:
            continue
        spare = agent.tools(game)["spare"]
        M.reroot(tree, child, spare, agent.tools(game)["queue"])
        assert _subtree(spare, 0) == want
        agent.choose(game)
        assert agent.last_kept == visits > 0
        assert agent.last_iterations in (0, max(300 - visits, 75))
        checked += 1
    assert checked >= 8


def test_reuse_keeps_visits_across_turns_and_within_them() -> None:
    """In a whole game most searched decisions start from a kept subtree, some of them at
    the start of a turn (found through the opponents' moves and the customers drawn), and
    each decision with kept visits searches less than the full budget."""
    rules = Rules(players=3)
    agent = make_agent("fastmcts:iterations=200")
    log: list[tuple[int, int, int]] = []
    decide = agent.decide

    def spy(game: Game, plan: object) -> object:
        action = decide(game, plan)  # type: ignore[arg-type]
        log.append((game.phase, agent.last_kept, agent.last_iterations))
        return action

    agent.decide = spy  # type: ignore[method-assign]
    for i in range(3):  # a few games: whether a turn starts inside the tree depends on play
        play_game(STANDARD, rules, [agent, make_agent("heuristic"), make_agent("heuristic")],
                  derive_seed("fastmcts", "across", i))
    searched = [x for x in log if x[2] > 0]
    kept = [x for x in searched if x[1] > 0]
    assert len(kept) >= len(searched) // 2
    assert any(phase == TURN_START for phase, _, _ in kept)
    assert all(it == max(200 - k, 50) for _, k, it in kept)


def test_both_names_of_the_search_take_the_same_choice() -> None:
    """The search's two names (`fastmcts`, `mcts`) play the same search: with one iteration
    and the same seed each visits the edge of the highest prior (every score is
    fpu + c x prior), so both choose the same at every position."""
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
    from sim.games.portobello.agents.compiled import mcts as M

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


def test_the_horizon_follows_the_player_count_unless_given() -> None:
    """`horizon=auto` (the default) takes the rounds of `HORIZONS` for the game's player
    count into the search's settings row; a number given in the spec is used as is."""
    from sim.games.portobello.agents.compiled import mcts as M
    from sim.games.portobello.agents.fast_mcts import HORIZONS

    for players in (2, 3, 4):
        game = Game(STANDARD, Rules(players=players), seed=1)
        auto, fixed = make_agent("fastmcts"), make_agent("fastmcts:horizon=-1")
        assert auto.tools(game)["settings"][M.HORIZON] == HORIZONS[players]
        assert fixed.tools(game)["settings"][M.HORIZON] == -1


@pytest.mark.parametrize(("bad", "reason"), [
    ("fastmcts:iterations=0", "needs a budget"),
    ("fastmcts:rollout=smart", "rollout must be one of heuristic, random"),
    ("fastmcts:returns=money", "returns must be one of margin, rank"),
    ("fastmcts:width=0", "must be at least 1"),
    ("fastmcts:horizon=far", "horizon must be auto or a whole number"),
    ("fastmcts:horizon=-2", "horizon=-2 is below the least value of -1")])
def test_bad_parameters_are_refused(bad: str, reason: str) -> None:
    with pytest.raises(AgentSpecError, match=reason):
        make_agent(bad)
