"""Bad input around the learned agent's files: `portobello agents train --out` into a folder
another command owns is refused in one line naming the folder and its command, before
anything is written there."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_input import cli_fails
from bad_input import write

from sim.cli.command import main

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
