"""Can a network replace the search's rollouts at its leaves? A measurement, not a feature.

    .venv/bin/python benchmarks/leaf_values.py [--players 2] [--games 3000] [--rollouts 16]
        [--every 3] [--hidden 64-32] [--epochs 10] [--seed 1] [--out leaf.model]

The positions of tuned-heuristic games in every seat (standard rules; a position kept with
probability 1/`every`, at decisions only, after the Bobby is placed), each valued by the
mean of `rollouts` rollouts of `fastmcts` itself from there (its planner policy to its
horizon, then its squashed evaluation margin, for every seat). One network (scikit-learn,
the `learn` extra) learns that mean from each seat's chair (the learned agent's features,
as `expert-search` reads a leaf); the last tenth of the games is held out. The model file
written plays as `expert-search:model=OUT`; docs/learning.md has the figures and the
tournament against `fastmcts:iterations=300` that judges it.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from sim.games.portobello.agents.compiled import mcts as M
from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
from sim.games.portobello.agents.compiled.features import features
from sim.games.portobello.agents.compiled.features import input_count
from sim.games.portobello.agents.compiled.features import option_inputs
from sim.games.portobello.agents.fast_mcts import FastMCTSAgent
from sim.games.portobello.agents.model import Model
from sim.games.portobello.board import load_board
from sim.games.portobello.codes import CHANCE
from sim.games.portobello.codes import OVER
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules


def rows(players: int, games: int, rollouts: int, every: int, seed: int
         ) -> tuple[np.ndarray, np.ndarray, float]:
    """(features, target) rows: a kept position from each seat's chair, and that seat's
    mean rollout value there; and how far one rollout strays from its position's mean
    (the root mean square over positions and seats of the rollouts' standard deviation)."""
    board, rules = load_board("standard"), Rules(players=players)
    lineup = ["heuristic"] * players
    seeds = [seed * 100_000 + i for i in range(games)]
    logs = CompiledEngine(board, rules, lineup).play(seeds, [lineup] * games,
                                                     keep_log=True).logs
    search = FastMCTSAgent(seed)
    pick = np.random.default_rng(seed)
    X_rows: list[np.ndarray] = []
    y_rows: list[float] = []
    variances: list[float] = []
    for s, log in zip(seeds, logs or [], strict=True):
        g = Game(board, rules, seed=s)
        t = search.tools(g)
        rng = search._generator()
        settings = t["settings"].copy()
        settings[M.EXPAND] = 1e18  # the root is never expanded: each iteration a rollout
        tree = M.new_tree(4, 1)
        X = np.zeros(int(input_count(g.B)))
        for action in log:
            if g.phase not in (CHANCE, OVER) and g.bobby >= 0 and pick.random() < 1 / every:
                S = g.S.copy()
                values = np.zeros((rollouts, players))
                for k in range(rollouts):
                    tree[5][:] = 0
                    M._new_node(tree)
                    M.iterate(t["B"], S, tree, t["P_tree"], t["P_roll"], t["Rs_me"],
                              t["Rs_free"], g.seat, t["WF"], t["WI"], rng, settings, 1,
                              t["path"], t["order"], t["values"], t["scratch"], None)
                    values[k] = t["values"]
                mean = values.mean(axis=0)
                variances.extend(values.var(axis=0, ddof=1))
                for p in range(players):
                    features(g.B, S, p, X)
                    option_inputs(g.B, 0, int(settings[M.WIDTH]), 0.0, X)
                    X_rows.append(X.copy())
                    y_rows.append(float(mean[p]))
            g.apply(action)
    return np.array(X_rows), np.array(y_rows), float(np.sqrt(np.mean(variances)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=3000)
    p.add_argument("--rollouts", type=int, default=16)
    p.add_argument("--every", type=int, default=3)
    p.add_argument("--hidden", default="64-32")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("leaf.model"))
    args = p.parse_args()
    from sklearn.neural_network import MLPRegressor
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    X, y, one = rows(args.players, args.games, args.rollouts, args.every, args.seed)
    labelled = time.perf_counter() - start
    cut = int(len(y) * 0.9)  # rows in game order: the last games held out
    hidden = tuple(int(h) for h in args.hidden.split("-"))
    reg = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", solver="adam",
                       max_iter=args.epochs, batch_size=256, random_state=args.seed, tol=0.0,
                       n_iter_no_change=args.epochs + 1, shuffle=True)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not converged": the epochs are the budget
        reg.fit(X[:cut], np.stack([y[:cut], np.zeros(cut)], axis=1))  # value, no advantage
    err = reg.predict(X[cut:])[:, 0] - y[cut:]
    fitted = time.perf_counter() - start - labelled
    rmse, r2 = np.sqrt((err ** 2).mean()), 1 - (err ** 2).mean() / y[cut:].var()
    print(f"{len(y):,} rows ({labelled:.0f} s to label, {fitted:.0f} s to fit); held out: "
          f"rmse {rmse:.4f} against a target spread (std) of {y[cut:].std():.4f}, R2 "
          f"{r2:.3f}; one rollout strays {one:.4f} (std) from its position's mean")
    header = {"board_hash": load_board("standard").content_hash, "players": args.players,
              "features_version": FEATURES_VERSION,
              "provenance": f"benchmarks/leaf_values.py, {args.rollouts} rollouts a position"}
    Model.from_sklearn(reg, header).save(args.out)
    print(f"model: {args.out} (play it as expert-search:model={args.out})")


if __name__ == "__main__":
    main()
