"""Agent specs every command refuses in one line: a training spec's `teacher` that names no
agent the toolkit has is refused naming the spec file and its `teacher` field, before any
game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from bad_input import check_error
from bad_input import cli_fails
from bad_input import write

from sim.learning.spec import TrainingError
from sim.learning.spec import load_spec

SPEC = 'name = "tiny"\nplayers = 2\nteacher = {teacher}\n'


def test_an_unknown_teacher_names_the_spec_file_and_its_teacher_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = write(tmp_path / "tiny.toml", SPEC.format(teacher='"alphazero:iterations=10"'))
    with pytest.raises(TrainingError) as info:
        load_spec(spec)
    check_error(info.value, spec, "teacher", "unknown agent 'alphazero'")
    line = cli_fails(capsys, ["agents", "train", str(spec), "--out", str(tmp_path / "t")], 1)
    assert f"{spec}: teacher: unknown agent 'alphazero'" in line
    assert not (tmp_path / "t").exists()
