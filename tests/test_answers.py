"""README's answers and reports/README.md are what the committed reports' summary.json files
say now (`analysis.report.answers`): a figure shown in two places cannot disagree, because
one of them is written from the other. After rebuilding a report, `make answers`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from analysis.report.answers import ANSWERS_BEGIN
from analysis.report.answers import ANSWERS_END
from analysis.report.answers import readme_answers
from analysis.report.answers import reports_index
from analysis.report.answers import with_answers

REPO = Path(__file__).resolve().parents[1]


def test_readme_shows_the_answers_the_reports_give() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index(ANSWERS_BEGIN):readme.index(ANSWERS_END) + len(ANSWERS_END)]
    assert block == readme_answers(REPO / "reports"), "README is stale: run `make answers`"


def test_reports_readme_is_written_from_the_reports() -> None:
    assert (REPO / "reports" / "README.md").read_text(encoding="utf-8") == \
        reports_index(REPO / "reports"), "reports/README.md is stale: run `make answers`"


def test_the_central_answer_is_on_the_first_screen_with_its_label() -> None:
    """Within README's first 40 lines: the customer-order question, a row per player count
    with the change, its interval and the skill ladder's label."""
    first = "\n".join((REPO / "README.md").read_text(encoding="utf-8").splitlines()[:40])
    question = "Does the known customer order change the first player's edge?"
    assert question in first
    first = first[first.index(question):]
    first = first[:first.index("\n**")]  # its table, up to the next question
    row = (r"^\| ([234]) \| [^|]* \| ([+-]\d+\.\d) pp \[[^]]*\][^|]*"  # change, interval, verdict
           r" \| \*\*([a-z -]+)\*\*")                                   # the ladder's label
    rows = re.findall(row, first, re.M)
    assert [r[0] for r in rows] == ["2", "3", "4"]
    summary = json.loads((REPO / "reports" / "customer-order" / "summary.json").read_text())
    changes = {r["n_players"]: r for r in summary["comparisons"]
               if r["measure"] == "seat 0 win share"}
    for n, diff, label in rows:
        assert f"{100 * changes[int(n)]['diff']:+.1f}" == diff
        assert label in ("robust", "skill-dependent", "reversed", "not found")


def test_readme_stays_a_front_page() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_the_block_is_replaced_whole() -> None:
    text = f"intro\n{ANSWERS_BEGIN}\nold\n{ANSWERS_END}\nrest\n"
    assert with_answers(text, f"{ANSWERS_BEGIN}\nnew\n{ANSWERS_END}") == \
        f"intro\n{ANSWERS_BEGIN}\nnew\n{ANSWERS_END}\nrest\n"


def test_readmes_commands_write_under_data_runs() -> None:
    """README's commands leave the checkout clean: every file or folder they write (`--out`,
    `--report`, `--record`, a redirect) is under data/runs/, which git ignores."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    text = "\n".join(blocks).replace("\\\n", " ")
    outputs = re.findall(r"(?:--out|--report|--record)\s+(\S+)|>\s*(\S+)", text)
    paths = [a or b for a, b in outputs]
    assert len(paths) >= 8
    assert all(p.startswith("data/runs/") for p in paths), paths
    assert "data/runs/" in (REPO / ".gitignore").read_text()


def test_a_study_with_a_ladder_of_its_own_shows_each_change_with_its_label(
        tmp_path: Path) -> None:
    """`reports/stalls-ladder` beside `reports/stalls`: each change of the first player's
    share gets the ladder's label for the same variant and player count, its size at the
    ladder's strongest level and its convergence; without the ladder, one sentence that
    says it is not on one."""
    from analysis.report.answers import _laddered

    change = {"measure": "seat 0 win share", "n_players": 4, "variant": "stalls-12",
              "baseline": "stalls-16", "diff": -0.058, "adj_lo": -0.084, "adj_hi": -0.032,
              "significant": True}
    study = {"comparisons": [change], "variants": [{"name": "stalls-12", "label": "12"}],
             "ladder": {"level": "Learned agent"}}
    finding = {"kind": "effect", "n_players": 4, "variant": "stalls-12",
               "measure": "seat 0 win share", "label": "skill-dependent",
               "levels": [{"estimate": 0.021, "adj_lo": -0.05, "adj_hi": 0.09,
                           "significant": False}],
               "convergence": {"text": "not converged (too few games)"}}
    ladder = {"skill": {"levels": [{"label": "Random"}, {"label": "Search (100 it.)"}],
                        "findings": [finding]}}
    for name, data in (("stalls", study), ("stalls-ladder", ladder)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps(data))
    lines = _laddered(tmp_path, "stalls", "How many stalls?", "the rulebook's 16")
    assert "| 4 | 12 | -5.8 pp [-8.4, -3.2], significant | **skill-dependent** | " \
           "+2.1 pp [-5.0, +9.0], not significant | not converged (too few games) |" in lines
    # The question, then the line of advice (skill-dependent: do not rely on it), then
    # what was measured and the table.
    assert lines[0] == "**How many stalls?**"
    assert lines[2].startswith("*What to do*") and "12 at 4p: do not rely on" in lines[2]
    assert "across 2 levels" in lines[4] and "at Search (100 it.)" in lines[6]
    (tmp_path / "stalls-ladder" / "summary.json").unlink()
    alone = _laddered(tmp_path, "stalls", "How many stalls?", "the rulebook's 16")
    # Without a ladder the change is significant at its only level: a candidate.
    assert "12 at 4p: candidate" in alone[2]
    assert "only (not on a ladder): 12 at 4p -5.8 pp [-8.4, -3.2], significant" in alone[4]
