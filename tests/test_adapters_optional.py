"""The core package without the adapters' extras: with open-spiel, pettingzoo and
gymnasium made unimportable, the command line plays, lists its agents and runs a
tournament; the OpenSpiel agents and both adapters are refused with the advice to install
their extra, in one line and with a non-zero exit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('pyspiel', 'open_spiel', 'pettingzoo', 'gymnasium'):
            raise ImportError(f'No module named {name!r} (blocked)')
        return None
sys.meta_path.insert(0, Block())
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCKER + code], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)


def _cli(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return _run(f"import sys\nfrom sim.cli import main\nsys.exit(main({args!r}))", tmp_path)


def test_the_core_commands_run_without_the_extras(tmp_path: Path) -> None:
    play = _cli(["play", "--agents", "heuristic,greedy", "--seed", "3"], tmp_path)
    assert play.returncode == 0, play.stderr
    assert "winner" in play.stdout or "tie" in play.stdout
    agents = _cli(["agents", "list"], tmp_path)
    assert agents.returncode == 0, agents.stderr
    assert "openspiel-mcts" in agents.stdout
    out = tmp_path / "t.parquet"
    tour = _cli(["tournament", "--agents", "heuristic,greedy", "--games", "4", "--quiet",
                 "--out", str(out)], tmp_path)
    assert tour.returncode == 0, tour.stderr
    assert out.exists()


def test_the_openspiel_agents_are_refused_with_the_advice(tmp_path: Path) -> None:
    run = _cli(["play", "--agents", "openspiel-mcts,heuristic"], tmp_path)
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "pip install 'portobello[openspiel]'" in lines[0]
    assert "Traceback" not in run.stderr


def test_the_adapters_say_which_extra_they_need(tmp_path: Path) -> None:
    for module, extra in (("sim.adapters.openspiel", "openspiel"),
                          ("sim.adapters.pettingzoo", "pettingzoo")):
        run = _run(f"import {module}", tmp_path)
        assert run.returncode != 0
        assert f"pip install 'portobello[{extra}]'" in run.stderr
    core = _run("import sim.adapters.core.observation, sim.adapters.core.position", tmp_path)
    assert core.returncode == 0, core.stderr


def test_the_frameworks_are_extras_that_make_installs() -> None:
    """The core dependencies leave both frameworks out; each has its extra; the lock file
    `make` installs from pins them (so `make test` runs the adapters' tests)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    frameworks = {"open-spiel", "pettingzoo", "gymnasium"}

    def names(specs: list[str]) -> set[str]:
        return {s.split(">")[0].split("=")[0].split("<")[0].strip().lower() for s in specs}

    assert not names(project["dependencies"]) & frameworks
    extras = project["optional-dependencies"]
    assert "open-spiel" in names(extras["openspiel"])
    assert {"pettingzoo", "gymnasium"} <= names(extras["pettingzoo"])
    assert frameworks <= names(extras["dev"])
    lock = (root / "requirements.lock").read_text().lower().splitlines()
    pinned = {line.split("==")[0].replace("_", "-") for line in lock if "==" in line}
    assert frameworks <= pinned
