"""The exploitability probe (`portobello tournament --probe AGENT`): its challengers, its
games, the Holm-corrected intervals and verdicts, exit statuses and bad input."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analysis.probe import EXIT_BAD_INPUT
from analysis.probe import EXIT_BEATEN
from analysis.probe import ProbeConfig
from analysis.probe import ProbeError
from analysis.probe import beaten_by
from analysis.probe import probe_table
from analysis.probe import run_probe
from sim.cli.command import main
from sim.games.portobello.agents import weight_sets
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.probe import challengers
from sim.games.portobello.probe import perturbations

# `no-district(heuristic)` never scores a district: it gives up a whole point source (a 4 and
# a 2 token times the stalls bordering the district), so the free heuristic, the lifted
# challenger, must beat it clearly, at two players as at three (0.83 of 60 games at two).
WEAK = "no-district(heuristic)"
SMALL = dict(agent=WEAK, games=40, random=1, weights=("tempo",))


@pytest.fixture(scope="module")
def probed() -> tuple[ProbeConfig, pd.DataFrame, pd.DataFrame]:
    config = ProbeConfig(players=(2, 3), **SMALL)  # type: ignore[arg-type]
    df, errors = run_probe(config)
    assert not errors
    return config, df, probe_table(df, config)


def test_a_probe_of_a_weak_agent_finds_its_stronger_version(
        probed: tuple[ProbeConfig, pd.DataFrame, pd.DataFrame]) -> None:
    _, _, table = probed
    assert "heuristic" in beaten_by(table)
    row = table[(table.challenger == "heuristic") & (table.players == 2)].iloc[0]
    assert row.kind == "lifted" and row.verdict == "beats" and row.adj_lo > 0.5


def test_a_probe_plays_exactly_the_challengers_it_lists(
        probed: tuple[ProbeConfig, pd.DataFrame, pd.DataFrame]) -> None:
    config, df, table = probed
    listed = {(c.players, c.spec) for c in config.all_challengers()}
    assert set(zip(table.players, table.challenger, strict=True)) == listed
    assert len(table) == config.matchup_count()
    for n in config.players:
        played = set(df[df.players == n].agent) - {WEAK}
        assert played == {c.spec for c in config.challengers[n]}
    # Both directions above two players, one head-to-head matchup at two.
    assert set(table[table.players == 2].direction) == {"head-to-head"}
    three = table[table.players == 3].groupby("challenger").direction.apply(set)
    assert (three == {"alone", "field"}).all()
    # restricted (3: AGENT already never scores districts), lifted, 1 random, tempo +-25%.
    kinds = [c.kind for c in config.challengers[2]]
    assert kinds == ["restricted"] * 3 + ["lifted", "perturbed", "step", "step"]
    assert all(g == 40 for g in table[table.players == 2].games)
    assert all(g == 42 for g in table[table.players == 3].games)  # whole rotations


def test_corrected_intervals_agree_with_the_verdicts(
        probed: tuple[ProbeConfig, pd.DataFrame, pd.DataFrame]) -> None:
    _, _, table = probed
    for r in table.itertuples():
        expected = "beats" if r.adj_lo > r.parity else \
            "loses" if r.adj_hi < r.parity else "even"
        assert r.verdict == expected
        assert (r.verdict != "even") == bool(r.significant)  # Holm's own decision
        assert r.adj_lo <= r.ci_lo <= r.win_share <= r.ci_hi <= r.adj_hi  # never narrower
    assert (table.holm_m == len(table)).all()  # one family: the whole probe


def test_perturbed_specs_are_deterministic_given_the_seed() -> None:
    one = challengers("heuristic:weights=classic", 4, seed=7)
    assert one == challengers("heuristic:weights=classic", 4, seed=7)
    other = challengers("heuristic:weights=classic", 4, seed=8)
    random_specs = [[c.spec for c in cs if c.kind == "perturbed"] for cs in (one, other)]
    assert len(random_specs[0]) == 4 and random_specs[0] != random_specs[1]
    assert [c.spec for c in one if c.kind != "perturbed"] == \
        [c.spec for c in other if c.kind != "perturbed"]
    # Each perturbed spec plays exactly the weights drawn (rounded as written).
    drawn = perturbations("heuristic:weights=classic", 4, 7, 4, 0.25)
    for spec, weights in zip(random_specs[0], drawn, strict=True):
        assert make_agent(spec).weights_for(4) == weights  # type: ignore[attr-defined]
    steps = {c.change: c.spec for c in one if c.kind == "step"}
    assert steps["tempo x1.25"] == "heuristic:weights=classic,tempo=1.875"
    assert steps["lane x0.75"] == "heuristic:weights=classic,lane=0.75"
    assert len(steps) == 2 * len(Weights.names())
    assert {c.spec for c in one if c.kind == "restricted"} == {
        f"{w}(heuristic:weights=classic)"
        for w in ("no-district", "no-customers", "no-bobby", "first-end")}


def test_the_stepped_weights_are_the_pilots_most_influential() -> None:
    config = ProbeConfig(agent="heuristic:weights=classic,bobby=0", players=(4,), games=4,
                         random=0, top=2)
    ranked = config.influence[4]
    assert "bobby" not in ranked  # a weight of 0 does not move under a step
    assert set(ranked) == set(Weights.names()) - {"bobby"}
    assert all(0 <= v <= 1 for v in ranked.values())
    top = sorted(ranked, key=lambda k: -ranked[k])[:2]
    stepped = [c.change for c in config.challengers[4] if c.kind == "step"]
    assert stepped == [f"{k} x{f}" for k in top for f in (1.25, 0.75)]
    again = ProbeConfig(agent="heuristic:weights=classic,bobby=0", players=(4,), games=4,
                        random=0, top=2)
    assert again.influence == config.influence  # the pilot is seeded too
    explicit = ProbeConfig(agent="heuristic", players=(2,), games=2, random=0,
                           weights=("stall",))
    assert explicit.influence == {}  # named weights need no pilot
    assert [c.change for c in explicit.challengers[2] if c.kind == "step"] == \
        ["stall x1.25", "stall x0.75"]


def test_search_agents_get_their_perturbed_weights_as_files(tmp_path: Path) -> None:
    found = challengers("fastmcts:iterations=10", 3, seed=1, random=2, weights=("lane",),
                        weights_dir=tmp_path)
    weighted = [c for c in found if c.kind in ("perturbed", "step")]
    assert len(weighted) == 4
    base = weight_sets.resolve("tuned", 3).weights
    for c in weighted:
        assert c.spec.startswith("fastmcts:iterations=10,weights=")
        path = c.spec.split("weights=")[1]
        assert Path(path).parent == tmp_path
        played = weight_sets.read_weight_set(path).weights
        assert played != base
    lane_up = next(c for c in weighted if c.change == "lane x1.25")
    assert weight_sets.read_weight_set(lane_up.spec.split("weights=")[1]).weights.lane == \
        pytest.approx(1.25 * base.lane, rel=5e-4)  # written to 4 significant digits


def test_command_line_probe_names_the_winner_and_exits_3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "probe.parquet"
    code = main(["tournament", "--probe", WEAK, "--players", "2", "--games", "40",
                 "--perturbations", "0", "--probe-weights", "tempo", "--out", str(out),
                 "--quiet"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == EXIT_BEATEN
    assert lines[-1].startswith(f"1 challenger(s) beat {WEAK}: heuristic (2 players")
    assert "| heuristic | lifted: without no-district | 2 | head-to-head | 40 |" in \
        "\n".join(lines)
    assert len(pd.read_parquet(out)) == 6 * 40 * 2  # 3 restricted, 1 lifted, 2 steps


@pytest.mark.parametrize(("argv", "message"), [
    (["--probe", "wizard"], "unknown agent 'wizard'"),
    (["--probe", "heuristic", "--agents", "greedy,random"], "leave out --agents"),
    (["--probe", "heuristic", "--pairs", "ladder"], "leave out --pairs"),
    (["--probe", "greedy", "--probe-weights", "tempo"], "plays no weights"),
    (["--probe", "heuristic", "--probe-weights", "speed"], "unknown weight"),
    (["--probe", "heuristic", "--step", "1.5"], "between 0 and 1"),
    (["--probe", "greedy,random"], "one agent spec"),
    (["--probe", "mcts:iterations=5", "--engine", "compiled"], "no compiled version"),
    (["--agents", "greedy,random", "--step", "0.1"], "only go with --probe"),
    ([], "give --agents"),
])
def test_bad_probe_input_is_one_message_and_exit_2(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]
                                                   ) -> None:
    code = main(["tournament", *argv, "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_probe_config_refuses_bad_input_with_probe_errors() -> None:
    with pytest.raises(ProbeError, match="players"):
        ProbeConfig(agent="heuristic", players=(9,))
    assert ProbeError("x").exit_code == 2
