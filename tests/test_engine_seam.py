"""The engine seam: both engines play every line-up alike, and each seat owns its agent.

The step-by-step path (`StepEngine`, `--engine python`) seats a fresh agent object, with a
generator of its own, at every seat, as a compiled batch does, so `portobello simulate
--players 3 --agents greedy --games 60 --seed 9` gives the same games with `--engine python`
as with `--engine compiled`. These tests hold the two engines to byte-identical run folders
for every agent with a compiled row, at 2, 3 and 4 players, with the same spec in every
seat and with mixed line-ups; and a run killed on one engine and resumed on the other
equals a clean run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from processes import kill_after_shards

from sim.cli import main
from sim.games.portobello.agents.registry import COMPILED
from sim.games.portobello.agents.registry import compiled_row
from sim.games.portobello.board import load_board
from sim.games.portobello.engines import StepEngine
from sim.games.portobello.engines import select_engine
from sim.games.portobello.rules import Rules
from sim.run.runner import Run
from sim.run.runner import RunConfig

BOARD = load_board("standard")
LINEUPS = {
    "random": ["random"],
    "greedy": ["greedy"],
    "heuristic": ["heuristic"],
    "restricted": ["no-bobby(first-end(heuristic))"],
    "mixed": ["heuristic", "greedy", "random", "no-district(greedy)"],
}


def files_of(out: Path) -> dict[str, bytes]:
    """Every file of a run folder; the manifest without its timings and cost (they differ by
    design: seconds, jobs, and which engine played)."""
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
             if p.is_file()}
    manifest = json.loads(files.pop("manifest.json"))
    manifest.pop("timings")
    manifest.pop("cost")
    files["manifest.json"] = json.dumps(manifest, sort_keys=True).encode()
    return files


def test_every_registered_compiled_row_is_covered() -> None:
    """A new agent with a compiled row must join LINEUPS (the same-spec case); the learned
    agent, which needs a model file, has a test of its own below."""
    covered = {spec for lineup in LINEUPS.values() for spec in lineup} | {"expert"}
    assert set(COMPILED) <= covered


def blank_model(path: Path, players: int) -> str:
    """A small model of random weights for `players` on the standard board, saved at
    `path`: not a strong player, but every option gets a different value."""
    import numpy as np

    from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
    from sim.games.portobello.agents.compiled.features import input_count
    from sim.games.portobello.agents.model import Model
    from sim.games.portobello.compiled.layout import pack

    n = int(input_count(pack(BOARD, Rules(players=players))))
    rng = np.random.default_rng(players)
    header = {"board_hash": BOARD.content_hash, "players": players,
              "features_version": FEATURES_VERSION}
    members = [Model.from_layers([rng.normal(size=(n, 6)), rng.normal(size=(6, 4)),
                                  rng.normal(size=(4, 2))],
                                 [rng.normal(size=6), rng.normal(size=4), np.zeros(2)], header)
               for _ in range(2)]
    Model.ensemble(members).save(path)
    return str(path)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_agent_plays_alike_on_both_engines(tmp_path: Path, players: int) -> None:
    """`expert` in every seat, and beside the heuristic under a restriction, writes the
    same run folder decision by decision as in compiled batches."""
    model = blank_model(tmp_path / "m.model", players)
    for name, base in (("same", [f"expert:model={model}"]),
                       ("mixed", [f"expert:model={model},margin=0.5", "heuristic",
                                  f"no-bobby(expert:model={model},width=3)"])):
        agents = tuple(base[s % len(base)] for s in range(players))
        conf = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=players),
                         agents=agents, games=2 * players, seed=9, shard_size=5,
                         events=True, records=True)
        fast, ref = tmp_path / f"{name}-fast", tmp_path / f"{name}-ref"
        assert Run(conf, fast).execute(quiet=True, engine="compiled")["engine"] == "compiled"
        assert Run(conf, ref).execute(quiet=True, engine="python")["engine"] == "python"
        a, b = files_of(fast), files_of(ref)
        assert sorted(a) == sorted(b)
        for file in a:
            assert a[file] == b[file], (name, file)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("lineup", list(LINEUPS))
def test_both_engines_write_byte_identical_runs(tmp_path: Path, lineup: str,
                                                players: int) -> None:
    base = LINEUPS[lineup]
    agents = tuple(base[s % len(base)] for s in range(players))
    conf = RunConfig(board=BOARD, board_ref="standard", rules=Rules(players=players),
                     agents=agents, games=4 * players, seed=9, shard_size=5, events=True,
                     records=True)
    fast, ref = tmp_path / "fast", tmp_path / "ref"
    assert Run(conf, fast).execute(quiet=True, engine="compiled")["engine"] == "compiled"
    assert Run(conf, ref).execute(quiet=True, engine="python")["engine"] == "python"
    a, b = files_of(fast), files_of(ref)
    assert sorted(a) == sorted(b)
    assert len(a) == 1 + 5 * conf.n_shards
    for name in a:
        assert a[name] == b[name], name


def test_the_reported_command_agrees_on_both_engines(tmp_path: Path) -> None:
    """The command a new user tried: greedy in every seat, 60 games, seed 9."""
    outs = {}
    for engine in ("python", "compiled"):
        outs[engine] = tmp_path / engine
        assert main(["simulate", "--players", "3", "--agents", "greedy", "--games", "60",
                     "--seed", "9", "--records", "--engine", engine, "--quiet",
                     "--out", str(outs[engine])]) == 0
    assert files_of(outs["python"]) == files_of(outs["compiled"])


def test_no_two_seats_share_an_agent_object() -> None:
    engine = StepEngine(BOARD, Rules(players=4))
    agents = engine.seat_agents(["greedy"] * 4)
    assert len({id(a) for a in agents}) == 4
    assert len({id(a.rng) for a in agents}) == 4
    again = engine.seat_agents(["greedy"] * 4)
    assert not {id(a) for a in agents} & {id(a) for a in again}  # nor two games


def test_a_subclass_does_not_inherit_a_compiled_row() -> None:
    """An agent that plays otherwise than its base class must not be played by the base's
    compiled row."""
    from sim.games.portobello.agents import registry
    from sim.games.portobello.agents.random_agent import RandomAgent

    class Cautious(RandomAgent):
        name = "cautious"

    registry.AGENTS["cautious"] = Cautious
    try:
        assert compiled_row("cautious", 2) is None
        assert compiled_row("no-bobby(cautious)", 2) is None
        assert select_engine(BOARD, Rules(), ["cautious", "random"]).name == "python"
    finally:
        del registry.AGENTS["cautious"]
    assert compiled_row("no-bobby(random)", 2) is not None


def test_killed_on_one_engine_resumed_on_the_other(tmp_path: Path) -> None:
    """A run killed on the step-by-step engine and resumed on the compiled one holds the
    same games, file for file, as a clean run on the compiled engine."""
    out, clean = tmp_path / "killed", tmp_path / "clean"
    args = [sys.executable, "-m", "sim.cli", "simulate", "--games", "600", "--players", "3",
            "--agents", "random,greedy,random", "--shard-size", "20", "--seed", "4",
            "--records", "--quiet"]
    written = kill_after_shards([*args, "--engine", "python", "--out", str(out)], out, 2)
    assert 2 <= written < 30, "the run should have been killed part-way"
    assert main([*args[3:], "--engine", "compiled", "--out", str(out)]) == 0
    assert main([*args[3:], "--engine", "compiled", "--out", str(clean)]) == 0
    assert files_of(out) == files_of(clean)
    assert json.loads((out / "manifest.json").read_text())["timings"]["games_resumed"] >= 40
