"""Study specs (clear errors), running cells with common random numbers, resuming, agent
errors, and the `portobello study` command."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest

from analysis.study import StudyError
from analysis.study import load_study
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.games.portobello.agents import registry
from sim.games.portobello.agents.random_agent import RandomAgent

ROOT = Path(__file__).resolve().parent.parent


def spec_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "tiny", "players": [2, 3], "agents": "random", "games": 12, "seed": 9,
        "shard_size": 5,
        "variants": [{"name": "standard"}, {"name": "known", "preset": "known-order"}]}
    base.update(changes)
    return base


@pytest.mark.parametrize(("changes", "field", "reason"), [
    ({"players": [2, 5]}, "players", "distinct player counts from 2 to 4"),
    ({"players": "two"}, "players", "distinct player counts"),
    ({"agents": "nobody"}, "agents", "unknown agent 'nobody'"),
    ({"agents": "random,random,random"}, "agents", "3 agent specs for 2 players"),
    ({"games": 0}, "games", "must be a positive integer"),
    ({"games": {"2": 10}}, "games", "no value for 3 players"),
    ({"games": 13, "agents": {"2": "random,random:move_chance=0.5", "3": "random"}}, "games",
     "use a multiple of 2"),
    ({"seed": -1}, "seed", "non-negative integer"),
    ({"colour": "red"}, "colour", "unknown key"),
    ({"board": "no-such-board"}, "board", "no-such-board"),
    ({"baseline": "other"}, "baseline", "'other' is not a variant"),
    ({"variants": []}, "variants", "non-empty list"),
    ({"variants": [{"name": "a"}, {"name": "a"}]}, "variants[1].name", "duplicate variant"),
    ({"variants": [{"name": "a b"}]}, "variants[0].name", "letters, digits"),
    ({"variants": [{"name": "a", "preset": "nope"}]}, "variants[0].preset", "unknown preset"),
    ({"variants": [{"name": "a", "rules": {"colour": 1}}]}, "variants[0].rules.colour",
     "unknown rules switch"),
    ({"variants": [{"name": "a", "rules": {"players": 3}}]}, "variants[0].rules.players",
     "set by the study's player counts"),
    ({"variants": [{"name": "a", "customer_order": "known"}]}, "variants[0].customer_order",
     "put rules switches under [variants.rules]"),
    ({"variants": [{"name": "a", "rules": {"customers": {"citizen": 9}}}]}, "variants[0]",
     "at 2 players"),
    ({"variants": [{"name": "a", "rules": {"bobby_tie": "coin"}}]}, "variants[0]",
     "bobby_tie: must be one of"),
])
def test_bad_specs_name_file_field_and_reason(changes: dict[str, Any], field: str,
                                              reason: str) -> None:
    data = spec_dict(**changes)
    with pytest.raises(StudyError) as err:
        study_from_dict(data, source="s.toml")
    msg = err.value.message
    assert msg.startswith(f"s.toml: {field}"), msg
    assert reason in msg, msg
    assert "\n" not in msg


def test_missing_keys_and_bad_files(tmp_path: Path) -> None:
    data = spec_dict()
    del data["seed"]
    with pytest.raises(StudyError, match=r"^s.toml: seed: missing$"):
        study_from_dict(data, source="s.toml")
    with pytest.raises(StudyError, match="no such study file"):
        load_study(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed\n")
    with pytest.raises(StudyError, match=r"bad.toml: not valid TOML"):
        load_study(bad)


def test_shipped_studies_validate_and_meet_the_precision_plan() -> None:
    for name in ("customer-order", "neutral-stack"):
        spec = load_study(ROOT / "data" / "studies" / f"{name}.toml")
        assert spec.name == name and spec.players == (2, 3, 4)
        assert spec.events and spec.variants[0].name == spec.baseline == "standard"
        assert len(spec.cells()) == 3 * len(spec.variants)
        assert all(a == "expert" for n in spec.players for a in spec.agents[n])
    spec = load_study(ROOT / "data" / "studies" / "customer-order.toml")
    assert [v.switches.get("customer_order", "drawn") for v in spec.variants] == [
        "drawn", "known"]
    # Wilson half-width ~ 1.96 sqrt(p(1-p)/n) <= 1.5 pp for a seat share up to p at each count.
    for n, p in ((2, 0.5), (3, 0.4), (4, 0.37)):
        assert 1.96 * math.sqrt(p * (1 - p) / spec.games[n]) <= 0.015, n
        assert spec.games[n] % n == 0
    stacks = load_study(ROOT / "data" / "studies" / "neutral-stack.toml")
    assert len({tuple(c.config.rules.neutral_stack) for c in stacks.cells()}) == 3


def test_cells_share_game_seeds_and_resume(tmp_path: Path) -> None:
    spec = study_from_dict(spec_dict())
    out = tmp_path / "study"
    results = run_study(spec, out, quiet=True)
    assert [r.key for r in results] == ["standard-2p", "standard-3p", "known-2p", "known-3p"]
    assert all(r.error is None and r.timings["games_played"] == 12 for r in results)
    for r in results:
        assert (out / "runs" / r.key / "manifest.json").exists()
    data = open_study(out)
    games = data.games()
    seeds = games.pivot_table(index=["n_players", "game_id"], columns="variant", values="seed",
                              observed=True, aggfunc="first")
    assert (seeds["standard"] == seeds["known"]).all() and len(seeds) == 24
    orders = set(zip(games["variant"], games["customer_order"], strict=True))
    assert orders == {("standard", "drawn"), ("known", "known")}
    study = json.loads((out / "study.json").read_text())
    assert study["status"] == "complete" and study["spec"]["name"] == "tiny"
    assert [c["status"] for c in study["cells"]] == ["complete"] * 4
    # The same study again resumes: nothing is played.
    again = run_study(spec, out, quiet=True)
    assert all(r.timings["games_played"] == 0 and r.timings["games_resumed"] == 12
               for r in again)
    # Another study in the same folder is refused.
    with pytest.raises(StudyError, match="holds study 'tiny', not 'other'"):
        run_study(study_from_dict(spec_dict(name="other")), out, quiet=True)
    # Fewer games than the folder holds is refused (more would top the cells up).
    with pytest.raises(Exception, match="holds 12 games of this configuration"):
        run_study(spec.with_overrides(games=6), out, quiet=True)


def test_a_study_run_again_or_refused_keeps_what_its_folder_recorded(tmp_path: Path) -> None:
    """study.json is the study's record of its cells: a re-run that finds every game played
    keeps the timings of the run that played them, and a re-run refused at its first cell
    (here: that cell's folder made by other playing code) leaves every cell as it was,
    instead of marking them all pending."""
    spec = study_from_dict(spec_dict())
    out = tmp_path / "study"
    run_study(spec, out, quiet=True)
    first = json.loads((out / "study.json").read_text())["cells"]
    assert all(c["timings"]["games_played"] == 12 for c in first)
    run_study(spec, out, quiet=True)  # resumes: nothing to play
    assert json.loads((out / "study.json").read_text())["cells"] == first
    manifest = out / "runs" / "standard-2p" / "manifest.json"
    m = json.loads(manifest.read_text())
    m["identity"]["play_code"] = "0123456789abcdef"
    manifest.write_text(json.dumps(m))
    with pytest.raises(Exception, match="different configuration"):
        run_study(spec, out, quiet=True)
    assert json.loads((out / "study.json").read_text())["cells"] == first


def test_players_take_their_seeds_from_the_games_read_or_their_shards(tmp_path: Path) -> None:
    """Each seat's seed is its game's, in every cell, whether the games table was read
    first (its seeds kept) or not (read from the games shards)."""
    from pandas.testing import assert_frame_equal

    from analysis.study import cells_from_runs
    from sim.games.portobello.board import load_board
    from sim.games.portobello.rules import Rules
    from sim.run.runner import Run
    from sim.run.runner import RunConfig

    paths = []
    for n, seed in ((2, 1), (3, 2)):  # cells with different seeds for the same game ids
        paths.append(tmp_path / f"run{n}")
        Run(RunConfig(board=load_board("standard"), board_ref="standard",
                      rules=Rules(players=n), agents=("random",) * n, games=30, seed=seed,
                      shard_size=7), paths[-1]).execute(quiet=True)
    data = cells_from_runs(paths)
    games, after = data.games(), data.players()
    assert_frame_equal(after, cells_from_runs(paths).players())
    keys = ["variant", "n_players", "game_id"]
    seeds = after.merge(games[[*keys, "seed"]], on=keys, suffixes=("", "_game"))
    assert len(seeds) == 30 * 5 and (seeds["seed"] == seeds["seed_game"]).all()
    by_cell = games.groupby("n_players")["seed"].apply(tuple)
    assert by_cell[2] != by_cell[3]


class BrokenAgent(RandomAgent):
    """Raises in its tenth decision."""

    name = "broken"

    def choose(self, game: Any) -> Any:
        if game.turn > 3:
            raise RuntimeError("boom")
        return super().choose(game)


def test_agent_errors_are_recorded_and_reported(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "broken", BrokenAgent)
    spec = study_from_dict(spec_dict(players=[2], agents={"2": "random,broken"},
                                     games=4))
    out = tmp_path / "study"
    results = run_study(spec, out, quiet=True)
    assert all(r.error and "agent broken" in r.error and "boom" in r.error for r in results)
    study = json.loads((out / "study.json").read_text())
    assert {c["status"] for c in study["cells"]} == {"failed"}
    with pytest.raises(Exception, match="no complete cells"):
        open_study(out)


def test_study_command_errors_are_one_line(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from sim.cli.command import main

    def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse errors
            code = int(exc.code or 0)
        out = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out.out, out.err)

    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nplayers = [2]\nagents = "random"\ngames = 10\nseed = 1\n'
                   'variants = [{name = "a", rules = {colour = 1}}]\n')
    r = run_cli("study", str(bad), "--out", str(tmp_path / "o"))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"portobello: error: {bad}: variants[0].rules.colour: unknown "
                                "rules switch (switches: " + r.stderr.split("(switches: ")[1]
                                .strip())
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("study", str(tmp_path / "missing.toml"))
    assert r.returncode == 1 and "no such study file" in r.stderr
    r = run_cli("study", str(ROOT / "data/studies/customer-order.toml"), "--games", "0")
    assert r.returncode == 2 and "must be at least 1" in r.stderr
