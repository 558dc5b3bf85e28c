"""The learned agent's network, evaluated in compiled code: a multilayer perceptron with
ReLU hidden layers and a linear output (what scikit-learn's `MLPRegressor` fits, so its
`predict` is the reference the tests hold this to).

The weights live in one flat float64 array `W` with an int64 index `L`: for layer k,
`L[3k]` inputs, `L[3k + 1]` outputs, `L[3k + 2]` where its block starts in `W`; a block is
the layer's weight matrix stored output by output (each output's weights contiguous, so the
inner loop walks memory in order: ten times faster than the other layout at this size),
then its biases. `sim.agents.model` builds `W` and `L` from a fitted model or a file.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def forward(W: np.ndarray, L: np.ndarray, x: np.ndarray, work: np.ndarray,
            out: np.ndarray) -> None:
    """The network's outputs for input `x`, written into `out`. `work` holds two rows at
    least as long as the widest layer (the activations, ping-ponged between layers)."""
    layers = L.shape[0] // 3
    a = 0  # the row of `work` holding the current activations (the input is `x`)
    for k in range(layers):
        n_in, n_out, at = L[3 * k], L[3 * k + 1], L[3 * k + 2]
        bias = at + n_in * n_out
        last = k == layers - 1
        for j in range(n_out):
            s = W[bias + j]
            row = at + j * n_in
            if k == 0:
                for i in range(n_in):
                    s += W[row + i] * x[i]
            else:
                for i in range(n_in):
                    s += W[row + i] * work[a, i]
            if last:
                out[j] = s
            else:
                work[1 - a, j] = s if s > 0.0 else 0.0
        a = 1 - a
