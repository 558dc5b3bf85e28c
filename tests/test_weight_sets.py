"""Weight sets: the heuristic plays the shipped set of the game's player count by default, a
named set or a file, weights in the spec override the set's, bad files get one clear
message, and for any weight set the heuristic plays the same games in compiled batches as
decision by decision through `Game`, games the oracle replays state by state."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from differential import engines_agree
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from sim.cli import main
from sim.core.errors import PortobelloError
from sim.games.portobello import tuning as space
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.compiled import params as PA
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import compiled_row
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules

STANDARD = load_board("standard")


def shipped(name: str) -> Weights:
    data = tomllib.loads((weight_sets.SHIPPED / f"{name}.toml").read_text())
    return replace(Weights(), **data["weights"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_default_plays_the_tuned_set_of_the_player_count(players: int) -> None:
    agent = make_agent("heuristic")
    assert agent.weights_for(players) == shipped(f"tuned-{players}p")
    row = compiled_row("heuristic", players)
    assert row is not None
    assert row.params[PA.W_TEMPO] == shipped(f"tuned-{players}p").tempo


def test_classic_is_the_weights_the_first_committed_studies_played() -> None:
    """`classic` must stay the hand-tuned defaults (`Weights()`) the first committed studies
    played, so their specs in the project's history re-run as they were by name."""
    for n in (2, 3, 4):
        assert make_agent("heuristic:weights=classic").weights_for(n) == Weights()


def test_a_spec_weight_overrides_the_set() -> None:
    agent = make_agent("heuristic:weights=classic,tempo=0.25")
    assert agent.weights_for(4) == replace(Weights(), tempo=0.25)
    tuned = make_agent("heuristic:bobby=0.9").weights_for(3)
    assert tuned == replace(shipped("tuned-3p"), bobby=0.9)


def test_a_file_set(tmp_path: Path) -> None:
    path = tmp_path / "w.toml"
    path.write_text("[weights]\ntempo = 2.5\nrival = 0.75\n")
    agent = make_agent(f"heuristic:weights={path}")
    assert agent.weights_for(2) == replace(Weights(), tempo=2.5, rival=0.75)  # rest classic
    row = compiled_row(f"no-bobby(heuristic:weights={path})", 3)
    assert row is not None and row.params[PA.W_RIVAL] == 0.75 and row.restrict[2]


@pytest.mark.parametrize(("text", "field", "reason"), [
    ("[weights]\ntempo = 'x'\n", "weights.tempo", "must be a finite number"),
    ("[weights]\ntempo = true\n", "weights.tempo", "must be a finite number"),
    ("[weights]\nspeed = 1.0\n", "weights.speed", "unknown weight"),
    ("name = 'x'\n", "weights", "no [weights] table"),
    ("[weights\n", None, "not valid TOML"),
    ("[weights]\ntempo = nan\n", "weights.tempo", "must be a finite number"),
])
def test_a_bad_file_is_named_with_its_field(tmp_path: Path, text: str, field: str | None,
                                            reason: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PortobelloError) as err:
        make_agent(f"heuristic:weights={path}")
    message = err.value.message
    assert str(path) in message and reason in message
    if field:
        assert field in message


def test_unknown_names_list_what_exists() -> None:
    with pytest.raises(PortobelloError, match="shipped: tuned, classic"):
        make_agent("heuristic:weights=strongest")
    with pytest.raises(AgentSpecError, match="must be a float"):
        make_agent("heuristic:tempo=fast")


def test_the_command_line_refuses_a_bad_set_in_one_line(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nlane = -\n")
    code = main(["simulate", "--agents", f"heuristic:weights={path}", "--games", "2",
                 "--out", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and str(path) in err[0]  # as for a bad board file
    assert not (tmp_path / "run").exists()


def test_a_run_folder_knows_its_weight_files(tmp_path: Path) -> None:
    """A run's identity covers the content of the weight files its agents read, so a run
    cannot be resumed or topped up with other weights under the same path."""
    from sim.run.config import RunConfig

    path = tmp_path / "w.toml"
    path.write_text("[weights]\ntempo = 2.5\n")

    def run_id() -> str:
        return RunConfig(board=STANDARD, board_ref="standard", rules=Rules(),
                         agents=(f"heuristic:weights={path}", "greedy"), games=2,
                         seed=1).run_id

    before = run_id()
    path.write_text("[weights]\ntempo = 2.0\n")
    assert run_id() != before


weight_values = st.fixed_dictionaries({
    name: st.floats(lo, hi, allow_nan=False).map(lambda v: round(v, 3))
    for name, (lo, hi) in space.BOUNDS.items()})


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(values=weight_values, other=weight_values, players=st.integers(2, 4),
       seed=st.integers(0, 2**63 - 1))
def test_compiled_batches_and_step_by_step_heuristics_agree_for_any_weights(
        values: dict[str, float], other: dict[str, float], players: int, seed: int) -> None:
    """Heuristics on drawn weight sets (and one restricted) play the same game in a compiled
    batch as decision by decision through `Game`, and the oracle replays it
    (`differential.engines_agree`)."""
    specs = [space.spec_of(Weights(**values)), space.spec_of(Weights(**other)),
             f"first-end({space.spec_of(Weights(**values))})", "heuristic"][:players]
    engines_agree(STANDARD, Rules(players=players), [specs], [seed])
