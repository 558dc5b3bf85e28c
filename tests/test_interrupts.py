"""Stopping and starting at scale through the real command line: Ctrl-C is one line and exit
130 wherever play is compiled (`simulate --jobs 1`, `tune`), the data as after any stop; a
billion-game run starts its first shard at once; a lost Dask scheduler is the toolkit's one
line, Dask's own log kept out of the terminal (in a file when asked)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.load import load_run

CHECKSUMS = "checksums"


def _shards(out: Path) -> int:
    folder = out / CHECKSUMS
    return len(list(folder.glob("part-*.json"))) if folder.is_dir() else 0


@contextlib.contextmanager
def _ctrl_c_as_in_a_terminal() -> Iterator[None]:
    """Ctrl-C as a terminal gives it (handled by Python, unblocked) to this thread and to
    the children started in the block, whatever an earlier test in this worker process
    left. An ignored or blocked SIGINT is inherited, and a command started with it ignored
    (a shell's background job) rightly ignores it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)


def _start(args: list[str], env: dict[str, str] | None = None,
           group: bool = False) -> subprocess.Popen[str]:
    """The command in a process of its own; with `group`, in a process group of its own
    too, which `os.killpg` reaches as a terminal's Ctrl-C reaches the foreground job: the
    command and every process it started."""
    with _ctrl_c_as_in_a_terminal():
        return subprocess.Popen([sys.executable, "-m", "sim.cli", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **(env or {})}, start_new_session=group)


def _wait_for(condition: object, timeout: float = 180.0) -> float:
    start = time.monotonic()
    while not condition():  # type: ignore[operator]
        assert time.monotonic() - start < timeout, "timed out"
        time.sleep(0.05)
    return time.monotonic() - start


def test_ctrl_c_in_a_compiled_run_is_one_line_and_keeps_the_finished_shards(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["simulate", "--games", "200000", "--shard-size", "500", "--jobs", "1",
            "--agents", "heuristic", "--seed", "3", "--out", str(out), "--quiet"]
    proc = _start(args)
    _wait_for(lambda: _shards(out) >= 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "portobello: interrupted"
    assert "Traceback" not in err and "SystemError" not in err
    kept = _shards(out)
    assert kept >= 2
    # every shard finished before the stop is whole
    assert load_run(out, allow_partial=True).games().collect().height == kept * 500


@pytest.mark.parametrize("after", [0.0, 0.15, 0.3, 0.5, 0.8, 1.5])
def test_ctrl_c_on_local_workers_is_the_one_line(tmp_path: Path, after: float) -> None:
    """Ctrl-C as a terminal gives it, to the command and its two worker processes, at
    moments from the workers' start (the manifest is written just before) to their play:
    stderr is the one line, never a worker's traceback as it loads, nor joblib's warning
    that the tasks not yet used were cancelled (`sim.run.execution`)."""
    warm = subprocess.run([sys.executable, "-m", "sim.cli", "simulate", "--games", "10",
                           "--agents", "random", "--jobs", "1", "--out", str(tmp_path / "warm"),
                           "--quiet"], capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr  # compiled now, so no notice below
    out = tmp_path / "run"
    proc = _start(["simulate", "--games", "2000000", "--shard-size", "2000", "--agents",
                   "random", "--jobs", "2", "--out", str(out), "--quiet"], group=True)
    try:
        _wait_for(lambda: (out / "manifest.json").exists() or proc.poll() is not None)
        time.sleep(after)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert [line for line in err.splitlines() if line.strip()] == ["portobello: interrupted"], err


@pytest.mark.parametrize("left_by", ["closing", "the pool's end"])
def test_results_left_early_end_the_workers_without_a_warning(left_by: str) -> None:
    """A command's loop over its results stopped early (Ctrl-C, an error) stops the local
    workers' pending tasks; joblib's warning that it did (two lines above the command's
    one) is not shown, whether the loop's generator is closed or the pool ends first."""
    from sim.run.execution import Execution
    from sim.run.execution import Pool

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Pool(Execution(jobs=2)) as pool:
            results = pool.unordered(time.sleep, [(0.05,)] * 40)
            next(results)
            if left_by == "closing":
                results.close()
        del results
    assert [str(w.message) for w in caught] == []


TUNING = """name = "t"
players = [2]
agents = "heuristic"
seed = 3
[[knobs]]
switch = "start_scores"
seats = [1]
low = -10
high = 30
[search]
budget = 30
games = 20000
[confirm]
best = 2
games = 400
"""


def test_the_package_loads_the_engines_names_on_first_use() -> None:
    import sim
    import sim.games.portobello

    assert sim.__all__ == sim.games.portobello.__all__
    assert all(getattr(sim, name) is getattr(sim.games.portobello, name) for name in sim.__all__)


@pytest.mark.parametrize("after", [0.3, 2.0, 6.0])
def test_ctrl_c_in_tune_is_one_line(tmp_path: Path, after: float) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text(TUNING)
    proc = _start(["tune", str(spec), "--out", str(tmp_path / "t"), "--quiet"])
    time.sleep(after)  # compiling, or playing its first setting's 20,000 games
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err  # never a crash of the compiled code (-11)
    assert err.strip().splitlines()[-1] == "portobello: interrupted" and "Traceback" not in err


ROOT = Path(__file__).resolve().parent.parent


def _before_the_toolkit(err: str, returncode: int | None = None) -> bool:
    """Whether an interrupt landed while Python itself started, before any of the toolkit's
    lines ran: killed by the signal's default action before Python set its handler (no
    word at all), Python's own fatal start-up error, or a traceback none of whose frames is
    one of the project's files (runpy still setting up the first module)."""
    if returncode == -signal.SIGINT and not err.strip():
        return True
    if "Fatal Python error: init_import_site" in err:
        return True
    frames = [line for line in err.splitlines() if line.strip().startswith('File "')]
    # The toolkit's own frames, while its handler is not set yet, are module-level imports
    # of the packages the command starts from (`<module>`), before `main` runs.
    return ("KeyboardInterrupt" in err and bool(frames)
            and all(line.rstrip().endswith("in <module>") for line in frames
                    if str(ROOT) in line))


def test_an_interrupt_before_the_toolkit_runs_is_told_from_one_it_dropped() -> None:
    early = ('Traceback (most recent call last):\n  File "<frozen runpy>", line 189, in '
             '_run_module_as_main\n  File "<frozen importlib._bootstrap>", line 392, in cached\n'
             'KeyboardInterrupt\n')
    late = early.replace('<frozen runpy>', str(ROOT / "sim" / "cli" / "__init__.py"))
    assert _before_the_toolkit(early)
    assert not _before_the_toolkit(late)
    importing = early.replace('<frozen importlib._bootstrap>", line 392, in cached',
                              f'{ROOT / "sim" / "cli" / "__init__.py"}", line 5, in <module>')
    assert _before_the_toolkit(importing)
    assert not _before_the_toolkit("portobello: interrupted\n", 130)
    assert _before_the_toolkit("", -signal.SIGINT)
    assert not _before_the_toolkit("", 130)


def test_ctrl_c_while_the_command_loads_is_never_lost() -> None:
    """In its first half second a command imports; Python drops an interrupt raised in some
    of an import's callbacks ("Exception ignored in ... cb"), and the tuning then ran on for
    minutes. Twenty interrupts across its first 0.6 s: each is the one line and 130. (On a
    loaded machine the earliest can land while Python itself starts, before any of the
    toolkit runs; those are Python's to report, and at least half must reach the toolkit.)"""
    reached = 0
    for i in range(20):
        with tempfile.TemporaryDirectory() as folder:
            spec = Path(folder) / "t.toml"
            spec.write_text(TUNING)
            proc = _start(["tune", str(spec), "--out", str(Path(folder) / "t"), "--quiet"])
            time.sleep(0.03 * (i + 1))
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
            if _before_the_toolkit(err, proc.returncode):
                continue
            reached += 1
            assert proc.returncode == 130, (0.03 * (i + 1), err)
            assert err.strip().splitlines() == ["portobello: interrupted"], err
    assert reached >= 10


def test_an_interrupt_dropped_on_its_way_is_raised_at_the_next_safe_place() -> None:
    from sim.run.interrupts import ctrl_c_noted
    from sim.run.interrupts import interrupts_held
    from sim.run.interrupts import raise_if_interrupted

    # The signal goes to this thread (raise_signal), not to whichever the kernel picks.
    with _ctrl_c_as_in_a_terminal():
        with ctrl_c_noted():
            try:  # what Python does to an interrupt inside an import lock's callback
                signal.raise_signal(signal.SIGINT)
                time.sleep(1)
            except KeyboardInterrupt:
                pass
            with pytest.raises(KeyboardInterrupt):
                raise_if_interrupted()
            with pytest.raises(KeyboardInterrupt), interrupts_held():
                pass  # compiled play does not start
        raise_if_interrupted()  # the command is over: nothing pending


def test_a_billion_game_run_starts_its_first_shard_at_once(tmp_path: Path) -> None:
    out = tmp_path / "big"
    proc = _start(["simulate", "--games", "1000000000", "--agents", "random",
                   "--out", str(out), "--quiet"])
    try:
        seconds = _wait_for(lambda: _shards(out) >= 1, timeout=120)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert seconds < 60  # no pass over a million shards first
    assert proc.returncode == 130


def test_a_lost_scheduler_is_one_line_and_dask_logs_to_a_file_when_asked(
        tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    log = tmp_path / "dask.log"
    out = tmp_path / "run"
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                           dashboard_address=None)
    try:
        proc = _start(["simulate", "--games", "4000", "--shard-size", "20", "--agents",
                       "random", "--engine", "python", "--scheduler",
                       cluster.scheduler_address, "--out", str(out), "--quiet"],
                      env={"PORTOBELLO_DASK_LOG": str(log)})
        _wait_for(lambda: _shards(out) >= 2)
    finally:
        cluster.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "lost the Dask scheduler" in lines[0] and "run the same command again" in lines[0]
    assert "distributed" in log.read_text()  # Dask's own account, for whoever wants it


def test_a_command_stuck_after_ctrl_c_ends_within_the_stop_time() -> None:
    # A library's shutdown that never returns (here: a sleep of a minute after the
    # interrupt was caught) no longer holds the command: STOP_WITHIN after the
    # interrupt the process ends with 130 and the one line, said once.
    code = (
        "import signal, sys, time\n"
        "from sim.run import interrupts as I\n"
        "I.STOP_WITHIN = 0.5\n"
        "with I.ctrl_c_noted():\n"
        "    try:\n"
        "        signal.raise_signal(signal.SIGINT)\n"
        "    except KeyboardInterrupt:\n"
        "        I.say_interrupted()\n"
        "    time.sleep(60)\n"
    )
    start = time.monotonic()
    with _ctrl_c_as_in_a_terminal():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=50)
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines() == ["portobello: interrupted"]
    assert time.monotonic() - start < 30


def test_a_finished_command_leaves_no_stop_armed() -> None:
    # In-process callers (tests, notebooks) go on after a command that saw Ctrl-C: the
    # forced exit is cancelled when the command's block ends.
    from sim.run import interrupts as I

    with _ctrl_c_as_in_a_terminal():
        with I.ctrl_c_noted():
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
            assert I._watchdog and I._watchdog[0].is_alive()
        assert not I._watchdog


def test_a_ctrl_c_that_compiled_code_prints_is_noted_not_shown(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Compiled code that imports a module may print the import's failure and go on
    (`PyErr_Print`, which calls `sys.excepthook`): seen once in a fresh clone, a Ctrl-C
    during a command's imports came out as a traceback above the one line. Within a
    command such a KeyboardInterrupt is noted, to be raised where stopping is safe, and not
    printed; any other error still is; the hook is the caller's again afterwards."""
    from sim.run import interrupts as I

    outside = sys.excepthook
    with _ctrl_c_as_in_a_terminal(), I.ctrl_c_noted():
        sys.excepthook(KeyboardInterrupt, KeyboardInterrupt(), None)
        assert I.interrupt_noted()
        sys.excepthook(ValueError, ValueError("still shown"), None)
    err = capsys.readouterr().err
    assert "KeyboardInterrupt" not in err and "ValueError: still shown" in err
    assert sys.excepthook is outside


def test_ctrl_c_surfacing_as_another_error_is_the_one_line_and_130(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C can surface as another error: inside a library's compiled import (pandas loads
    with a command's first table) as an ImportError that has lost the interrupt, inside a
    class body being imported as a RuntimeError caused by it. Either is the one line and
    130 (the first once a Ctrl-C was noted); without a Ctrl-C, an error is a fault and is
    not hidden."""
    from sim.cli import main
    from sim.cli import rules as rules_cli
    from sim.run import interrupts

    def lost(args: object) -> int:
        raise ImportError("pd_datetime.c could not import module pandas")

    def wrapped(args: object) -> int:
        raise RuntimeError("Error calling __set_name__") from KeyboardInterrupt()

    monkeypatch.setattr(rules_cli, "cmd_rules_list", lost)
    monkeypatch.setattr(interrupts, "interrupt_noted", lambda: True)
    assert main(["rules", "list"]) == 130
    assert capsys.readouterr().err == "portobello: interrupted\n"
    monkeypatch.setattr(interrupts, "interrupt_noted", lambda: False)
    with pytest.raises(ImportError, match="pd_datetime"):
        main(["rules", "list"])
    monkeypatch.setattr(rules_cli, "cmd_rules_list", wrapped)
    assert main(["rules", "list"]) == 130
    assert capsys.readouterr().err == "portobello: interrupted\n"
