"""Every command that plays many games gives the same bytes on a Dask cluster as in this
process (`--jobs 1`): a two-worker local cluster of separate processes, reached over TCP by
its scheduler's address as a remote cluster would be, with one worker killed while it plays
a task (Dask runs its tasks again elsewhere). And the cluster's workers are checked before
any game: a worker that cannot import the project, or runs other playing code, is refused.

`make test` checks `simulate` and the population study on the cluster; the other commands'
same-bytes checks (study, tune, tournament, probe, agents tune and train) are marked slow
and run by `make test-slow`, each minutes of a cluster's start and play.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cluster() -> Iterator[Any]:
    """Two worker processes (one thread each) behind a scheduler on loopback TCP, new for
    each test (a killed worker's nanny may not bring it back in time for the next one)."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, protocol="tcp") as c:
        yield c


def digest(paths: list[Path], base: Path) -> list[tuple[str, str]]:
    """Each file's path under `base` and SHA-256, for the files and folders given."""
    out = []
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        out += [(p.relative_to(base).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
                for p in files]
    return out


class WorkerKiller(threading.Thread):
    """Kills (SIGKILL) one worker of `cluster` as soon as one is playing a task."""

    def __init__(self, cluster: Any) -> None:
        super().__init__(daemon=True)
        from dask.distributed import Client

        self.client = Client(cluster.scheduler_address)
        self.client.wait_for_workers(2, timeout=60)
        self.pids = self.client.run(os.getpid)
        self.killed: str | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and self.killed is None:
            busy = [w for w, tasks in self.client.processing().items() if tasks]
            if busy and busy[0] in self.pids:
                os.kill(self.pids[busy[0]], signal.SIGKILL)
                self.killed = busy[0]
                return
            time.sleep(0.01)

    def __enter__(self) -> WorkerKiller:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join(timeout=10)
        self.client.close()


def same_bytes_on_the_cluster(cluster: Any, tmp_path: Path,
                              command: Callable[[Path, list[str]], list[Path]],
                              others: tuple[list[str], ...] = (["--jobs", "2"],)) -> None:
    """`command(folder, flags)` runs one command and returns what it wrote: the same bytes
    with `--jobs 1`, with each of `others` (two local processes), and on the cluster, a
    worker killed mid-run."""
    alone = command(tmp_path / "alone", ["--jobs", "1"])
    written = digest(alone, tmp_path / "alone")
    assert written, "nothing written"
    for k, flags in enumerate(others):
        assert digest(command(tmp_path / f"other-{k}", flags), tmp_path / f"other-{k}") \
            == written, flags
    with WorkerKiller(cluster) as killer:
        spread = command(tmp_path / "cluster", ["--scheduler", cluster.scheduler_address])
    assert killer.killed, "no worker was killed: the tasks were too short to catch one"
    assert written == digest(spread, tmp_path / "cluster")


def test_simulate(cluster: Any, tmp_path: Path) -> None:
    def simulate(out: Path, flags: list[str]) -> list[Path]:
        assert main(["simulate", "--players", "3", "--agents", "heuristic", "--games",
                     "4000", "--shard-size", "500", "--seed", "5", "--out", str(out),
                     "--quiet", *flags]) == 0
        return [out / t for t in ("games", "players")]
    same_bytes_on_the_cluster(cluster, tmp_path, simulate)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_study(cluster: Any, tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nplayers = [2, 3]\nagents = "heuristic"\ngames = 400\n'
                    'shard_size = 100\nseed = 4\n[[variants]]\nname = "standard"\n'
                    '[[variants]]\nname = "known"\npreset = "known-order"\n')

    def study(out: Path, flags: list[str]) -> list[Path]:
        assert main(["study", str(spec), "--out", str(out), "--no-report", "--quiet",
                     *flags]) == 0
        return sorted(p for p in (out / "runs").rglob("part-*") if "checksums" not in str(p))
    same_bytes_on_the_cluster(cluster, tmp_path, study)


def test_population_study(cluster: Any, tmp_path: Path) -> None:
    spec = tmp_path / "p.toml"
    spec.write_text('name = "p"\nplayers = [2, 3]\npopulation = ["greedy", "heuristic"]\n'
                    'seed = 4\nshard_size = 50\nround_games = 150\nmax_games = 300\n'
                    'margin = 0.05\nevents = false\n[[variants]]\nname = "standard"\n'
                    '[[variants]]\nname = "known"\npreset = "known-order"\n')

    def study(out: Path, flags: list[str]) -> list[Path]:
        assert main(["study", str(spec), "--out", str(out), "--no-report", "--quiet",
                     *flags]) == 0
        return sorted(p for p in (out / "runs").rglob("part-*") if "checksums" not in str(p))
    same_bytes_on_the_cluster(cluster, tmp_path, study)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_tune(cluster: Any, tmp_path: Path) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text('name = "t"\nplayers = [3]\nagents = "heuristic"\nseed = 3\n'
                    '[[knobs]]\nswitch = "start_scores"\nseats = [1]\nlow = -5\nhigh = 10\n'
                    '[search]\nbudget = 3\ngames = 600\n[confirm]\nbest = 1\ngames = 600\n')

    def tune(out: Path, flags: list[str]) -> list[Path]:
        assert main(["tune", str(spec), "--out", str(out), "--no-report", "--quiet",
                     *flags]) in (0, 1)
        return [out / "tuning.json", out / "summary.json", out / "rules"]
    same_bytes_on_the_cluster(cluster, tmp_path, tune)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_tournament(cluster: Any, tmp_path: Path) -> None:
    def tournament(out: Path, flags: list[str]) -> list[Path]:
        out.mkdir(parents=True)
        assert main(["tournament", "--agents", "heuristic,greedy", "--players", "3",
                     "--games", "1200", "--seed", "2", "--out", str(out / "t.parquet"),
                     "--quiet", *flags]) == 0
        assert not (out / "t.tasks").exists()  # the finished tasks go with the table written
        return [out / "t.parquet"]
    same_bytes_on_the_cluster(cluster, tmp_path / "t", tournament)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_probe(cluster: Any, tmp_path: Path) -> None:
    def probe(out: Path, flags: list[str]) -> list[Path]:
        out.mkdir(parents=True)
        assert main(["tournament", "--probe", "heuristic", "--players", "2", "--games",
                     "600", "--perturbations", "2", "--top", "1", "--seed", "2", "--out",
                     str(out / "p.parquet"), "--quiet", *flags]) in (0, 3)
        return [out / "p.parquet"]
    same_bytes_on_the_cluster(cluster, tmp_path / "p", probe)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_agents_tune(cluster: Any, tmp_path: Path) -> None:
    def agents_tune(out: Path, flags: list[str]) -> list[Path]:
        assert main(["agents", "tune", "--players", "3", "--generations", "2",
                     "--population", "4", "--blocks", "60", "--final-blocks", "60",
                     "--out", str(out), "--quiet", *flags]) == 0
        return [out / "tune.json", out / "weights.toml"]
    same_bytes_on_the_cluster(cluster, tmp_path, agents_tune)


# -- workers checked before any game -----------------------------------------------------------
def start_worker(address: str, pythonpath: Path, log: Path) -> subprocess.Popen[bytes]:
    """A `dask worker` process whose Python finds `pythonpath` first (started outside the
    project's folder, which `python -m` would put first)."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    with log.open("wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                 address, "--nthreads", "1", "--no-nanny"],
                                env=env, stdout=sink, stderr=subprocess.STDOUT,
                                cwd=log.parent)


@pytest.mark.parametrize("kind", ["broken", "other code"])
def test_a_worker_that_cannot_play_these_games_is_refused_before_any(
        tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A worker whose `sim` does not import, or is another version of the playing code (a
    copy of the project with one rule file changed by a comment): one message naming the
    worker, exit 1, and no game played (the run folder holds no shard)."""
    from dask.distributed import LocalCluster

    shadow = tmp_path / "path"
    if kind == "broken":
        (shadow / "sim").mkdir(parents=True)
        (shadow / "sim" / "__init__.py").write_text("raise ImportError('a broken install')\n")
    else:
        shutil.copytree(ROOT / "sim", shadow / "sim",
                        ignore=shutil.ignore_patterns("__pycache__"))
        rule = shadow / "sim" / "games" / "portobello" / "compiled" / "transitions.py"
        rule.write_text(rule.read_text() + "# another version\n")
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as c:
        worker = start_worker(c.scheduler_address, shadow, tmp_path / "worker.log")
        try:
            out = tmp_path / "run"
            code = main(["simulate", "--players", "2", "--agents", "random", "--games", "10",
                         "--scheduler", c.scheduler_address, "--out", str(out), "--quiet"])
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    expected = "cannot import the project" if kind == "broken" else "runs other playing code"
    assert "refused before any game" in err[0] and expected in err[0], err
    assert not list(out.rglob("part-*"))


# -- a lost scheduler ---------------------------------------------------------------------------
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster(port: int, folder: Path) -> list[subprocess.Popen[bytes]]:
    """A scheduler on `port` and one worker, started by Dask's own command-line tools as
    docs/cluster.md starts them."""
    address = f"tcp://127.0.0.1:{port}"
    with (folder / "scheduler.log").open("ab") as sink:
        scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                      "--host", "127.0.0.1", "--port", str(port),
                                      "--no-dashboard"], stdout=sink,
                                     stderr=subprocess.STDOUT, cwd=folder)
    worker = start_worker(address, ROOT, folder / "worker.log")
    return [scheduler, worker]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        p.kill()
        p.wait(timeout=30)


def test_a_scheduler_lost_mid_study_is_one_line_and_the_same_command_resumes(
        tmp_path: Path) -> None:
    """The scheduler killed once the study has finished shards: the command stops with one
    line and a non-zero status, the finished shards stay, and the same command on a new
    scheduler at the same address finishes the study to the bytes `--jobs 1` writes."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nplayers = [3]\nagents = "heuristic"\ngames = 1600\n'
                    'shard_size = 100\nseed = 8\n[[variants]]\nname = "standard"\n')
    assert main(["study", str(spec), "--out", str(tmp_path / "alone"), "--no-report",
                 "--quiet", "--jobs", "1"]) == 0
    port = free_port()
    out = tmp_path / "cluster"
    command = [sys.executable, "-m", "sim.cli", "study", str(spec), "--out", str(out),
               "--no-report", "--quiet", "--scheduler", f"tcp://127.0.0.1:{port}"]
    processes = start_cluster(port, tmp_path)
    try:
        study = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 cwd=ROOT, text=True)
        deadline = time.monotonic() + 120
        while not list(out.glob("runs/*/checksums/*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        processes[0].kill()  # the scheduler, mid-study
        _, err = study.communicate(timeout=180)
    finally:
        stop(processes)
    lines = err.strip().splitlines()
    kept = list(out.glob("runs/*/checksums/*"))
    assert study.returncode == 1 and len(lines) == 1, err
    assert "lost the Dask scheduler" in lines[0] and "run the same command again" in lines[0]
    assert 0 < len(kept) < 16, kept  # some shards finished and kept, not all
    processes = start_cluster(port, tmp_path)
    try:
        again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    finally:
        stop(processes)
    assert again.returncode == 0, again.stderr
    alone = sorted((tmp_path / "alone" / "runs").rglob("part-*.parquet"))
    resumed = sorted(out.glob("runs/**/part-*.parquet"))
    assert len({p.name for p in alone}) == 16  # 16 shards of every table
    assert digest(alone, tmp_path / "alone") == digest(resumed, out)


@pytest.mark.slow  # `make test-slow`: the same bytes, a longer command
def test_agents_train(cluster: Any, tmp_path: Path) -> None:
    """The learned agent's training: its labelled games on the cluster give the same model
    bytes, round by round (its log records timings, so only the models are compared)."""
    spec = tmp_path / "train.toml"
    spec.write_text('name = "c"\nplayers = 2\nteacher = "fastmcts:iterations=60,width=4"\n'
                    'seed = 5\nrounds = 2\ngames = 6\nhidden = [8]\nepochs = 5\n'
                    'eval_games = 0\n')

    def agents_train(out: Path, flags: list[str]) -> list[Path]:
        assert main(["agents", "train", str(spec), "--out", str(out), "--quiet", *flags]) == 0
        return [out / "round-0.model", out / "round-1.model", out / "expert.model"]
    same_bytes_on_the_cluster(cluster, tmp_path, agents_train)
