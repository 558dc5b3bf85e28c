"""Population studies that play the whole profile tensor (`profiles = "all"`): the line-ups
played, counted by hand; the default ("deviations") unchanged, run names and identity
alike; a bad value refused in one line; alpha-Rank over every profile; and a small study
played end to end, its summary and report listing every line-up."""

from __future__ import annotations

import hashlib
import json
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analysis.metagame.estimate import ProfileGames
from analysis.metagame.estimate import needed_profiles
from analysis.metagame.sampling import profiles_to_play
from analysis.metagame.solve import alpharank_tensor
from analysis.metagame.spec import population_from_dict
from analysis.metagame.study import identity
from analysis.metagame.study import units
from analysis.metagame.tensor import bot_shares
from analysis.metagame.tensor import lineup_mass
from analysis.metagame.tensor import lineups
from analysis.metagame.tensor import open_lineups
from analysis.metagame.tensor import seat_tables
from analysis.study.switches import StudyError
from sim.cli import main

BOTS = ["random", "greedy", "heuristic"]


def spec_dict(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "pop", "players": [2, 3, 4], "population": BOTS,
                            "seed": 1, "variants": [{"name": "standard"}]}
    base.update(changes)
    return base


def _runs(profiles: str | None, n: int) -> list[str]:
    data = spec_dict() if profiles is None else spec_dict(profiles=profiles)
    spec = population_from_dict(data, source="p.toml")
    return [u.key(spec, "standard") for u in units(spec) if u.players == n and not u.curve]


def test_all_plays_every_line_up_of_the_tensor() -> None:
    # Three bots r, g, h. At 3 players: rrr ggg hhh (3 symmetric), rrg rrh ggr ggh hhr hhg
    # (6 with one seat switched) and rgh (1): 10 = C(5, 3). At 4 players: 3 symmetric, 6
    # switched, rrgg rrhh gghh (3) and rrgh rggh rghh (3): 15 = C(6, 4).
    three, four = _runs("all", 3), _runs("all", 4)
    assert len(three) == 10 == comb(3 + 3 - 1, 3)
    assert len(four) == 15 == comb(3 + 4 - 1, 4)
    assert three[9:] == ["standard-3p-random-greedy-heuristic"]
    assert four[9:] == ["standard-4p-random-random-greedy-greedy",
                        "standard-4p-random-random-greedy-heuristic",
                        "standard-4p-random-random-heuristic-heuristic",
                        "standard-4p-random-greedy-greedy-heuristic",
                        "standard-4p-random-greedy-heuristic-heuristic",
                        "standard-4p-greedy-greedy-heuristic-heuristic"]
    # Every run is one line-up, its seats rotated: n distinct seat orders (one when every
    # seat plays the same bot), and together every line-up once.
    spec = population_from_dict(spec_dict(profiles="all"), source="p.toml")
    for n in (3, 4):
        held = [u for u in units(spec) if u.players == n]
        assert sorted(tuple(sorted(u.agents)) for u in held) == lineups(3, n)
        for u in held:
            assert len(set(u.profiles())) == (1 if len(set(u.agents)) == 1 else n)
    # At 2 players every ordered pair is played either way.
    assert _runs("all", 2) == _runs(None, 2)


def test_deviations_is_the_default_and_plays_as_before() -> None:
    # k symmetric + k (k - 1) one-seat switches = 3 + 6 runs, named as they always were;
    # as seat orders: 3 symmetric + 6 switches x 3 seats = 21 at 3 players.
    assert _runs(None, 3) == _runs("deviations", 3) == [
        "standard-3p-random", "standard-3p-greedy", "standard-3p-heuristic",
        "standard-3p-random-with-greedy", "standard-3p-random-with-heuristic",
        "standard-3p-greedy-with-random", "standard-3p-greedy-with-heuristic",
        "standard-3p-heuristic-with-random", "standard-3p-heuristic-with-greedy"]
    assert len(_runs(None, 4)) == 3 + 3 * 2
    assert _runs("all", 3)[:9] == _runs(None, 3)
    spec = population_from_dict(spec_dict(), source="p.toml")
    for n in (3, 4):
        seats = {p for u in units(spec) if u.players == n for p in u.profiles()}
        assert seats == set(needed_profiles(3, n))
    assert len(needed_profiles(3, 3)) == 3 + 6 * 3
    # The default leaves a folder's identity as it was (no `profiles` in it); the spec
    # record names it, as it always has.
    assert spec.profiles == "deviations" and spec.to_dict()["profiles"] == "deviations"
    assert "profiles" not in identity(spec)
    every = population_from_dict(spec_dict(profiles="all"), source="p.toml")
    assert identity(every) == {**identity(spec), "profiles": "all"}


@pytest.mark.parametrize("value", ["every", "All", 3, ["all"], True])
def test_a_bad_profiles_value_is_refused_in_one_line(value: Any) -> None:
    with pytest.raises(StudyError) as err:
        population_from_dict(spec_dict(profiles=value), source="p.toml")
    msg = err.value.message
    assert msg.startswith("p.toml: profiles: must be \"deviations\""), msg
    assert "or \"all\"" in msg and "\n" not in msg


def _planted(k: int, n: int, strength: np.ndarray, games: int = 1) -> dict[tuple[int, ...],
                                                                           np.ndarray]:
    """Every seat order of every line-up, each seat's share its bot's strength over the
    line-up's (shape (variants, games, seats))."""
    out = {}
    for m in lineups(k, n):
        for r in range(1 if len(set(m)) == 1 else n):
            p = tuple(m[(s + r) % n] for s in range(n))
            w = strength[list(p)] / strength[list(p)].sum()
            out[p] = np.tile(w, (1, games, 1))
    return out


def test_alpharank_over_the_tensor_finds_the_bot_no_seat_leaves() -> None:
    # Bot 2 is strongest in every line-up: a seat switching to it always gains, so every
    # path leads to all seats playing it.
    means = {p: s.mean(axis=1) for p, s in _planted(3, 3, np.array([1.0, 2.0, 4.0])).items()}
    pi = alpharank_tensor(seat_tables(bot_shares(means), 3, 3, 0))
    assert pi.shape == (27,) and pi.sum() == pytest.approx(1)
    mass = lineup_mass(pi, 3, 3)
    assert len(mass) == 10 and mass[(2, 2, 2)] > 0.99


def test_alpharank_over_the_tensor_of_a_coordination_game_splits_its_mass() -> None:
    # Two bots, the lone seat of a line-up wins nothing: neither symmetric line-up is ever
    # left at alpha 100 (the chain falls apart), so the limit of large alpha splits the
    # mass between them alike.
    means = {}
    for m in lineups(2, 3):
        for r in range(1 if len(set(m)) == 1 else 3):
            p = tuple(m[(s + r) % 3] for s in range(3))
            means[p] = np.array([[1 / 3] * 3 if len(set(p)) == 1 else
                                 [0.5 if p.count(b) == 2 else 0.0 for b in p]])
    mass = lineup_mass(alpharank_tensor(seat_tables(bot_shares(means), 2, 3, 0)), 2, 3)
    assert mass[(0, 0, 0)] == pytest.approx(mass[(1, 1, 1)])
    assert mass[(0, 0, 0)] + mass[(1, 1, 1)] > 0.9


def _noisy(strength: list[float], seed: int) -> ProfileGames:
    rng = np.random.default_rng(seed)
    return ProfileGames(3, 3, 1, {p: s + rng.normal(0, 0.3, s.shape) for p, s in
                                  _planted(3, 3, np.array(strength), games=40).items()})


def test_sampling_keeps_only_the_line_ups_alpharank_still_hangs_on() -> None:
    # Noisy games of planted strengths. 1, 3, 9: every switch moves the switching seat's
    # share by 8 points or more, clear on these games: no edge of the response graph is
    # open. 1, 1, 6: bots 0 and 1 alike, so a switch between them is a tie the games
    # cannot settle within ±3 points: the line-ups on such an edge go on (all but 2 2 2,
    # whose only switches, to a weaker bot, are clear), and none within a ±50 margin.
    clear = _noisy([1.0, 3.0, 9.0], 4)
    assert not open_lineups(clear.means(), clear.replicates(np.random.default_rng(1), 200),
                            3, 0.03)
    tie = _noisy([1.0, 1.0, 6.0], 4)
    reps = tie.replicates(np.random.default_rng(1), 200)
    held = open_lineups(tie.means(), reps, 3, 0.03)
    assert held and (2, 2, 2) not in held and held <= set(lineups(3, 3))
    assert not open_lineups(tie.means(), reps, 3, 0.5)
    # "all" adds them to what the answers ask for, deciding on the games and seed alone;
    # the answers' part is the "deviations" decision on the same games.
    first = profiles_to_play(tie, 0.03, False, seed=3, round_no=0, profiles="all")
    assert first == profiles_to_play(tie, 0.03, False, seed=3, round_no=0, profiles="all")
    answers = profiles_to_play(tie.only(needed_profiles(3, 3)), 0.03, False, 3, 0)
    assert answers == profiles_to_play(tie, 0.03, False, 3, 0)
    assert answers < first and first - answers <= set(lineups(3, 3)) - {(2, 2, 2)}


SMALL = """name = "pop-all"
players = [3]
population = ["random", "greedy", "heuristic"]
profiles = "all"
seed = 5
shard_size = 20
round_games = 10
max_games = 20
margin = 0.05
events = false

[[variants]]
name = "standard"
"""


def test_a_small_study_plays_every_line_up_and_ranks_them_all(tmp_path: Path) -> None:
    spec = tmp_path / "all.toml"
    spec.write_text(SMALL)
    assert main(["study", str(spec), "--out", str(tmp_path / "o"), "--report",
                 str(tmp_path / "r"), "--jobs", "1", "--quiet"]) == 0
    record = json.loads((tmp_path / "o" / "population.json").read_text())
    assert record["identity"]["profiles"] == "all"
    runs = {r["key"]: r for r in record["runs"]}
    assert len(runs) == 10 and runs["standard-3p-random-greedy-heuristic"]["games"] >= 30
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    v = summary["players"][0]["variants"][0]
    listed = v["alpharank_profiles"]
    names = {"random": 0, "greedy": 1, "heuristic": 2}
    assert [tuple(names[b] for b in p["profile"]) for p in listed] == lineups(3, 3)
    assert sum(p["mass"] for p in listed) == pytest.approx(1)
    assert sum(v["alpharank"]) == pytest.approx(1) and len(v["alpharank"]) == 3
    assert all(p["games"] >= 10 for p in listed)
    # The stable-profile answer still reads the symmetric profiles and their switches.
    assert [d["profile"] for d in v["deviations"]] == BOTS
    assert v["profile"]["bot"] in BOTS
    html = (tmp_path / "r" / "index.html").read_text()
    assert "Alpha-Rank over every profile of the tensor" in html
    assert "Every line-up (10)" in html and "random · greedy · heuristic" in html
    # Two jobs play the same games: the decisions read only the games and the seed.
    assert main(["study", str(spec), "--out", str(tmp_path / "two"), "--no-report",
                 "--jobs", "2", "--quiet"]) == 0
    assert _tables(tmp_path / "two") == _tables(tmp_path / "o")


def _tables(out: Path) -> list[tuple[str, str]]:
    files = sorted(p for p in (out / "runs").rglob("part-*") if "checksums" not in str(p))
    return [(p.relative_to(out).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
            for p in files]
