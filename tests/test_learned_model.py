"""The learned agent's inputs and network: the position from a seat's chair (checked against
an independent reading written here from `Game`'s public fields, and by hand at the start),
the compiled network against scikit-learn's own `predict`, and the model file (round trip,
byte-stable, damaged or foreign files refused by name)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from sim.games.portobello.agents.compiled.features import DISTRICT
from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
from sim.games.portobello.agents.compiled.features import GAME
from sim.games.portobello.agents.compiled.features import LANE
from sim.games.portobello.agents.compiled.features import RULES
from sim.games.portobello.agents.compiled.features import SEATS
from sim.games.portobello.agents.compiled.features import feature_count
from sim.games.portobello.agents.compiled.features import features
from sim.games.portobello.agents.compiled.features import input_count
from sim.games.portobello.agents.compiled.features import seat_block
from sim.games.portobello.agents.model import Model
from sim.games.portobello.agents.model import ModelError
from sim.games.portobello.board import load_board
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules

BOARD = load_board("standard")


def vector(game: Game, me: int) -> np.ndarray:
    out = np.full(feature_count(game.B), np.nan)
    features(game.B, game.S, me, out)
    return out


def played(players: int, seed: int, actions: int, **rules: object) -> Game:
    """A game after `actions` random actions (chance sampled by the game)."""
    game = Game(BOARD, Rules(players=players, **rules), seed=seed)  # type: ignore[arg-type]
    pick = random.Random(seed)
    for _ in range(actions):
        if game.is_over:
            break
        if game.is_chance:
            game.apply(game.sample_chance())
        else:
            game.apply(pick.choice(game.legal_actions()))
    return game


def test_the_start_of_a_game_by_hand() -> None:
    """3 players, standard rules, the Bobby placed: seen from seat 1, seat 0 is to move
    (two seats on from seat 1), a turn's start, the whole bag (5 citizens, 5 aristocrats)
    left, every seat on 10 points with 20 stalls and tokens 2, 3, 4 face up."""
    game = played(3, 1, 0)
    game.apply(game.legal_actions()[0])  # the Bobby's placement
    x = vector(game, 1)
    assert len(x) == GAME + RULES + SEATS * 14 + LANE * 22 + DISTRICT * 12 + 8
    assert x[0] == pytest.approx(1 / 200) and x[1] == 0  # round 1 of 200; not me to move
    assert list(x[2:6]) == [0, 0, 1, 0]  # seat 0 is two seats on from seat 1
    assert list(x[6:12]) == [0, 1, 0, 0, 0, 0]  # a turn's start
    assert list(x[12:19]) == [0, 0.5, 0.5, 1.0, 0, 0, 0]
    r = GAME
    assert list(x[r:r + 6]) == [0, 1, 0, 0, 1.0, 1.0]  # drawn order, baron, 20 stalls, 200
    # multipliers (rulebook): citizen-citizen 1, citizen-aristocrat 2, ..., aristocrat-baron 4
    assert x[r + 6 + 1 * 4 + 1] == pytest.approx(0.1)
    assert x[r + 6 + 2 * 4 + 3] == pytest.approx(0.4)
    assert x[r + 22] == pytest.approx(0.8) and x[r + 23] == pytest.approx(14 / 30)
    s = GAME + RULES
    for seat in range(3):
        block = x[s + 14 * seat:s + 14 * (seat + 1)]
        # in the game, 10 points, level with me, started on 10, every stall, no neutral
        assert list(block[:6]) == pytest.approx([1, 0.2, 0, 0.5, 1, 0])
        # tokens 2, 3, 4 face up: one third of the tokens each, none face down
        assert list(block[6:]) == pytest.approx([0, 0, 1 / 3, 0, 1 / 3, 0, 1 / 3, 0])
    assert not x[s + 14 * 3:s + 14 * 4].any()  # no fourth seat
    lanes = s + SEATS * 14
    assert not x[lanes:lanes + LANE * 22].any()  # empty lanes, empty squares
    districts = x[lanes + LANE * 22:lanes + LANE * 22 + 3 * 12].reshape(12, 3)
    assert districts[:, 2].sum() == 1 and not districts[:, :2].any()  # the Bobby, one place


@pytest.mark.parametrize(("players", "seed", "actions", "rules"), [
    (2, 3, 40, {}), (3, 4, 120, {"customer_order": "known"}), (4, 5, 200, {}),
    (3, 6, 400, {"bobby_tie": "pay_bank"})])
def test_seat_blocks_lanes_and_line_against_an_independent_reading(
        players: int, seed: int, actions: int, rules: dict[str, object]) -> None:
    """Every seat's view agrees with the game's public fields, read here seat by seat."""
    game = played(players, seed, actions, **rules)
    t = len(game.rules.player_tokens)
    for me in range(players):
        x = vector(game, me)
        s = GAME + RULES
        for r in range(players):
            p = (me + r) % players
            block = x[s + 14 * r:s + 14 * (r + 1)]
            assert block[1] == pytest.approx(game.scores[p] / 50)
            assert block[2] == pytest.approx((game.scores[p] - game.scores[me]) / 20)
            assert block[4] == pytest.approx(game.stalls_left[p] / game.rules.stalls)
            held = [(v, up, neutral) for v, up, neutral in zip(
                game.tok_val[p * t:(p + 1) * t], game.tok_up[p * t:(p + 1) * t],
                game.tok_neutral[p * t:(p + 1) * t], strict=True) if v]
            assert block[5] == pytest.approx(sum(1 for _, _, n in held if n) / t)
            for v in range(1, 5):
                up = sum(1 for w, u, n in held if w == v and u and not n)
                down = sum(1 for w, u, n in held if w == v and not u and not n)
                assert block[6 + 2 * (v - 1):8 + 2 * (v - 1)] == pytest.approx(
                    [up / t, down / t]), (me, r, v)
        lanes = s + SEATS * 14
        for lane in range(BOARD.n_lanes):
            row = x[lanes + LANE * lane:lanes + LANE * (lane + 1)]
            spots = BOARD.lane_len[lane]
            assert row[0] == pytest.approx(game.lane_count[lane] / spots)
            for r in range(players):
                stalls = game.lane_seat[lane * players + (me + r) % players]
                assert row[1 + r] == pytest.approx(stalls / spots)
            ends = [game.square_customer[q] for q in BOARD.lane_ends[lane]]
            for e, c in enumerate(ends):
                assert list(row[6 + 3 * e:9 + 3 * e]) == [float(c == k) for k in (1, 2, 3)]
        line = x[-8:]
        if game.rules.customer_order == "known":
            ahead = game.line[game.line_pos:game.line_pos + 4]
            want = [float(c == k) for c in ahead for k in (1, 2)]
            assert list(line[:len(want)]) == want
        else:
            assert not line.any()


def fitted(inputs: int, outputs: int, seed: int = 0) -> tuple[object, np.ndarray]:
    from sklearn.neural_network import MLPRegressor

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, inputs))
    Y = np.stack([np.tanh(X[:, k] - X[:, k + 1]) for k in range(outputs)], axis=1)
    reg = MLPRegressor(hidden_layer_sizes=(16, 8), max_iter=60, random_state=seed)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not converged in 60 epochs: enough for a check
        reg.fit(X, Y)
    return reg, rng.normal(size=(50, inputs))


def test_the_compiled_network_is_scikit_learns_prediction() -> None:
    reg, X = fitted(12, 3)
    model = Model.from_sklearn(reg)
    assert model.inputs == 12 and model.outputs == 3 and model.header["layers"] == [16, 8, 3]
    np.testing.assert_allclose(model.predict(X), reg.predict(X), rtol=0, atol=1e-12)


def test_the_model_file_round_trips_and_refuses_damage(tmp_path: Path) -> None:
    reg, X = fitted(12, 3)
    header = {"board_hash": BOARD.content_hash, "players": 3,
              "features_version": FEATURES_VERSION}
    model = Model.from_sklearn(reg, header)
    path = tmp_path / "m.model"
    model.save(path)
    again = Model.load(path)
    assert again.to_bytes() == path.read_bytes() == model.to_bytes()
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.header["board_hash"] == BOARD.content_hash
    data = path.read_bytes()
    for damaged, field in ((data[:-8], "layers"), (b"hello\n" + data, None),
                           (data.replace(b'"inputs":12', b'"inputs":"x"'), "inputs")):
        path.write_bytes(damaged)
        with pytest.raises(ModelError) as info:
            Model.load(path)
        assert info.value.source == str(path) and info.value.field == field, info.value


def test_a_model_for_another_game_is_refused_by_name() -> None:
    reg, _ = fitted(12, 2)
    game = Game(BOARD, Rules(players=3))
    n = feature_count(game.B)
    model = Model.from_sklearn(reg, {"board_hash": BOARD.content_hash, "players": 3,
                                     "features_version": FEATURES_VERSION})
    for args, field in (((BOARD.content_hash, 3, n, FEATURES_VERSION), "inputs"),
                        (("other", 3, 12, FEATURES_VERSION), "board_hash"),
                        ((BOARD.content_hash, 4, 12, FEATURES_VERSION), "players"),
                        ((BOARD.content_hash, 3, 12, FEATURES_VERSION + 1),
                         "features_version")):
        with pytest.raises(ModelError) as info:
            model.check(*args, source="m.model")  # type: ignore[arg-type]
        assert info.value.field == field and "m.model" in info.value.message
    model.check(BOARD.content_hash, 3, 12, FEATURES_VERSION, "m.model")  # its own game
    three = Model.from_sklearn(fitted(12, 3)[0], model.header)
    with pytest.raises(ModelError) as info:
        three.check(BOARD.content_hash, 3, 12, FEATURES_VERSION, "m.model")
    assert info.value.field == "layers" and "gives 3 values" in info.value.message
    assert seat_block(game.B) == 14


def test_an_ensemble_is_one_network_giving_the_mean() -> None:
    """Three fits side by side in one network (block-diagonal hidden layers, an averaging
    output layer): its outputs are the mean of theirs, by the same compiled network."""
    fits = [fitted(12, 2, seed) for seed in (0, 1, 2)]
    models = [Model.from_sklearn(reg) for reg, _ in fits]
    X = fits[0][1]
    both = Model.ensemble(models)
    assert both.header["layers"] == [48, 24, 2]
    np.testing.assert_allclose(both.predict(X), np.mean([m.predict(X) for m in models], 0),
                               rtol=0, atol=1e-12)
    with pytest.raises(ModelError):
        Model.ensemble([models[0], Model.from_sklearn(fitted(12, 3)[0])])


def test_an_ensemble_keeps_only_its_blocks(tmp_path: Path) -> None:
    """The middle layer of three 16-8 fits is 48 x 24 in three groups: 3 blocks of 16 x 8
    kept (384 weights, not 1,152), the file holds only those, reads back to the same
    outputs, and a matrix with a weight outside its blocks is refused as grouped."""
    fits = [fitted(12, 2, seed) for seed in (0, 1, 2)]
    both = Model.ensemble([Model.from_sklearn(reg) for reg, _ in fits])
    assert both.header["groups"] == [1, 3, 1]
    assert both.W.size == (12 * 48 + 48) + (48 * 8 + 24) + (24 * 2 + 2)
    both.save(tmp_path / "e.model")
    X = fits[0][1]
    np.testing.assert_array_equal(Model.load(tmp_path / "e.model").predict(X), both.predict(X))
    weights, biases = both.layers()
    assert weights[1].shape == (48, 24) and weights[1][0, 8:].any() == 0
    weights[1][0, 20] = 0.5  # input 0 (group 0) feeding an output of group 2
    with pytest.raises(ModelError) as info:
        Model.from_layers(weights, biases, groups=[1, 3, 1])
    assert info.value.field == "groups"
    assert Model.from_layers(weights, biases).W.size > both.W.size  # dense, all kept


@pytest.mark.parametrize("players", [2, 3, 4])
def test_expert_plays_the_shipped_model_of_the_player_count(players: int) -> None:
    """`expert` with no model plays `sim/games/portobello/agents/models/expert-Np.model`: trained
    for the standard board and that player count, under 2 MB, its header saying where it comes
    from (the spec and its rule sets, the data's hash, the command, the code) and how it
    played in its training's evaluation; it plays a whole game at a `Game`."""
    from sim.games.portobello.agents.expert import SHIPPED
    from sim.games.portobello.agents.expert import ExpertAgent
    from sim.games.portobello.compiled.layout import pack

    agent = ExpertAgent()
    model, source = agent.model_for(players)
    path = SHIPPED / f"expert-{players}p.model"
    assert source == str(path) and path.stat().st_size < 2 * 2**20
    h = model.header
    assert h["players"] == players and h["board_hash"] == BOARD.content_hash
    assert h["features_version"] == FEATURES_VERSION
    assert h["inputs"] == input_count(pack(BOARD, Rules(players=players)))
    assert f"players = {players}" in h["spec"] and len(h["data_hash"]) == 16
    assert h["command"].startswith("portobello agents train") and h["code"]
    assert "standard" in h["presets"] and "known-order" in h["presets"]
    lo, hi = h["evaluation"]["interval"]
    assert lo <= h["evaluation"]["win_share"] <= hi and h["evaluation"]["games"] > 0
    game = Game(BOARD, Rules(players=players))
    seats = [ExpertAgent(seed=s) for s in range(players)]
    while not game.is_over:
        if game.is_chance:
            game.apply(game.sample_chance())
            continue
        action = seats[game.seat].choose(game)
        assert action in game.legal_actions()
        game.apply(action)


def test_expert_search_values_its_leaves_by_the_network(tmp_path: Path) -> None:
    """`expert-search` is the search with the network at its leaves: it plays legal moves
    with the shipped model, its leaves' values are the network's value output from each
    seat's chair (within [0, 1]: visits credited, no rollout), and a model for another
    player count is refused by name."""
    from sim.games.portobello.agents.compiled import mcts as M
    from sim.games.portobello.agents.expert_search import ExpertSearchAgent
    from sim.games.portobello.agents.registry import make_agent

    agent = make_agent("expert-search:iterations=24")
    assert isinstance(agent, ExpertSearchAgent)
    game = Game(BOARD, Rules(players=3))
    seen = []
    agent.searched = lambda g, t, S, tree: seen.append(  # type: ignore[method-assign]
        (tree[0][:, M.NV].copy(), tree[1][:tree[0].shape[0]].copy()))
    for _ in range(12):
        if game.is_chance:
            game.apply(game.sample_chance())
            continue
        action = agent.choose(game)
        assert action in game.legal_actions()
        game.apply(action)
    assert seen and max(visits[0] for visits, _ in seen) >= 24
    # Each node's credited value is a sum of values in [0, 1], one per visit.
    assert all(((w >= 0) & (w <= visits + 1e-9)).all() for visits, w in seen)
    assert any((w % 1 != 0).any() for _, w in seen)  # network values, not whole results
    two = str(tmp_path / "two.model")
    Model.load(Path(__file__).resolve().parent.parent /
    "sim/games/portobello/agents/models/expert-2p.model"
               ).save(two)
    game = Game(BOARD, Rules(players=3))
    game.apply(game.legal_actions()[0])  # the Bobby placed: the next decision searches
    with pytest.raises(ModelError) as info:
        ExpertSearchAgent(model=two, iterations=4).choose(game)
    assert info.value.field == "players" and two in info.value.message


def test_a_run_names_the_weights_of_the_model_it_plays(tmp_path: Path) -> None:
    # A run's identity carries the checksum of every model its agents play, so a model
    # trained again under the same path is another run (never topped up as the old one),
    # and the shipped model of the player count counts like a named one.
    from dataclasses import replace

    from sim.games.portobello.agents.expert import SHIPPED
    from sim.run.config import RunConfig

    path = tmp_path / "m.model"
    shipped = Model.load(SHIPPED / "expert-2p.model")
    shipped.save(path)
    board = load_board("standard")
    config = RunConfig(board=board, board_ref="standard", rules=Rules(players=2),
                       agents=(f"expert:model={path}", "heuristic"), games=10, seed=1)
    first = config.run_id
    assert config.identity()["model_files"] == {str(path): shipped.header["checksum"]}
    w = shipped.W.copy()
    w[0] += 0.25
    replace(shipped, W=w).save(path)
    assert config.run_id != first
    plain = RunConfig(board=board, board_ref="standard", rules=Rules(players=2),
                      agents=("expert", "expert"), games=10, seed=1)
    assert plain.identity()["model_files"] == {"shipped:expert-2p.model":
                                               shipped.header["checksum"]}
