"""Games to watch (`analysis.report.watch`): a study that keeps records links to viewer
pages of the right games; one that does not, links to none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analysis.report import build_report
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict
from sim.games.portobello.records import replay
from sim.games.portobello.view.source import from_run


def spec(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "watch", "players": [2], "agents": "greedy", "seed": 4, "games": 40,
        "shard_size": 20, "records": True,
        "variants": [{"name": "standard", "preset": "standard"},
                     # 3 rounds: every game stops at the round limit, an anomaly to watch
                     {"name": "short", "preset": "standard", "rules": {"max_rounds": 3}}]}
    data.update(changes)
    return data


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("watch")
    run_study(study_from_dict(spec(), "w.toml"), out / "study", quiet=True)
    page = build_report(open_study(out / "study"), out / "report")
    return out / "study", page


def test_the_report_links_the_largest_margin_a_typical_game_and_the_anomalies(
        study: tuple[Path, Path]) -> None:
    folder, page = study
    html = page.read_text()
    assert '<section id="watch">' in html
    data = open_study(folder)
    players = data.players()
    std = players[players["variant"] == "standard"]
    # the largest winning margin, by hand: each game's best score minus the second best
    margins = {g: (lambda s: s[0] - s[1])(sorted(grp["score"], reverse=True))
               for g, grp in std.groupby("game_id")}
    top = max(margins.values())
    biggest = min(g for g, m in margins.items() if m == top)
    assert f'href="games/standard-2p-game{biggest}.html"' in html
    assert f"largest margin ({top} points)" in html
    # the linked page is that game: its record replays to the scores the run logged
    src = from_run(folder / "runs" / "standard-2p", biggest)
    game = replay(src.record)
    logged = std[std["game_id"] == biggest].sort_values("seat")["score"].tolist()
    assert list(game.scores) == logged
    assert (page.parent / "games" / f"standard-2p-game{biggest}.html").is_file()
    assert "typical game (margin" in html
    # every game of the short variant hits the round limit: its first examples are linked
    assert "round limit reached" in html and 'href="games/short-2p-game0.html"' in html


def test_no_records_no_links(tmp_path: Path) -> None:
    run_study(study_from_dict(spec(records=False, games=10, shard_size=10), "w.toml"),
              tmp_path / "study", quiet=True)
    page = build_report(open_study(tmp_path / "study"), tmp_path / "report")
    assert '<section id="watch">' not in page.read_text()
    assert not (tmp_path / "report" / "games").exists()


def test_records_must_be_a_boolean() -> None:
    from analysis.study import StudyError

    with pytest.raises(StudyError, match="records: must be true or false, got 'yes'"):
        study_from_dict(spec(records="yes"), "w.toml")
