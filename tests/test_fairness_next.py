"""What a fairness report says to try next where no setting was confirmed fair: read from
the cell's profiles (the range to widen, a step too coarse, a near miss for more games),
on the report page and in `portobello tune`'s closing lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from analysis.report.fairness import render
from analysis.report.fairness_next import GENERAL
from analysis.report.fairness_next import next_steps

ROOT = Path(__file__).resolve().parent.parent


def cell(shares: dict[int, float], switch: str = "start_scores", low: int = -4,
         high: int = 4, confirmed: bool = False, fair_on_search: bool = False,
         half: float = 0.01) -> dict[str, Any]:
    """A 2-player cell with one knob for seat 1 whose profile gives seat 1 `shares[v]` at
    value v (intervals ± `half`); the recommendation is the profile's first value."""
    name = f"{switch}[1]"
    points = [{"value": v, "shares": [1 - s, s],
               "intervals": [[1 - s - half, 1 - s + half], [s - half, s + half]]}
              for v, s in shares.items()]
    first = min(shares)
    setting = {name: first}
    return {"players": 2, "dimensions": [{"name": name, "switch": switch, "low": low,
                                          "high": high, "seats": [1]}],
            "profiles": [{"dimension": name, "points": points}],
            "history": [{"setting": setting, "fair": fair_on_search}],
            "recommended": {"setting": setting, "label": f"{name} {first:+d}",
                            "confirmed": confirmed,
                            "intervals": [[0.52, 0.54], [0.46, 0.48]]}}


def test_a_confirmed_cell_needs_nothing() -> None:
    assert next_steps(cell({0: 0.45, 1: 0.55}, confirmed=True)) == []


@pytest.mark.parametrize(("shares", "says"), [
    ({2: 0.40, 3: 0.43, 4: 0.46}, "widen the range above +4"),
    ({-4: 0.56, -3: 0.55}, "widen the range below -4"),
    ({0: 0.461, 1: 0.526}, "lies between +0 (0.461) and +1 (0.526)"),
])
def test_the_profile_says_where_the_fair_point_lies(shares: dict[int, float],
                                                    says: str) -> None:
    steps = next_steps(cell(shares))
    assert len(steps) == 1 and says in steps[0], steps


def test_a_knob_that_cannot_go_lower_says_so() -> None:
    steps = next_steps(cell({0: 0.56, 1: 0.58}, switch="seat_coins", low=0))
    assert steps == ["seat_coins[1]: seat 1 still wins 0.560 at +0, the foot of its range "
                     "(above 1/2 = 0.500): Coins cannot go below 0, so help the other seats "
                     "instead"]


def test_a_crossing_within_the_intervals_is_not_a_coarse_step() -> None:
    """Shares on either side of 1/2 but one within its interval: noise, not a coarse knob;
    a setting fair on the search's games asks for more confirmation games."""
    steps = next_steps(cell({0: 0.495, 1: 0.53}, fair_on_search=True))
    assert len(steps) == 1 and "confirm with more games" in steps[0]
    assert "misses 1/2 by 2.0 pp" in steps[0]
    assert next_steps(cell({0: 0.495, 1: 0.53})) == [GENERAL]


def test_the_report_and_the_command_say_what_to_try_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    summary = json.loads((ROOT / "reports" / "river-coins" / "summary.json").read_text())
    page = render(summary, dpi=30)
    assert page.count("What to try next:") == sum(
        not c["recommended"]["confirmed"] for c in summary["cells"])
    assert "seat 1&#39;s fair point lies between +0 (0.461) and +1 (0.526)" in page

    # The command's closing lines, on the same summary (the tuning itself not played).
    from sim.cli.command import main
    from sim.tuning.fairness import run

    monkeypatch.setattr(run, "tune_rules", lambda *args, **kwargs: summary)
    assert main(["tune", str(ROOT / "data" / "tuning" / "river-coins.toml"), "--out",
                 str(tmp_path / "t"), "--no-report", "--quiet"]) == 1
    err = capsys.readouterr().err.splitlines()
    at = next(i for i, line in enumerate(err) if line.startswith("2p:"))
    assert err[at + 1].startswith("  what to try next: seat_coins[1]: seat 1's fair point")
