"""The OpenSpiel game `python_portobello` (`sim.adapters.openspiel`): OpenSpiel's own
consistency checks over random games in several rules settings, with the engine's
independent rules reading (tests/invariants.py) checking every state they visit;
chance nodes, information states and observations; OpenSpiel's MCTS and ISMCTS bots
playing whole games, through the game and as agents."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from invariants import Checker

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import mcts  # noqa: E402

import sim.adapters.openspiel as adapter  # noqa: E402
from sim.core.errors import PortobelloError  # noqa: E402
from sim.games.portobello import actions as A  # noqa: E402
from sim.games.portobello.agents.registry import AgentSpecError  # noqa: E402
from sim.games.portobello.agents.registry import make_agent  # noqa: E402
from sim.games.portobello.board import load_board  # noqa: E402
from sim.games.portobello.loop import play_game  # noqa: E402
from sim.games.portobello.rules import Rules  # noqa: E402


def _checker_fn():
    """A state checker for `random_sim_test`: the engine's invariants in every state, and
    the legal actions exactly the rules' (tests/invariants.py's own reading), less the
    Bobby moves past the adapter's bound."""
    checkers: dict[object, Checker] = {}
    visited = {"states": 0}

    def check(state: adapter.PortobelloState) -> None:
        game = state.pos.game
        visited["states"] += 1
        if game is None:
            assert state.is_chance_node()
            return
        if game.rules not in checkers:
            checkers[game.rules] = Checker(game)
        checker = checkers[game.rules]
        checker.check_state(game)
        if state.is_chance_node():
            want = {(A.arg(a) - 1, game.bag[A.arg(a)] / (game.bag[1] + game.bag[2]))
                    for a in checker.legal(game)}
            assert set(state.chance_outcomes()) == want
        elif not state.is_terminal():
            want = checker.legal(game)
            if state.pos.moves_left() <= 0:
                want = {a for a in want if A.kind(a) != A.MOVE_BOBBY}
            assert {state.pos.table.codes[i] for i in state.legal_actions()} == want

    return check, visited


@pytest.fixture(scope="module")
def rules_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("rules")
    files = {
        "german": 'bobby_tie = "pay_bank"\nnegative_scores = true\n',
        "line": 'customer_sequence = ["aristocrat", "citizen", "citizen", "aristocrat", '
                '"citizen", "aristocrat", "citizen", "aristocrat", "citizen", "aristocrat"]\n'
                'bobby_placer = "last"\n',
        "bonus": "players = 3\nstart_scores = [10, 14, 18]\n",
    }
    out = {}
    for name, text in files.items():
        (folder / f"{name}.toml").write_text(text)
        out[name] = str(folder / f"{name}.toml")
    return out


# Random games per setting: a few in `make test`, more with `make adapters` (the variable).
SIMS = int(os.environ.get("PORTOBELLO_OPENSPIEL_SIMS", "4"))

SETTINGS = [
    {},
    {"players": 3, "customer_order": "known"},
    {"players": 4, "returns": "margin"},
    {"players": 2, "neutral_stack": "1,1,1,1,2,2,3,3", "bobby_moves": 4},
    {"rules": "german", "players": 3},
    {"rules": "line"},
    {"rules": "bonus", "customer_order": "known"},
]


@pytest.mark.parametrize("params", SETTINGS, ids=lambda p: ",".join(
    f"{k}={v}" for k, v in p.items()) or "defaults")
def test_openspiels_random_simulation_checks_pass(params: dict[str, object],
                                                 rules_files: dict[str, str]) -> None:
    """OpenSpiel's `random_sim_test` (legal-action masks, chance probabilities summing
    to 1, returns at the end, serialisation and deserialisation of every state,
    observation and information-state strings and tensors for every player, clones)
    over random games, each state also checked against the rules."""
    params = {k: rules_files[v] if k == "rules" else v for k, v in params.items()}
    game = pyspiel.load_game(adapter.SHORT_NAME, params)
    check, visited = _checker_fn()
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=True, verbose=False,
                            state_checker_fn=check)
    assert visited["states"] > SIMS * 100  # whole games were played and checked


def test_the_game_loads_with_the_issues_parameters() -> None:
    game = pyspiel.load_game(adapter.SHORT_NAME, {"players": 4, "customer_order": "known"})
    assert game.num_players() == 4
    assert game.get_type().short_name == "python_portobello"
    assert game.num_distinct_actions() == 111  # tests/test_adapters_core.py derives it
    assert game.max_chance_outcomes() == 2
    state = game.new_initial_state()
    assert state.is_chance_node()  # the known line is drawn first
    again = pyspiel.load_game(str(game))  # a game string loads the same game
    assert again.get_parameters() == game.get_parameters()


def test_bad_parameters_fail_with_the_parameter_named() -> None:
    with pytest.raises(Exception, match="customer_order: must be one of drawn, known"):
        pyspiel.load_game(adapter.SHORT_NAME, {"customer_order": "sideways"})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game(adapter.SHORT_NAME, {"colour": "red"})


def test_out_of_range_parameters_are_parameter_errors() -> None:
    # a bound that would overflow the frameworks' 32-bit game length
    with pytest.raises(Exception, match="bobby_moves: must be from 0 to 1,000, got 1000000000"):
        pyspiel.load_game(adapter.SHORT_NAME, {"bobby_moves": 10**9})
    with pytest.raises(Exception, match="players: must be an integer from 2 to 16"):
        pyspiel.load_game(adapter.SHORT_NAME, {"players": 10**6})


def test_an_illegal_action_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    game = pyspiel.load_game(adapter.SHORT_NAME)
    table = game.table
    state = game.new_initial_state()
    token = table.index[A.play_token(4)]  # a token before the Bobby is placed
    engine = state.pos.game.copy()
    with pytest.raises(Exception) as refused:
        state.apply_action(token)
    assert str(refused.value) == engine.check(A.play_token(4))
    assert "Bobby" in str(refused.value)
    assert state.history() == [] and state.pos.game.key() == engine.key()
    for bad in (len(table), 10**6):  # (OpenSpiel itself refuses -1)
        with pytest.raises(Exception, match="is not an action of this game"):
            state.apply_action(bad)
    state.apply_action(table.index[A.place_bobby(0)])  # the legal one still plays
    state.apply_action(token)
    state.apply_action(table.index[A.DRAW])
    with pytest.raises(Exception, match="is not a chance outcome now"):
        state.apply_action(7)  # chance gives a citizen (0) or an aristocrat (1)
    assert state.is_chance_node() and len(state.history()) == 3


def test_a_draw_is_a_chance_node_with_the_bags_probabilities() -> None:
    game = pyspiel.load_game(adapter.SHORT_NAME)
    table = game.table
    state = game.new_initial_state()
    for code in (A.place_bobby(0), A.play_token(4), A.DRAW):
        state.apply_action(table.index[code])
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "drawn aristocrat"
    state.apply_action(1)
    assert state.current_player() == 0  # the drawer places it
    assert state.pos.game.pending == 2


def test_information_states_hold_the_history_and_observations_the_position() -> None:
    """Out to one neighbour and back, or to another and back: each crossing of an empty
    lane costs 1 point, so both reach the same position (Bobby home, 8 points) by other
    histories. The information states differ; the observations are equal."""
    game = pyspiel.load_game(adapter.SHORT_NAME, {"players": 3})
    table = game.table
    home = 4
    (a, _), (b, _) = game.settings.board.district_neighbours[home][:2]
    states = []
    for away in (a, b):
        state = game.new_initial_state()
        for code in (A.place_bobby(home), A.play_token(2), A.move_bobby(away),
                     A.move_bobby(home)):
            state.apply_action(table.index[code])
        states.append(state)
    s1, s2 = states
    assert s1.pos.game.scores == s2.pos.game.scores == [8, 10, 10]
    assert s1.information_state_string(0) != s2.information_state_string(0)
    assert s1.information_state_string(0).startswith("seat 0\n")
    for p in range(3):
        assert s1.observation_string(p) == s2.observation_string(p)
        assert s1.observation_tensor(p) == s2.observation_tensor(p)
    assert s1.observation_string(0).startswith("seat 0 observing")
    assert len(s1.observation_tensor(1)) == game.observation_tensor_size()
    assert s1.information_state_tensor(2) == s1.observation_tensor(2)
    resampled = s1.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0., 1.))
    assert str(resampled) == str(s1) and resampled.history() == s1.history()


def test_every_seat_observes_the_same_position() -> None:
    game = pyspiel.load_game(adapter.SHORT_NAME, {"players": 3})
    state = game.new_initial_state()
    for code in (A.place_bobby(2), A.play_token(3)):
        state.apply_action(game.table.index[code])
    texts = {state.observation_string(p).split("\n", 1)[1] for p in range(3)}
    assert len(texts) == 1


def _bot_game(game: object, bots: list[object], seed: int) -> object:
    import numpy as np

    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


def test_openspiels_mcts_bot_plays_whole_games() -> None:
    """OpenSpiel's MCTS (random rollouts) in every seat, 2 and 3 players: each game ends
    with win shares summing to 1, within the declared length."""
    import numpy as np

    for players in (2, 3):
        game = pyspiel.load_game(adapter.SHORT_NAME, {"players": players})
        rng = np.random.RandomState(players)
        evaluator = mcts.RandomRolloutEvaluator(1, rng)
        bots = [mcts.MCTSBot(game, 2.0, 2, evaluator, random_state=rng)
                for _ in range(players)]
        state = _bot_game(game, bots, players)
        assert state.is_terminal()
        assert sum(state.returns()) == pytest.approx(1.0)
        assert len(state.history()) <= game.max_game_length()
        assert state.pos.game.end_reason in ("last_stall", "board_exhausted")


@pytest.mark.parametrize("spec", ["openspiel-mcts:simulations=3",
                                  "openspiel-ismcts:simulations=3"])
def test_openspiel_bots_play_as_agents_against_ours(spec: str) -> None:
    """Through the runner's game loop (every action checked by the rules): a whole game
    against the heuristic, and the same seed gives the same game."""
    board, rules = load_board("standard"), Rules()
    games = [play_game(board, rules, [make_agent(spec, 1), make_agent("heuristic", 2)], 7)[0]
             for _ in range(2)]
    assert all(g.is_over for g in games)
    assert games[0].log == games[1].log and games[0].scores == games[1].scores


def test_bad_openspiel_agent_specs_say_why() -> None:
    with pytest.raises(AgentSpecError, match="needs a budget"):
        make_agent("openspiel-mcts:simulations=0")
    with pytest.raises(AgentSpecError, match="clock must be one of"):
        make_agent("openspiel-ismcts:time=0.1,clock=sundial")
    with pytest.raises(PortobelloError, match="openspiel-mcts cannot be restricted"):
        make_agent("no-district(openspiel-mcts)")


def test_the_module_docstring_example_runs(tmp_path: Path) -> None:
    code = ("import pyspiel\nimport sim.adapters.openspiel\n"
            "game = pyspiel.load_game('python_portobello', "
            "{'players': 4, 'customer_order': 'known'})\n"
            "print(game.num_players())\n")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, check=True)
    assert out.stdout.strip() == "4"
