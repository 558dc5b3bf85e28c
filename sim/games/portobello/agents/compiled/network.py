"""The learned agent's network, evaluated in compiled code: a multilayer perceptron with
ReLU hidden layers and a linear output (what scikit-learn's `MLPRegressor` fits, so its
`predict` is the reference the tests hold this to).

The weights live in one flat float64 array `W` with an int64 index `L`: for layer k,
`L[4k]` inputs, `L[4k + 1]` outputs, `L[4k + 2]` where its block starts in `W`, `L[4k + 3]`
its groups g (`ENTRY` entries a layer); a block is the layer's weights stored
input by input (each input's weights to the outputs it feeds, contiguous), then its biases. A layer
of g groups is block-diagonal: input run q of n_in / g feeds output run q of n_out / g only
(an ensemble's members side by side, `sim.games.portobello.agents.model.Model.ensemble`), and only
those weights are stored. Input by input, because most inputs are zero (a position's features
are mostly empty, half the hidden units are cut by ReLU) and a zero input is skipped
whole.

The options of one decision lead to positions that differ from the position itself in a
few features, so the learned agent computes the first layer once for the position
(`first_layer`) and moves it by the features an option changed (`first_layer_moved`)
before the rest of the network (`rest`). `sim.games.portobello.agents.model` builds `W` and `L`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ENTRY = 4  # a layer's entries in the index `L`: inputs, outputs, block start, groups


@njit(cache=True, _nrt=False, inline="always")
def _add_row(W: np.ndarray, row: int, v: float, h: np.ndarray, first: int, count: int) -> None:
    """h[first:first + count] += v * W[row:row + count]: one input's weights, scaled."""
    for j in range(count):
        h[first + j] += W[row + j] * v


@njit(cache=True, _nrt=False)
def first_layer(W: np.ndarray, L: np.ndarray, x: np.ndarray, h: np.ndarray) -> None:
    """The first layer's sums (before ReLU) for input `x`, written into `h` (the first
    layer has one group)."""
    n_in, n_out, at = L[0], L[1], L[2]
    bias = at + n_in * n_out
    for j in range(n_out):
        h[j] = W[bias + j]
    for i in range(n_in):
        if x[i] != 0.0:
            _add_row(W, at + i * n_out, x[i], h, 0, n_out)


@njit(cache=True, _nrt=False)
def first_layer_moved(W: np.ndarray, L: np.ndarray, x: np.ndarray, x0: np.ndarray,
                      h0: np.ndarray, h: np.ndarray) -> None:
    """The first layer's sums for input `x`, from those of input `x0` (`h0`): only the
    inputs that differ are read."""
    n_in, n_out, at = L[0], L[1], L[2]
    for j in range(n_out):
        h[j] = h0[j]
    for i in range(n_in):
        if x[i] != x0[i]:
            _add_row(W, at + i * n_out, x[i] - x0[i], h, 0, n_out)


@njit(cache=True, _nrt=False)
def rest(W: np.ndarray, L: np.ndarray, h: np.ndarray, work: np.ndarray,
         out: np.ndarray) -> None:
    """The network's outputs, written into `out`, from the first layer's sums `h`. `work`
    holds two rows at least as long as the widest layer (the activations, ping-ponged
    between layers)."""
    layers = L.shape[0] // ENTRY
    if layers == 1:
        for j in range(L[1]):
            out[j] = h[j]
        return
    a = 0
    for j in range(L[1]):
        work[0, j] = h[j] if h[j] > 0.0 else 0.0
    for k in range(1, layers):
        e = ENTRY * k
        n_in, n_out, at, g = L[e], L[e + 1], L[e + 2], L[e + 3]
        bi, bo = n_in // g, n_out // g
        bias = at + n_in * bo
        last = k == layers - 1
        for j in range(n_out):
            work[1 - a, j] = W[bias + j]
        for i in range(n_in):
            if work[a, i] != 0.0:  # the input's group's outputs only
                _add_row(W, at + i * bo, work[a, i], work[1 - a], (i // bi) * bo, bo)
        if last:
            for j in range(n_out):
                out[j] = work[1 - a, j]
        else:
            for j in range(n_out):
                if work[1 - a, j] < 0.0:
                    work[1 - a, j] = 0.0
        a = 1 - a


@njit(cache=True, _nrt=False)
def forward(W: np.ndarray, L: np.ndarray, x: np.ndarray, h: np.ndarray, work: np.ndarray,
            out: np.ndarray) -> None:
    """The network's outputs for input `x`, written into `out` (`h`: the first layer's
    width, `work`: see `rest`)."""
    first_layer(W, L, x, h)
    rest(W, L, h, work, out)
