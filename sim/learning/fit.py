"""Fitting the learned agent's network to the teacher's rows (scikit-learn, the `learn`
extra).

The target of an option's row is the search's mean value for the chooser there; for the
option the search took it is mixed with how the game really ended for the chooser
(`mix` of the squashed final margin), so the values are anchored to real outcomes, not
only to the search's rollouts. Each row weighs its share of its decision's visits: an
option the search tried often has a well-measured value, one it never tried has none and
is left out. One hidden-layer size list, one seed and one thread give the same network
bytes every time.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from sim.games.portobello.agents.model import Model
from sim.learning.teacher import Rows

VALUE, ADVANTAGE = 0, 1  # the network's outputs


def targets(rows: Rows, mix: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows kept, their targets, their weights): the options the search tried, each
    weighing the same. Two
    targets a row: the value (`VALUE`: the search's mean value for the chooser, mixed with
    the real outcome for the option it took) and the advantage (`ADVANTAGE`: the search's
    mean value minus its decision's visit-weighted mean), so that the choice between the
    options of one position is learned apart from how good the position is. The outcome
    stays out of the advantage: one game's result, on one option only, would bury the
    search's differences between siblings under its noise."""
    keep = rows.visits > 0
    value = np.where(rows.chosen == 1, mix * rows.outcome + (1 - mix) * rows.value,
                     rows.value)
    totals = np.bincount(rows.decision, weights=rows.visits)
    share = rows.visits / np.maximum(totals[rows.decision], 1)
    mean = np.bincount(rows.decision, weights=share * rows.value)
    y = np.stack([value, rows.value - mean[rows.decision]], axis=1)
    return keep, y[keep], np.ones(int(keep.sum()))


def fit(rows: Rows, hidden: tuple[int, ...], seed: int, epochs: int, mix: float,
        header: Mapping[str, Any] | None = None, fits: int = 1) -> tuple[Model, float]:
    """The mean of `fits` networks fitted to `rows` (seeds `seed`, `seed + 1`, ...);
    returns it and its mean squared error (both outputs)."""
    from sklearn.neural_network import MLPRegressor
    from threadpoolctl import threadpool_limits

    keep, y, w = targets(rows, mix)
    X = rows.X[keep]
    members = []
    for k in range(fits):
        reg = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", solver="adam",
                           max_iter=epochs, batch_size=256, random_state=seed + k, tol=0.0,
                           n_iter_no_change=epochs + 1, shuffle=True)
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "not converged": the epochs are the budget
            reg.fit(X, y, sample_weight=w)
        members.append(Model.from_sklearn(reg, header))
    model = members[0] if fits == 1 else Model.ensemble(members, header)
    pred = model.predict(X)
    return model, float(np.average(((pred - y) ** 2).mean(axis=1), weights=w))
