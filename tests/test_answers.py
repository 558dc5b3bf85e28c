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
    assert "Does the known customer order change the first player's edge?" in first
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
