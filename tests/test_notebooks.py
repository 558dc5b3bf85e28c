"""The notebooks execute on small studies (random agents, a few dozen games per cell) and show
what they claim: a first line naming the study folder they read, that it is a reduced run
and which agents played, tables whose values match numbers computed here straight from the
run folders (`analysis.load`, polars, no `analysis.metrics`), and charts that are not blank.
How a notebook picks its folder (and labels a built-in sample) is checked without running
one."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import polars as pl
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient
from PIL import Image

from analysis.load import RunData
from analysis.load import load_run
from analysis.study import load_study
from analysis.study import run_study

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = {"customer-order": 60, "neutral-stack": 40}  # games per cell
# Charts each notebook shows: customer order: win shares, comparisons, 2 luck charts, scores,
# margins, length, points, one board figure per player count; neutral stack: win shares,
# districts, comparisons, points, scores, length.
FIGURES = {"customer-order": 11, "neutral-stack": 6}
HALF_UNIT = {4: 0.5e-4, 2: 0.5e-2}  # rounding to 4 or 2 decimals moves a value this far


# -- reading the executed notebook ----------------------------------------------------------
def code_cell(nb: Any, snippet: str) -> Any:
    """The one code cell whose source contains `snippet`."""
    cells = [c for c in nb.cells if c.cell_type == "code" and snippet in c.source]
    assert len(cells) == 1, f"{len(cells)} cells contain {snippet!r}"
    return cells[0]


def stdout(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")


def shown_table(cell: Any) -> dict[tuple[str, ...], dict[str, str]]:
    """The DataFrame a cell ends with, read back from its HTML: {index labels: {column:
    text}} (row labels spanning several rows are repeated on each)."""
    html = [o["data"]["text/html"] for o in cell.outputs if o["output_type"] == "execute_result"]
    assert len(html) == 1, "the cell shows no table"
    table = BeautifulSoup(html[0], "html.parser").find("table")
    body = table.find("tbody").find_all("tr")
    levels = len(body[0].find_all("th"))
    header = [th.get_text(strip=True) for th in table.find("thead").find("tr").find_all("th")]
    columns = header[levels:]
    out: dict[tuple[str, ...], dict[str, str]] = {}
    index: list[str] = []
    for tr in body:
        labels = [th.get_text(strip=True) for th in tr.find_all("th")]
        index = index[: levels - len(labels)] + labels
        values = [td.get_text(strip=True) for td in tr.find_all("td")]
        assert len(values) == len(columns)
        out[tuple(index)] = dict(zip(columns, values, strict=True))
    return out


def figures_shown(nb: Any) -> list[np.ndarray]:
    """Every PNG the notebook displayed, as RGB arrays."""
    return [np.asarray(Image.open(io.BytesIO(base64.b64decode(o["data"]["image/png"])))
                       .convert("RGB"))
            for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if "image/png" in o.get("data", {})]


def drawn(image: np.ndarray) -> bool:
    """A chart, not a blank canvas: a fair share of non-white pixels in many colours."""
    ink = (image < 235).any(axis=2)
    colours = len(np.unique(image.reshape(-1, 3), axis=0))
    return bool(ink.mean() > 0.02 and colours > 20)


def close(text: str, value: float, decimals: int) -> bool:
    return abs(float(text) - value) <= HALF_UNIT[decimals] + 1e-9


# -- the same numbers, straight from the run folders ----------------------------------------
def cells_of(study: Path) -> list[tuple[str, int, RunData]]:
    """(variant, players, run) of every cell, from study.json and the runs' own folders."""
    meta = json.loads((study / "study.json").read_text())
    assert all(c["status"] == "complete" for c in meta["cells"])
    return [(c["variant"], int(c["players"]), load_run(study / c["run"])) for c in meta["cells"]]


def seat_shares(run: RunData) -> dict[int, tuple[int, float]]:
    """Seat -> (games, win share): a tie splits the win, so shares are means of win_share."""
    df = run.players().group_by("seat").agg(pl.len().alias("games"),
                                            pl.col("win_share").mean().alias("share")).collect()
    return {int(r["seat"]): (int(r["games"]), float(r["share"])) for r in df.iter_rows(named=True)}


def first_output_line(nb: Any) -> str:
    """The first line the notebook prints (the first code cell's first output)."""
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert first.outputs and first.outputs[0].get("name") == "stdout", first.outputs[:1]
    return first.outputs[0]["text"].splitlines()[0]


def check_header(nb: Any, study: Path, cells: list[tuple[str, int, RunData]]) -> None:
    # The first line says which folder this is, that it is a reduced run of the spec with
    # other agents, and which agents played.
    games = NOTEBOOKS[study.name]
    assert first_output_line(nb) == (
        f"Showing the study folder PORTOBELLO_STUDY_DIR names (reduced: {games} games per "
        "cell, the spec asks for 4,400–4,500; agents random instead of the spec's "
        f"expert): {study} · agents: random")
    out = stdout(code_cell(nb, "data = open_study"))
    assert f"games from {study}\n" in out  # the notebook read the study it was pointed at
    variants = list(dict.fromkeys(v for v, _, _ in cells))
    assert f"variants {variants}" in out
    games = sum(run.games().select(pl.len()).collect().item() for _, _, run in cells)
    assert f", {games:,} games from" in out
    agents = sorted({a for _, _, run in cells for a in run.manifest["agents"]})
    assert agents == ["random"] and "agents: random\n" in out


def check_win_shares(nb: Any, cells: list[tuple[str, int, RunData]]) -> None:
    shown = shown_table(code_cell(nb, 'a.tables["win_shares"]'))
    rows = {(r["variant"], r["n_players"], r["seat"]): r for r in shown.values()}
    expected = {(v, str(n), str(seat)): gs for v, n, run in cells
                for seat, gs in seat_shares(run).items()}
    assert rows.keys() == expected.keys()
    for key, (games, share) in expected.items():
        assert int(rows[key]["games"]) == games, key
        assert close(rows[key]["share"], share, 4), (key, rows[key]["share"], share)
    first = shown_table(code_cell(nb, 'a.tables["first_player"]'))
    firsts = {(r["variant"], r["n_players"]): r for r in first.values()}
    for (v, n, seat), (_, share) in expected.items():
        if seat == "0":
            assert close(firsts[(v, n)]["share"], share, 4), (v, n)
            assert close(firsts[(v, n)]["advantage"], share - 1 / int(n), 4), (v, n)


def check_figures(nb: Any, name: str) -> None:
    images = figures_shown(nb)
    assert len(images) == FIGURES[name]
    assert all(drawn(img) for img in images)
    assert not drawn(np.full_like(images[0], 255))  # the check can fail: a blank canvas


def check_customer_order(nb: Any, cells: list[tuple[str, int, RunData]]) -> None:
    assert stdout(code_cell(nb, "data.failed")) == "failed cells: none\n"
    # Known order against standard, paired on the same seeds: mean rounds (games stopped by
    # the round limit on either side left out) and mean winning margin.
    runs = {(v, n): run for v, n, run in cells}
    shown = shown_table(code_cell(nb, 'cmp = a.tables["comparisons"]'))
    rows = {(r["n_players"], r["measure"]): r for r in shown.values()}
    for n in (2, 3, 4):
        games = [runs[(v, n)].games().select("game_id", "rounds", "end_reason").collect()
                 for v in ("standard", "known")]
        both = games[0].join(games[1], on="game_id", suffix="_known").filter(
            (pl.col("end_reason").cast(pl.String) != "round_limit")
            & (pl.col("end_reason_known").cast(pl.String) != "round_limit"))
        row = rows[(str(n), "rounds (round-limit games left out)")]
        assert close(row["base_mean"], both["rounds"].mean(), 4), n
        assert close(row["variant_mean"], both["rounds_known"].mean(), 4), n
        margins = []
        for v in ("standard", "known"):
            top = (runs[(v, n)].players().sort("score", descending=True).group_by("game_id")
                   .agg(pl.col("score").slice(0, 2)).collect())
            margins.append(float(np.mean([s[0] - s[1] for s in top["score"]])))
        row = rows[(str(n), "winning margin")]
        assert close(row["base_mean"], margins[0], 4) and close(row["variant_mean"],
                                                                margins[1], 4), n
        assert close(row["diff"], margins[1] - margins[0], 4), n


def check_neutral_stack(nb: Any, cells: list[tuple[str, int, RunData]]) -> None:
    # Mean round of district scoring, from the events.
    shown = shown_table(code_cell(nb, 'data.events(["score_district"])'))
    for v, n, run in cells:
        mean_round = (run.events().filter(pl.col("action").cast(pl.String) == "score_district")
                      .select(pl.col("round").mean()).collect().item())
        assert close(shown[(str(n),)][v], mean_round, 2), (v, n)
    # Points by source: the players' mean points from lanes, districts, the baron, Bobby.
    points = shown_table(code_cell(nb, "M.PointsBySource()"))
    sources = {"lanes": "lane_points", "districts": "district_points", "baron": "baron_points",
               "bobby received": "bobby_received"}
    for v, n, run in cells:
        means = run.players().select(pl.col(c).mean() for c in [*sources.values(),
                                                                 "bobby_paid"]).collect()
        row = points[(str(n), v)]
        for source, column in sources.items():
            assert close(row[source], means[column].item(), 2), (v, n, source)
        assert close(row["bobby paid"], -means["bobby_paid"].item(), 2), (v, n)
        assert close(row["start"], run.rules().start_score, 2)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_shows_the_study(name: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_study(ROOT / "data" / "studies" / f"{name}.toml").with_overrides(
        games=NOTEBOOKS[name], agents="random")
    study = tmp_path / name
    run_study(spec, study, quiet=True)
    monkeypatch.setenv("PORTOBELLO_STUDY_DIR", str(study))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]

    cells = cells_of(study)
    assert {v for v, _, _ in cells} == {v.name for v in spec.variants}
    check_header(nb, study, cells)
    check_win_shares(nb, cells)
    check_figures(nb, name)
    if name == "customer-order":
        check_customer_order(nb, cells)
    else:
        check_neutral_stack(nb, cells)


def test_notebooks_say_which_folder_they_show(tmp_path: Path) -> None:
    """PORTOBELLO_STUDY_DIR first (an error when it names no study, never another folder),
    then the full study's folder, then make demo's; with none, the built-in sample's folder,
    whose first line says it is a sample."""
    from analysis.report.provenance import locate_study
    from analysis.report.provenance import notebook_header
    from analysis.study import open_study

    studies = tmp_path / "data" / "runs" / "studies"
    choice = locate_study("customer-order", tmp_path, env={})
    assert (choice.source, choice.path) == ("sample", studies / "customer-order-notebook-sample")
    for folder in ("customer-order-demo", "customer-order", "elsewhere"):
        (studies / folder).mkdir(parents=True)
        (studies / folder / "study.json").write_text("{}")
    assert locate_study("customer-order", tmp_path, env={"PORTOBELLO_STUDY_DIR": ""}) \
        .source == "study"
    (studies / "customer-order" / "study.json").unlink()
    assert locate_study("customer-order", tmp_path, env={}).source == "demo"
    given = locate_study("customer-order", tmp_path,
                         env={"PORTOBELLO_STUDY_DIR": str(studies / "elsewhere")})
    assert (given.source, given.path) == ("env", studies / "elsewhere")
    with pytest.raises(FileNotFoundError, match="is not a study folder"):
        locate_study("customer-order", tmp_path,
                     env={"PORTOBELLO_STUDY_DIR": str(tmp_path / "missing")})

    # The sample, as the notebook plays it (fewer games here), labels itself in line one.
    spec = load_study(ROOT / "data" / "studies" / "customer-order.toml").with_overrides(
        games=4, agents="random")
    run_study(spec, choice.path, quiet=True)
    line = notebook_header(choice, open_study(choice.path))
    assert line == ("Showing BUILT-IN SAMPLE, not the study's results (reduced: 4 games per "
                    "cell, the spec asks for 4,400–4,500; agents random instead of the spec's "
                    f"expert): {choice.path} · agents: random")


def test_a_relative_study_dir_is_read_from_the_repository_root(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PORTOBELLO_STUDY_DIR=data/runs/... works although the notebook's kernel runs in
    notebooks/: from the root first, then from where the server was started ($PWD), then
    from the kernel's folder; a relative path found nowhere names every folder tried."""
    from analysis.report.provenance import locate_study

    root, started = tmp_path / "repo", tmp_path / "elsewhere"
    (root / "notebooks").mkdir(parents=True)
    monkeypatch.chdir(root / "notebooks")
    rel = "data/runs/studies/mine"
    for base in (root, started):
        (base / rel).mkdir(parents=True)
    (started / rel / "study.json").write_text("{}")
    env = {"PORTOBELLO_STUDY_DIR": rel, "PWD": str(started)}
    assert locate_study("customer-order", root, env=env).path == started / rel
    (root / rel / "study.json").write_text("{}")
    assert locate_study("customer-order", root, env=env).path == root / rel
    with pytest.raises(FileNotFoundError) as err:
        locate_study("customer-order", root, env={"PORTOBELLO_STUDY_DIR": "data/none"})
    assert str(root / "data/none") in str(err.value)
    assert str(root / "notebooks" / "data/none") in str(err.value)
