"""The learned agent's model file: a network's weights with where they come from.

A model file is one line of text naming the format, one line of JSON (the header: the
board's content hash, the player count, the features' version and count, the layers, the
checksum of what follows, and the provenance a training writes: its spec, its data's hash,
the command, the code version, the evaluation), then the layer index (int64) and the
weights (float64), little endian. Nothing in it depends on the time or the machine, so the
same weights always give the same bytes. A model is refused, naming the file, the field and
the reason, when it is damaged (a bit flipped in its weights fails the checksum; a weight
that is not finite, a layer size that is not a whole number, a header nested without end)
or was trained for another board, player count or features layout; only a regular file of
at most `MAX_BYTES` is read (a pipe or a device named as the model would never end).

Fitting needs scikit-learn (the `learn` extra); playing a model needs only numpy and the
compiled network (`sim.games.portobello.agents.compiled.network`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.files import MAX_BYTES as FILE_BYTES
from sim.core.files import regular_file
from sim.core.outputs import atomic_write
from sim.games.portobello.agents.compiled.network import ENTRY
from sim.games.portobello.agents.compiled.network import forward

MAGIC = b"portobello-model/3\n"  # 3: weights input by input, block-diagonal layers
MAX_BYTES = FILE_BYTES["model"]  # far above any model of this toolkit (under 2 MB)
CHECKSUM = "sha256:"  # the header's `checksum`: this, then the sha256 of index and weights


def checksum(body: bytes) -> str:
    """The header's `checksum` of a model's body (its layer index and weights as stored):
    a bit flipped in a weight's exponent still plays, so only this tells it is damaged."""
    return CHECKSUM + hashlib.sha256(body).hexdigest()


def _whole(value: Any) -> bool:
    """Whether `value` is a whole number as JSON gives one (12, not 12.0 nor true)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _unfinite(W: np.ndarray) -> str | None:
    """Where the first weight that is not finite is, and what it is, or None."""
    bad = np.flatnonzero(~np.isfinite(W))
    return f"weight {bad[0]:,} is {W[bad[0]]}" if bad.size else None


def _blocks(w: np.ndarray, g: int) -> np.ndarray:
    """The diagonal blocks of `w` cut in `g` groups, as rows (input i: its weights to the
    outputs of its group)."""
    n_in, n_out = w.shape
    bi, bo = n_in // g, n_out // g
    return np.ascontiguousarray(np.concatenate(
        [w[q * bi:(q + 1) * bi, q * bo:(q + 1) * bo] for q in range(g)], axis=0))


def _expand(kept: np.ndarray, n_out: int, g: int) -> np.ndarray:
    """The full matrix of a layer from its kept blocks (`_blocks`), zeros elsewhere."""
    n_in, bo = kept.shape
    bi = n_in // g
    w = np.zeros((n_in, n_out))
    for q in range(g):
        w[q * bi:(q + 1) * bi, q * bo:(q + 1) * bo] = kept[q * bi:(q + 1) * bi]
    return w


class ModelError(PortobelloError):
    """A model file that cannot be read, or that was made for another game."""


@dataclass(frozen=True)
class Model:
    """A network (`W`, `L`: `sim.games.portobello.agents.compiled.network`) and its header."""

    W: np.ndarray
    L: np.ndarray
    header: Mapping[str, Any] = field(default_factory=dict)

    @property
    def inputs(self) -> int:
        return int(self.L[0])

    @property
    def outputs(self) -> int:
        return int(self.L[-ENTRY + 1])

    @property
    def widest(self) -> int:
        return int(max(self.L[0::ENTRY].max(), self.L[1::ENTRY].max()))

    @classmethod
    def from_layers(cls, weights: list[np.ndarray], biases: list[np.ndarray],
                    header: Mapping[str, Any] | None = None,
                    groups: list[int] | None = None) -> Model:
        """A model from layer matrices shaped (inputs, outputs), as scikit-learn's
        `coefs_`, and their biases (`intercepts_`). A layer of `g` groups (`groups[k]`,
        1 by default; the first layer's is 1) is block-diagonal: its inputs and outputs cut
        in `g` equal runs, input run q feeding output run q only, and only those blocks
        are kept."""
        groups = list(groups or [1] * len(weights))
        if len(groups) != len(weights) or groups[0] != 1 or min(groups) < 1:
            raise ModelError("one group count a layer, the first layer's 1", field="groups")
        index, blocks, at = [], [], 0
        for w, b, g in zip(weights, biases, groups, strict=True):
            w = np.asarray(w, np.float64)
            n_in, n_out = w.shape
            if np.shape(b) != (n_out,):
                raise ModelError(f"a layer of {n_out} outputs has {np.size(b)} biases",
                                 field="layers")
            if n_in % g or n_out % g:
                raise ModelError(f"a layer of {n_in} inputs and {n_out} outputs cannot be cut "
                                 f"in {g} groups", field="groups")
            kept = _blocks(w, g)
            if not np.array_equal(_expand(kept, n_out, g), w):
                raise ModelError(f"a layer said to be {g} groups has weights outside its "
                                 "blocks", field="groups")
            index += [n_in, n_out, at, g]
            blocks += [kept.reshape(-1), np.asarray(b, np.float64)]
            at += kept.size + n_out
        for k in range(1, len(weights)):
            if index[ENTRY * k] != index[ENTRY * k - ENTRY + 1]:
                raise ModelError(f"layer {k} takes {index[ENTRY * k]} inputs, the layer "
                                 f"before gives {index[ENTRY * k - ENTRY + 1]}",
                                 field="layers")
        head = dict(header or {})
        head["layers"] = [index[ENTRY * k + 1] for k in range(len(weights))]
        head["groups"] = groups
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
        for k in range(len(self.L) // ENTRY):
            n_in, n_out, at, g = (int(v) for v in self.L[ENTRY * k:ENTRY * k + ENTRY])
            size = n_in * (n_out // g)
            weights.append(_expand(self.W[at:at + size].reshape(n_in, n_out // g), n_out, g))
            biases.append(self.W[at + size:at + size + n_out].copy())
        return weights, biases

    @classmethod
    def ensemble(cls, models: list[Model], header: Mapping[str, Any] | None = None
                 ) -> Model:
        """One network whose outputs are the mean of the models' (same layer sizes): their
        hidden layers side by side, each after the first in as many groups as models
        (block-diagonal, so a member's units feed only that member's), the output layer
        averaging; the compiled network plays it unchanged."""
        parts = [m.layers() for m in models]
        shapes = {tuple(w.shape for w in ws) for ws, _ in parts}
        if len(shapes) != 1 or any(g != 1 for m in models for g in m.L[3::ENTRY]):
            raise ModelError("an ensemble needs models of one shape, none an ensemble",
                             field="layers")
        depth, K = len(parts[0][0]), len(models)
        weights, biases = [], []
        for k in range(depth):
            ws = [w[k] for w, _ in parts]
            bs = [b[k] for _, b in parts]
            last = k == depth - 1
            if k == 0:
                weights.append(np.concatenate(ws, axis=1))
            elif last:
                weights.append(np.concatenate(ws, axis=0) / K)
            else:
                n_in, n_out = ws[0].shape
                block = np.zeros((K * n_in, K * n_out))
                for q, w in enumerate(ws):
                    block[q * n_in:(q + 1) * n_in, q * n_out:(q + 1) * n_out] = w
                weights.append(block)
            biases.append(np.mean(bs, axis=0) if last else np.concatenate(bs))
        groups = [1] + [K] * (depth - 2) + [1] if depth > 1 else [1]
        return cls.from_layers(weights, biases, header or models[0].header, groups)

    # The file -----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The model file's bytes, its header's `checksum` that of its index and weights (a
        model with a weight that is not finite is never written)."""
        problem = _unfinite(np.asarray(self.W, np.float64))
        if problem is not None:
            raise ModelError(f"{problem}: a model's weights must be finite numbers",
                             field="weights")
        body = self.L.astype("<i8").tobytes() + self.W.astype("<f8").tobytes()
        header = {**self.header, "checksum": checksum(body)}
        head = json.dumps(header, sort_keys=True, separators=(",", ":"), default=str).encode()
        return MAGIC + head + b"\n" + body

    def save(self, path: str | Path) -> None:
        atomic_write(path, self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Read a model file; a damaged one is refused naming the file and what is wrong,
        and anything but a regular file of at most `MAX_BYTES` before it is opened."""
        regular_file(path, ModelError, "model")
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
        if end < 0:
            raise ModelError("its header has no end (a cut file)", source=source,
                             field="header")
        try:
            header = json.loads(data[len(MAGIC):end])
        except RecursionError:
            raise ModelError("its header is nested too deeply (a damaged file)",
                             source=source, field="header") from None
        except ValueError as exc:
            raise ModelError(f"its header is not readable ({type(exc).__name__})",
                             source=source, field="header") from None
        if not isinstance(header, dict):
            raise ModelError("its header is not a JSON object", source=source, field="header")
        layers, inputs = header.get("layers"), header.get("inputs")
        if not _whole(inputs) or inputs < 1:
            raise ModelError(f"must be a whole number of at least 1, got {quote(inputs)}",
                             source=source, field="inputs")
        if not isinstance(layers, list) or not layers or not all(
                _whole(n) and n >= 1 for n in layers):
            raise ModelError("must be a list of whole numbers of at least 1 (the layers' "
                             f"sizes), got {quote(layers)}", source=source, field="layers")
        sizes = [inputs, *layers]
        groups = header.get("groups", [1] * len(layers))
        if not isinstance(groups, list) or len(groups) != len(layers) or any(
                not _whole(g) or g < 1 or a % g or b % g
                for g, (a, b) in zip(groups, pairwise(sizes), strict=False)):
            raise ModelError("its header's groups do not fit its layers", source=source,
                             field="groups")
        n_index = ENTRY * len(layers)
        n_weights = sum(a * (b // g) + b for g, (a, b) in zip(groups, pairwise(sizes),
                                                              strict=True))
        body = data[end + 1:]
        if len(body) != 8 * (n_index + n_weights):
            raise ModelError(f"holds {len(body)} bytes of weights, its layers need "
                             f"{8 * (n_index + n_weights)} (a damaged or cut file)",
                             source=source, field="layers")
        if "checksum" not in header:
            raise ModelError("the header has no checksum of the weights (a model written "
                             "before models carried one, or a damaged file); train it again",
                             source=source, field="checksum")
        if header["checksum"] != checksum(body):
            raise ModelError("the weights do not match their checksum: the file is damaged",
                             source=source, field="checksum")
        L = np.frombuffer(body[:8 * n_index], "<i8").astype(np.int64)
        W = np.frombuffer(body[8 * n_index:], "<f8").astype(np.float64)
        expected, at = [], 0
        for g, (a, b) in zip(groups, pairwise(sizes), strict=True):
            expected += [a, b, at, g]
            at += a * (b // g) + b
        if L.tolist() != expected:
            raise ModelError("its layer index does not match its header's layers (a damaged "
                             "file)", source=source, field="layers")
        problem = _unfinite(W)
        if problem is not None:
            raise ModelError(f"{problem}: a model's weights must be finite numbers",
                             source=source, field="weights")
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
        X = np.ascontiguousarray(X, np.float64)
        out = np.zeros((X.shape[0], self.outputs))
        h, work = np.zeros(int(self.L[1])), np.zeros((2, self.widest))
        for i in range(X.shape[0]):
            forward(self.W, self.L, X[i], h, work, out[i])
        return out
