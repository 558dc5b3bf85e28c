"""Bad input around the learned agent's files. A model file (`expert:model=FILE`,
`expert-search:model=FILE`) is refused in one line naming the file, the field and the
reason when it is a pipe (read, it would never end), when its header is nested without end,
when a bit flipped in its weights still leaves them playable (only their checksum tells),
when its layer sizes are not whole numbers, or when a weight is not finite; and
`portobello agents train --out` into a folder another command owns is refused in one line
naming the folder and its command, before anything is written there."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bad_input import REPO
from bad_input import check_error
from bad_input import cli_fails
from bad_input import write

from sim.cli.command import main
from sim.games.portobello.agents.expert import SHIPPED
from sim.games.portobello.agents.model import ENTRY
from sim.games.portobello.agents.model import MAGIC
from sim.games.portobello.agents.model import Model
from sim.games.portobello.agents.model import ModelError
from sim.games.portobello.agents.model import checksum

# The smallest training the spec checks accept: were it run, it would write its rows
# (`round-0.npz`), its models and its log into the folder.
TINY_SPEC = """\
name = "tiny"
players = 2
teacher = "fastmcts:iterations=2,width=2"
rounds = 1
games = 1
hidden = [4]
epochs = 1
fits = 1
eval_games = 0
"""


def _parts(data: bytes) -> tuple[dict[str, Any], bytes]:
    """A model file's header and body (its layer index and weights)."""
    end = data.index(b"\n", len(MAGIC))
    return json.loads(data[len(MAGIC):end]), data[end + 1:]


def _file(header: Mapping[str, Any], body: bytes) -> bytes:
    """A model file of this header and body, written as the toolkit writes one."""
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    return MAGIC + head + b"\n" + body


def _small() -> Model:
    """A small network: 3 inputs, layers of 4 and 2."""
    rng = np.random.default_rng(5)
    return Model.from_layers([rng.normal(size=(3, 4)), rng.normal(size=(4, 2))],
                             [rng.normal(size=4), rng.normal(size=2)], {"players": 2})


def _refused(path: Path, field: str, reason: str) -> None:
    with pytest.raises(ModelError) as info:
        Model.load(path)
    check_error(info.value, path, field, reason)


def test_a_pipe_named_as_the_model_is_refused_at_once(tmp_path: Path) -> None:
    """Opened, a FIFO would wait for a writer for ever: it is refused before it is opened
    (the command runs apart, so that a hang fails the test instead of stopping it)."""
    pipe = tmp_path / "expert.model"
    os.mkfifo(pipe)
    try:
        done = subprocess.run([sys.executable, "-m", "sim.cli", "play", "--agents",
                               f"expert:model={pipe}", "--seed", "1"], capture_output=True,
                              text=True, cwd=REPO, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a pipe named as the model did not end")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == (f"portobello: error: {pipe}: is not a regular file; a model "
                           "file is expected\n")


def test_a_header_nested_without_end_is_refused(tmp_path: Path) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    path = write(tmp_path / "deep.model", MAGIC + deep + b"\n")
    _refused(path, "header", "nested too deeply")


def test_a_flipped_exponent_bit_in_a_shipped_models_weights_is_refused(
        tmp_path: Path) -> None:
    """One bit of a weight's exponent flipped doubles or halves it: the model still loads
    finite weights and plays, so only the checksum of the weights shows the damage."""
    path = tmp_path / "expert-2p.model"
    shutil.copyfile(SHIPPED / "expert-2p.model", path)
    data = bytearray(path.read_bytes())
    header, body = _parts(bytes(data))
    first = len(data) - len(body) + 8 * ENTRY * len(header["layers"])  # the first weight
    before = struct.unpack("<d", data[first:first + 8])[0]
    data[first + 6] ^= 0x10  # bit 52: the exponent's lowest bit
    after = struct.unpack("<d", data[first:first + 8])[0]
    assert np.isfinite(after) and abs(after) in (2 * abs(before), abs(before) / 2)
    path.write_bytes(bytes(data))
    _refused(path, "checksum", "the weights do not match their checksum: the file is damaged")
    assert Model.load(SHIPPED / "expert-2p.model").W[0] == before  # the shipped one intact


@pytest.mark.parametrize(("key", "value"), [("layers", [4.0, 2]), ("layers", [4.7, 2]),
                                            ("layers", [4, True]), ("inputs", 3.0),
                                            ("inputs", 3.7)])
def test_a_layer_size_that_is_not_a_whole_number_is_refused(
        tmp_path: Path, key: str, value: object) -> None:
    header, body = _parts(_small().to_bytes())
    path = write(tmp_path / "m.model", _file({**header, key: value}, body))
    _refused(path, key, "whole number")


def test_a_weight_that_is_not_finite_is_refused(tmp_path: Path) -> None:
    """Refused when read, even under a checksum that matches it, and never written."""
    model = _small()
    header, body = _parts(model.to_bytes())
    W = model.W.copy()
    W[5] = np.nan
    body = model.L.astype("<i8").tobytes() + W.astype("<f8").tobytes()
    path = write(tmp_path / "m.model", _file({**header, "checksum": checksum(body)}, body))
    _refused(path, "weights", "weight 5 is nan")
    with pytest.raises(ModelError) as info:
        Model(W, model.L, model.header).save(tmp_path / "never.model")
    assert info.value.field == "weights" and "weight 5 is nan" in info.value.reason
    assert not (tmp_path / "never.model").exists()


def test_a_model_is_written_with_the_checksum_of_its_weights(tmp_path: Path) -> None:
    """The same weights give the same bytes; the shipped models carry their checksum; a
    model without one (written before models carried it) is refused by name."""
    model = _small()
    header, body = _parts(model.to_bytes())
    assert header["checksum"] == checksum(body) and model.to_bytes() == _small().to_bytes()
    for players in (2, 3, 4):
        shipped = SHIPPED / f"expert-{players}p.model"
        header, body = _parts(shipped.read_bytes())
        assert header["checksum"] == checksum(body)
        assert Model.load(shipped).to_bytes() == shipped.read_bytes()
    header, body = _parts(model.to_bytes())
    del header["checksum"]
    path = write(tmp_path / "old.model", _file(header, body))
    _refused(path, "checksum", "no checksum")


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes, to show that nothing was added or changed."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_train_refuses_a_run_folder_and_writes_nothing_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["simulate", "--players", "2", "--agents", "random", "--games", "10",
                 "--shard-size", "10", "--seed", "3", "--quiet", "--out", str(run)]) == 0
    capsys.readouterr()
    before = _files(run)
    assert "manifest.json" in before
    spec = write(tmp_path / "tiny.toml", TINY_SPEC)
    line = cli_fails(capsys, ["agents", "train", str(spec), "--out", str(run)], 1)
    assert line.startswith(f"portobello: error: {run}: --out: is {run.resolve()}, a run "
                           "folder (`portobello simulate`)"), line
    assert _files(run) == before
    assert not list(run.rglob("*.model")) and not list(run.rglob("*.npz"))
