"""How a report's tables lay out: text wraps between words, never inside one (no "player s",
"advantag e" or "100.00 %"), checked on the shared style sheet and on a rendered page in a
real browser squeezed narrower than its widest table."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from analysis.report import build_report
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict

ROOT = Path(__file__).resolve().parent.parent
STYLE = ROOT / "analysis" / "templates" / "_style.html.j2"

# Every run of non-space, non-hyphen text in a table cell drawn on more than one line: a
# word the browser broke (a break after a hyphen is an ordinary line break).
BROKEN_WORDS = """
const broken = [];
for (const cell of document.querySelectorAll('th, td')) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/[^\\s\\-\\u2010-\\u2015]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
                            .map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
}
return broken;
"""


def test_the_style_sheet_never_breaks_a_word() -> None:
    css = STYLE.read_text()
    assert "overflow-wrap: anywhere" not in css and "break-all" not in css
    rules = dict(re.findall(r"^\s*([^{}/\n]+?)\s*\{([^}]*)\}", css, flags=re.M))
    wrapping = rules["th, td.txt, td.wrap"]
    assert "overflow-wrap: break-word" in wrapping and "word-break: normal" in wrapping
    assert "white-space: nowrap" in rules["td"]  # numbers (td.num) stay on one line


def test_no_word_of_a_rendered_report_is_broken(tmp_path: Path, browser: Any) -> None:
    spec = study_from_dict({
        "name": "layout", "players": [2, 3], "agents": "random", "games": 30, "seed": 3,
        "shard_size": 30, "variants": [{"name": "standard", "label": "Standard (drawn)"},
                                       {"name": "known", "label": "Known order",
                                        "preset": "known-order"}]})
    run_study(spec, tmp_path / "study", quiet=True)
    page = build_report(open_study(tmp_path / "study"), tmp_path / "report")
    browser.set_window_size(900, 1000)  # narrower than the widest tables: they must squeeze
    browser.get(page.resolve().as_uri())
    cells = browser.execute_script("return document.querySelectorAll('th, td').length")
    assert cells > 200
    assert browser.execute_script(BROKEN_WORDS) == []


@pytest.mark.parametrize("css", ["overflow-wrap: anywhere", "word-break: break-all"])
def test_the_check_sees_a_broken_word(tmp_path: Path, browser: Any, css: str) -> None:
    """The browser check itself: a header forced to break inside its words is caught."""
    page = tmp_path / "p.html"
    page.write_text(f"<table><tr><th style='width:2em;{css}'>players advantage</th>"
                    "<td>1</td></tr></table>")
    browser.get(page.as_uri())
    assert browser.execute_script(BROKEN_WORDS)
