"""The learned agent's model file: a network's weights with where they come from.

A model file is one line of text naming the format, one line of JSON (the header: the
board's content hash, the player count, the features' version and count, the layers, and
the provenance a training writes: its spec, its data's hash, the command, the code
version, the evaluation), then the layer index (int64) and the weights (float64), little
endian. Nothing in it depends on the time or the machine, so the same weights always give
the same bytes. A model is refused, naming the file, the field and the reason, when it is
damaged or was trained for another board, player count or features layout.

Fitting needs scikit-learn (the `learn` extra); playing a model needs only numpy and the
compiled network (`sim.agents.compiled.network`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from sim.engine.errors import PortobelloError
from sim.engine.outputs import atomic_write

MAGIC = b"portobello-model/2\n"  # 2: weights stored input by input
MAX_BYTES = 16 * 1024 * 1024  # far above any model of this toolkit (under 2 MB)


class ModelError(PortobelloError):
    """A model file that cannot be read, or that was made for another game."""


@dataclass(frozen=True)
class Model:
    """A network (`W`, `L`: `sim.agents.compiled.network`) and its header."""

    W: np.ndarray
    L: np.ndarray
    header: Mapping[str, Any] = field(default_factory=dict)

    @property
    def inputs(self) -> int:
        return int(self.L[0])

    @property
    def outputs(self) -> int:
        return int(self.L[-2])

    @property
    def widest(self) -> int:
        return int(max(self.L[0::3].max(), self.L[1::3].max()))

    @classmethod
    def from_layers(cls, weights: list[np.ndarray], biases: list[np.ndarray],
                    header: Mapping[str, Any] | None = None) -> Model:
        """A model from layer matrices shaped (inputs, outputs), as scikit-learn's
        `coefs_`, and their biases (`intercepts_`)."""
        index, blocks, at = [], [], 0
        for w, b in zip(weights, biases, strict=True):
            w = np.asarray(w, np.float64)
            n_in, n_out = w.shape
            if np.shape(b) != (n_out,):
                raise ModelError(f"a layer of {n_out} outputs has {np.size(b)} biases",
                                 field="layers")
            index += [n_in, n_out, at]
            blocks += [np.ascontiguousarray(w).reshape(-1), np.asarray(b, np.float64)]
            at += n_in * n_out + n_out
        for k in range(1, len(weights)):
            if index[3 * k] != index[3 * k - 2]:
                raise ModelError(f"layer {k} takes {index[3 * k]} inputs, the layer before "
                                 f"gives {index[3 * k - 2]}", field="layers")
        head = dict(header or {})
        head["layers"] = [index[3 * k + 1] for k in range(len(weights))]
        head["inputs"] = index[0]
        return cls(np.concatenate(blocks), np.asarray(index, np.int64), head)

    @classmethod
    def from_sklearn(cls, regressor: Any, header: Mapping[str, Any] | None = None) -> Model:
        """A model from a fitted `sklearn.neural_network.MLPRegressor` (ReLU hidden layers,
        identity output)."""
        if getattr(regressor, "activation", None) != "relu":
            raise ModelError("the network must use ReLU hidden layers", field="activation")
        return cls.from_layers(list(regressor.coefs_), list(regressor.intercepts_), header)

    def layers(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The layer matrices, shaped (inputs, outputs), and biases (`from_layers` back)."""
        weights, biases = [], []
        for k in range(len(self.L) // 3):
            n_in, n_out, at = (int(v) for v in self.L[3 * k:3 * k + 3])
            weights.append(self.W[at:at + n_in * n_out].reshape(n_in, n_out).copy())
            biases.append(self.W[at + n_in * n_out:at + n_in * n_out + n_out].copy())
        return weights, biases

    @classmethod
    def ensemble(cls, models: list[Model], header: Mapping[str, Any] | None = None
                 ) -> Model:
        """One network whose outputs are the mean of the models' (same inputs, outputs and
        depth): their hidden layers side by side, block-diagonal, the output layer
        averaging; the compiled network plays it unchanged."""
        parts = [m.layers() for m in models]
        depth = {len(w) for w, _ in parts}
        if len(depth) != 1 or len({m.inputs for m in models}) != 1 \
                or len({m.outputs for m in models}) != 1:
            raise ModelError("an ensemble needs models of one shape", field="layers")
        weights, biases = [], []
        for k in range(depth.pop()):
            ws = [w[k] for w, _ in parts]
            bs = [b[k] for _, b in parts]
            last = k == len(parts[0][0]) - 1
            if k == 0:
                weights.append(np.concatenate(ws, axis=1))
            else:
                rows = sum(w.shape[0] for w in ws)
                cols = ws[0].shape[1] if last else sum(w.shape[1] for w in ws)
                block = np.zeros((rows, cols))
                r = c = 0
                for w in ws:
                    if last:
                        block[r:r + w.shape[0], :] = w / len(ws)
                    else:
                        block[r:r + w.shape[0], c:c + w.shape[1]] = w
                        c += w.shape[1]
                    r += w.shape[0]
                weights.append(block)
            biases.append(np.mean(bs, axis=0) if last else np.concatenate(bs))
        return cls.from_layers(weights, biases, header or models[0].header)

    # The file -----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        head = json.dumps(dict(self.header), sort_keys=True, separators=(",", ":"),
                          default=str).encode()
        return (MAGIC + head + b"\n" + self.L.astype("<i8").tobytes()
                + self.W.astype("<f8").tobytes())

    def save(self, path: str | Path) -> None:
        atomic_write(path, self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Read a model file; a damaged one is refused naming the file and what is wrong."""
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise ModelError(f"cannot read the model: {exc.strerror or exc}",
                             source=str(path)) from None
        return cls.from_bytes(data, str(path))

    @classmethod
    def from_bytes(cls, data: bytes, source: str) -> Model:
        """A model from a model file's bytes (`to_bytes`); `source` names them in errors."""
        if len(data) > MAX_BYTES:
            raise ModelError(f"larger than {MAX_BYTES // 2**20} MB: not a model file",
                             source=source)
        if not data.startswith(MAGIC):
            raise ModelError("not a portobello model file (its first line is not "
                             f"{MAGIC.decode().strip()!r})", source=source)
        end = data.find(b"\n", len(MAGIC))
        try:
            header = json.loads(data[len(MAGIC):end])
            layers = [int(n) for n in header["layers"]]
            inputs = int(header["inputs"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"its header is not readable ({type(exc).__name__})",
                             source=source, field="header") from None
        if end < 0 or not layers or inputs < 1 or min(layers) < 1:
            raise ModelError("its header names no layers", source=source, field="layers")
        sizes = [inputs, *layers]
        n_index = 3 * len(layers)
        n_weights = sum(a * b + b for a, b in pairwise(sizes))
        body = data[end + 1:]
        if len(body) != 8 * (n_index + n_weights):
            raise ModelError(f"holds {len(body)} bytes of weights, its layers need "
                             f"{8 * (n_index + n_weights)} (a damaged or cut file)",
                             source=source, field="layers")
        L = np.frombuffer(body[:8 * n_index], "<i8").astype(np.int64)
        W = np.frombuffer(body[8 * n_index:], "<f8").astype(np.float64)
        expected, at = [], 0
        for a, b in pairwise(sizes):
            expected += [a, b, at]
            at += a * b + b
        if L.tolist() != expected or not np.all(np.isfinite(W)):
            raise ModelError("its layer index or weights are damaged", source=source,
                             field="layers")
        return cls(W, L, header)

    def check(self, board_hash: str, players: int, n_features: int, version: int,
              source: str) -> None:
        """Refuse a model made for another board, player count or features layout."""
        h = self.header
        for name, want in (("board_hash", board_hash), ("players", players),
                           ("features_version", version), ("inputs", n_features)):
            if h.get(name) != want:
                raise ModelError(f"was trained for {name.replace('_', ' ')} "
                                 f"{h.get(name)!r}, this game has {want!r}; use a model "
                                 "trained for it", source=source, field=name)
        if self.outputs != 2:
            raise ModelError(f"gives {self.outputs} values; the learned agent's network "
                             "gives two (a position's value from one seat's chair, and the "
                             "option's advantage)", source=source, field="layers")

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The network's outputs for every row of `X`, by the compiled network."""
        from sim.agents.compiled.network import forward

        X = np.ascontiguousarray(X, np.float64)
        out = np.zeros((X.shape[0], self.outputs))
        h, work = np.zeros(int(self.L[1])), np.zeros((2, self.widest))
        for i in range(X.shape[0]):
            forward(self.W, self.L, X[i], h, work, out[i])
        return out
