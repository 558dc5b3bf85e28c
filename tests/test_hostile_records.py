"""Records that try to make the toolkit leak, hang or crash.

A record's `board` names a shipped board or a path, and the path is opened whatever it
names; someone else's record must not be able to print pieces of your files (keys and
values of a TOML file, /proc/self/environ), exhaust memory (/dev/zero), hang (/dev/stdin,
a FIFO) or crash the reader (deep nesting, wrong types). Files named on the command line
must be regular files too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from bad_input import cli_fails
from bad_input import record_with
from bad_input import write_record

from sim.core import files
from sim.core.errors import RecordError
from sim.games.portobello.records import load_record
from sim.games.portobello.records import replay_file

SECRET = "hunter2-do-not-print"


def replay_error(path: Path) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay_file(path)
    return info.value


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero", "/dev/null"])
def test_a_record_naming_a_device_or_proc_file_is_refused_at_once(tmp_path: Path,
                                                                 target: str) -> None:
    os.environ["PORTOBELLO_TEST_SECRET"] = SECRET
    path = write_record(tmp_path / "r.json", record_with(board=target))
    err = replay_error(path)
    assert err.field == "board" and "not a regular file" in err.message
    assert SECRET not in err.message and "PORTOBELLO_TEST_SECRET" not in err.message


def test_a_record_naming_a_folder_is_refused(tmp_path: Path) -> None:
    path = write_record(tmp_path / "r.json", record_with(board=str(tmp_path)))
    assert "is a folder" in replay_error(path).message


def test_a_record_naming_another_toml_file_quotes_nothing_of_it(tmp_path: Path) -> None:
    (tmp_path / "secrets.toml").write_text(f'password = "{SECRET}"\n[lanes]\ntoken = 1\n')
    (tmp_path / "broken.toml").write_text(f'password = "{SECRET}\n')  # not valid TOML
    for name in ("secrets.toml", "broken.toml"):
        path = write_record(tmp_path / "r.json", record_with(board=name))
        message = replay_error(path).message
        assert str(tmp_path / name) in message and "not a valid board file" in message
        assert SECRET not in message and "password" not in message, message


def test_a_record_naming_stdin_does_not_hang(tmp_path: Path) -> None:
    path = write_record(tmp_path / "r.json", record_with(board="/dev/stdin"))
    proc = subprocess.run([sys.executable, "-m", "sim.cli", "replay", str(path), "--json"],
                          stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "not a regular file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_fifo_record_does_not_hang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    line = cli_fails(capsys, ["replay", str(fifo)], 1)
    assert "not a regular file" in line


def test_deeply_nested_and_wrongly_typed_records(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "portobello-record/1", "board": "standard", "actions": '
                    + "[" * 100_000 + "]" * 100_000 + "}")
    assert "nested too deeply" in cli_fails(capsys, ["replay", str(deep)], 1)
    for bad_type in (["place_bobby"], {"type": "x"}, 3, None):
        path = write_record(tmp_path / "t.json",
                            record_with(actions=[{"type": bad_type, "district": "D1"}]))
        line = cli_fails(capsys, ["replay", str(path)], 2)
        assert "unknown action type" in line


def test_huge_values_are_quoted_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_record(tmp_path / "big.json", record_with(seed="9" * 5_000_000))
    line = cli_fails(capsys, ["replay", str(path)], 1)
    assert len(line) < 400 and "seed" in line


def test_oversized_files_are_refused_without_reading(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_record(tmp_path / "r.json", record_with())
    monkeypatch.setitem(files.MAX_BYTES, "record", 100)
    with pytest.raises(RecordError, match="more than a record file may be"):
        load_record(path)


@pytest.mark.parametrize("argv", [["replay", "/dev/zero"], ["board", "check", "/dev/zero"],
                                  ["board", "check", "standard", "--rules", "/dev/zero"],
                                  ["replay", "/proc/self/environ"]])
def test_files_named_on_the_command_line_must_be_regular(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_fails(capsys, argv, 1)
    assert "not a regular file" in line and SECRET not in line


def test_a_good_record_still_replays(tmp_path: Path) -> None:
    path = write_record(tmp_path / "ok.json", record_with())
    game, out = replay_file(path)
    assert game.scores == out["scores"]
    assert json.dumps(out)
