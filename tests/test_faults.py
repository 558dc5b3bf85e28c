"""Fault injection: killed processes, damaged and missing shards, full disks, racing writers.

Whatever goes wrong, the toolkit must either finish with the right data or stop with one
line naming the problem and what to do, and the same command must then finish the job with
exactly the games an uninterrupted run has: never exit 0 with wrong or partial data, never
a traceback. (A killed report: tests/test_outputs.py; hostile records:
tests/test_hostile_records.py; the lock raced by many processes: tests/test_lock.py; boards
at the size limits: tests/test_limits.py.)
"""

from __future__ import annotations

import errno
import json
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import kill_after_shards

from analysis.load import LoadError
from analysis.load import load_run
from sim.cli import main
from sim.run import store

ARGS = ["simulate", "--players", "3", "--agents", "random,greedy,random", "--seed", "21",
        "--shard-size", "20", "--records", "--events", "--quiet"]


def run_files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
            if p.is_file() and p.name != "manifest.json"}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uninterrupted run every faulty one must end up equal to."""
    out = tmp_path_factory.mktemp("clean") / "run"
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("moment", [1, 4, 9])
def test_sigkill_at_random_moments_then_resume(tmp_path: Path, clean: Path,
                                               moment: int) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sim.cli", *ARGS, "--games", "400", "--out", str(out),
           "--engine", "python"]
    written = kill_after_shards(cmd, out, moment)
    assert written < 20, "killed part-way"
    with pytest.raises(LoadError):
        load_run(out)
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    assert run_files(out) == run_files(clean)
    assert load_run(out).games().collect().height == 400


def damage(path: Path, how: str, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    if how == "middle":  # flip bytes inside the file, leaving the Parquet footer intact
        for i in rng.sample(range(len(data) // 4, len(data) // 2), 8):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "truncated":
        path.write_bytes(bytes(data[:len(data) // 2]))
    else:
        path.unlink()


@pytest.mark.parametrize("table", ["games", "players", "events", "records"])
@pytest.mark.parametrize("how", ["middle", "truncated", "deleted"])
def test_damaged_shards_are_found_and_replayed(tmp_path: Path, clean: Path, table: str,
                                               how: str) -> None:
    out = tmp_path / "run"
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    rng = random.Random(f"{table}-{how}")
    shard = rng.randrange(20)
    victim = store.shard_path(out, table, shard)
    damage(victim, how, rng)
    # The loader and the report refuse it, naming the file.
    with pytest.raises(LoadError, match=str(victim)):
        load_run(out)
    partial = load_run(out, allow_partial=True)
    assert partial.partial and partial.games_held == 380
    # The same command plays exactly that shard again.
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["timings"]["games_played"] == 20
    assert manifest["timings"]["shards_repaired"] == 1
    assert run_files(out) == run_files(clean)


def test_a_deleted_checksum_file_replays_its_shard(tmp_path: Path, clean: Path) -> None:
    out = tmp_path / "run"
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    store.checksum_path(out, 7).unlink()
    with pytest.raises(LoadError, match="part-00007"):
        load_run(out)
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    assert run_files(out) == run_files(clean)


def test_a_full_disk_stops_with_one_line_and_resumes(tmp_path: Path, clean: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    out = tmp_path / "run"
    real = store.os.fsync
    calls = {"n": 0}

    def full_disk(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] > 23:  # some shards in, then the disk fills up
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(store.os, "fsync", full_disk)
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the disk is full" in err[0] and "Traceback" not in err[0]
    # the file being written when the disk filled is named
    assert re.search(rf"error: {re.escape(str(out))}/\w+/part-\d{{5}}\.\w+: no space", err[0])
    assert not list(out.rglob(".*.tmp-*")), "no temporary file left behind"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    monkeypatch.setattr(store.os, "fsync", real)
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    assert run_files(out) == run_files(clean)


def test_racing_writers_leave_one_correct_run(tmp_path: Path, clean: Path) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sim.cli", *ARGS, "--games", "400", "--out", str(out),
           "--engine", "python"]
    procs = [subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in procs]
    assert any(code == 0 for code, _ in results)
    for code, err in results:
        assert "Traceback" not in err
        if code != 0:
            assert "another run is writing this folder" in err
    assert main([*ARGS, "--games", "400", "--out", str(out)]) == 0
    assert run_files(out) == run_files(clean)


@pytest.mark.parametrize("out_kind", ["file", "proc", "readonly"])
def test_unwritable_outputs_are_one_line(tmp_path: Path, out_kind: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    if out_kind == "file":
        out = tmp_path / "a-file"
        out.write_text("x")
    elif out_kind == "proc":
        out = Path("/proc/portobello-run")
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        out = ro / "run"
        if subprocess.run(["touch", str(ro / "probe")], capture_output=True).returncode == 0:
            pytest.skip("root ignores folder permissions here")
    assert main([*ARGS, "--games", "40", "--out", str(out)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("portobello: error: ") and str(out) in err[0]


def test_report_refuses_a_damaged_run_unless_partial_is_asked(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    out = tmp_path / "run"
    assert main([*ARGS, "--games", "200", "--out", str(out)]) == 0
    victim = store.shard_path(out, "players", 3)
    victim.unlink()
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(victim) in err[0] and "--allow-partial" in err[0]
    assert not (tmp_path / "rep" / "index.html").exists()
    assert main(["report", str(out), "--out", str(tmp_path / "rep"), "--allow-partial"]) == 0
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "Partial data." in page and "180 of 200 games" in page
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert len(summary["partial"]) == 1 and "180 of 200 games" in summary["partial"][0]



STUDY = """name = "kill"
players = [2, 3]
agents = "random"
games = 240
seed = 5
shard_size = 20
events = true

[[variants]]
name = "standard"

[[variants]]
name = "known"
preset = "known-order"
"""


def study_tables(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in (out / "runs").rglob("*")
            if p.is_file() and p.name != "manifest.json"}


@pytest.mark.parametrize("moment", [3, 14])
def test_a_killed_study_resumes_to_the_same_cells(tmp_path: Path, moment: int) -> None:
    spec = tmp_path / "kill.toml"
    spec.write_text(STUDY)
    out, clean = tmp_path / "killed", tmp_path / "clean"
    cmd = [sys.executable, "-m", "sim.cli", "study", str(spec), "--out", str(out),
           "--no-report", "--quiet", "--jobs", "1"]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.rglob("checksums/*.json"))) < moment:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(list(out.rglob("checksums/*.json"))) < 48, "killed part-way"
    assert main(["study", str(spec), "--out", str(out), "--no-report", "--quiet"]) == 0
    assert main(["study", str(spec), "--out", str(clean), "--no-report", "--quiet"]) == 0
    assert study_tables(out) == study_tables(clean)
