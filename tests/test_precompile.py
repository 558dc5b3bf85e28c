"""The helper of a first compile (`sim.games.portobello.precompile`): its list of the
planner's compiled functions fits the functions as they are, it passes over a line that does
not, and it runs only where it can help and stops when the command's own compile is
done."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

from sim.games.portobello import precompile


def test_every_listed_function_takes_the_listed_arguments() -> None:
    """Each entry names a compiled function of the evaluator or the planner, with one type
    per parameter; a function whose parameters changed without `--record` fails here."""
    entries = list(precompile.planned())
    assert len(entries) >= 30  # the planner and evaluator, from their leaves up
    for module, name, text in entries:
        assert precompile.helps(module), module
        function = getattr(importlib.import_module(module), name)
        assert isinstance(function, CPUDispatcher), f"{module}.{name}"
        params = inspect.signature(function.py_func).parameters
        assert len(precompile.argument_types(text)) == len(params), f"{module}.{name}"
    # leaves first: the planner's top after the evaluator it calls, the learned agent's
    # choice after the planner
    names = [name for _, name, _ in entries]
    assert names.index("_evaluate") < names.index("plan_values") \
        < names.index("choose_expert")


def test_only_the_planner_and_evaluator_are_helped_and_the_network_when_asked() -> None:
    for planner in ("plan_turn", "eval_deltas", "evaluate"):
        assert precompile.helps(f"sim.games.portobello.agents.compiled.{planner}", networks=False)
    for network in ("features", "network", "expert", "plan_step"):
        assert not precompile.helps(f"sim.games.portobello.agents.compiled.{network}",
        networks=False)
        assert precompile.helps(f"sim.games.portobello.agents.compiled.{network}", networks=True)
    for early in ("sim.games.portobello.agents.compiled.planner",  # the loop's
                  "sim.games.portobello.agents.compiled.play",
                  "sim.games.portobello.compiled.transitions", "sim.games.river.compiled"):
        assert not precompile.helps(early, networks=True)


def test_a_stale_line_is_passed_over(tmp_path: Path) -> None:
    """A line whose function is gone, or whose types no longer fit, is skipped (the
    command's own process compiles what the cache lacks); a good line is compiled."""
    good = next(e for e in precompile.planned() if e[1] == "max_options")
    path = tmp_path / "order.txt"
    path.write_text("# header\n"
                    "sim.games.portobello.agents.compiled.plan_work gone (int64,)\n"
                    "sim.games.portobello.agents.compiled.plan_work max_options "
                    "(int64, int64, int64)\n"
                    "sim.games.portobello.agents.compiled.plan_work max_options not-a-type\n"
                    f"{' '.join(good)}\n")
    assert precompile.compile_planned(path) == 1
    path.write_text(f"{' '.join(next(e for e in precompile.planned() if e[1] == 'rest'))}\n")
    assert precompile.compile_planned(path) == 0  # the network's, for the planner alone


def test_the_helper_runs_only_with_a_second_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(precompile, "usable_cpus", lambda: 1)
    assert precompile.start_helper() is None
    import numba

    monkeypatch.setattr(precompile, "usable_cpus", lambda: 2)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    assert precompile.start_helper() is None


def test_a_helper_still_running_is_stopped() -> None:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    precompile.stop_helper(helper)
    assert helper.returncode is not None and helper.returncode != 0
    precompile.stop_helper(None)  # no helper: nothing to do
