"""The toolkit's current answers, written from the committed reports' own summary.json files
(never typed by hand), so that README, `reports/README.md` and the reports cannot disagree.

- `readme_answers(reports)`: the block README shows on its first screen, between the markers
  `ANSWERS_BEGIN` and `ANSWERS_END`: the central question (does the known customer order
  change the first player's edge?) per player count with its Holm-adjusted interval, its
  skill-ladder label and its value at the ladder's strongest level, then the other studies'
  headline answers; then River Market's (the second game): its first player's edge and
  the shorter game with the labels of the study's own skill levels, and its compensation;
- `reports_index(reports)`: `reports/README.md`, every committed report with its question,
  its answers (each with its label where a ladder gives one), the games it played and what
  they cost.

`make answers` (`python -m analysis.report.answers`) writes both; a test checks that what is
committed is what these functions write now.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ANSWERS_BEGIN = "<!-- answers: begin (written by `make answers` from reports/*/summary.json) -->"
ANSWERS_END = "<!-- answers: end -->"
ORDER = ("customer-order", "skill-ladder", "neutral-stack", "neutral-stack-ladder", "stalls",
         "stalls-ladder", "compensation", "compensation-search", "river-market", "river-coins")


def _load(reports: Path, name: str) -> dict[str, Any] | None:
    path = reports / name / "summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def _ci(lo: float, hi: float) -> str:
    return f"[{_pp(lo)}, {_pp(hi)}]"


def _change(r: dict[str, Any]) -> str:
    """`-6.7 pp [-9.9, -3.5], significant` from a comparisons row (Holm-adjusted); a row
    without an interval (the same outcome in every game) says so."""
    if r.get("adj_lo") is None:
        return f"{_pp(r['diff'])} pp in every game (the same games)"
    return (f"{_pp(r['diff'])} pp {_ci(r['adj_lo'], r['adj_hi'])}, "
            + ("significant" if r["significant"] else "not significant"))


def _seat0_changes(s: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in s.get("comparisons", []) if r["measure"] == "seat 0 win share"]


def _ladder_findings(ladder: dict[str, Any] | None) -> dict[tuple[Any, ...], dict[str, Any]]:
    if not ladder or not ladder.get("skill"):
        return {}
    return {(f["kind"], int(f["n_players"]), f["variant"], f["measure"]): f
            for f in ladder["skill"]["findings"]}


def _top(f: dict[str, Any] | None) -> str:
    """A ladder finding at its strongest level: `+4.3 pp [-3.4, +12.0], not significant`."""
    if not f or not f.get("levels"):
        return "–"
    t = f["levels"][-1]
    return (f"{_pp(t['estimate'])} pp {_ci(t['adj_lo'], t['adj_hi'])}, "
            + ("significant" if t["significant"] else "not significant"))


def _converged(f: dict[str, Any] | None) -> str:
    """A ladder finding's convergence at the top (`analysis.metrics.convergence`), as
    shown: `converged`, `not converged (too few games)`; "–" for a ladder without it."""
    c = (f or {}).get("convergence")
    return str(c["text"]) if c else "–"


def _notes(cell: dict[str, Any]) -> str:
    """A recommendation's caveats: ` (not confirmed; checked: fair for heuristic)`, ` (not fair
    for the other levels checked)`; "" for a confirmed one without checks."""
    notes = [] if cell["recommended"].get("confirmed") else ["not confirmed"]
    checks = cell.get("checks") or []
    fair = [str(c["agents"][0]) for c in checks if c.get("fair")]
    if fair:
        notes.append(f"checked: fair for {' and '.join(fair)}")
    elif checks:
        notes.append("not fair for the other levels checked")
    return f" ({'; '.join(notes)})" if notes else ""


def _label(s: dict[str, Any], v: str) -> str:
    return next((x["label"] for x in s.get("variants", []) if x["name"] == v), v)


def _top_level(ladder: dict[str, Any] | None) -> str:
    if not ladder or not ladder.get("skill"):
        return "the strongest level"
    return str(ladder["skill"]["levels"][-1]["label"])


def _level_of(s: dict[str, Any]) -> str:
    lad = s.get("ladder") or {}
    return str(lad.get("level") or "one level of play")


def _games(s: dict[str, Any]) -> int:
    return int(s["configuration"]["games"])


def _cost(s: dict[str, Any]) -> str:
    """Games and the seconds they took (cells resumed from an earlier run: not counted)."""
    cells = s["configuration"]["cells"]
    secs = [c.get("seconds") for c in cells]
    played = sum(x for x in secs if x)
    jobs = sorted({str(c.get("jobs")) for c in cells if c.get("jobs")})
    if not any(secs):
        return f"{_games(s):,} games (their cost was not recorded)"
    note = "" if all(secs) else " (some cells' cost not recorded)"
    return (f"{_games(s):,} games, {_duration(played)} of play with {', '.join(jobs)} "
            f"job(s){note}")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# -- README's block ---------------------------------------------------------------------------
def readme_answers(reports: Path) -> str:
    """README's answers block (markers included)."""
    co, lad = _load(reports, "customer-order"), _load(reports, "skill-ladder")
    lines = [ANSWERS_BEGIN]
    if co is not None:
        verdicts = _ladder_findings(lad)
        top = _top_level(lad)
        first = {(r["variant"], r["n_players"]): r for r in co["first_player"]}
        lines += [
            "**Does the known customer order change the first player's edge?** Measured with "
            f"the {_level_of(co)} in every seat ([report](reports/customer-order/index.html), "
            f"{_games(co):,} games); the label is the "
            "[skill ladder](reports/skill-ladder/index.html)'s across "
            f"{len(lad['skill']['levels']) if lad else 'several'} levels of play "
            "(robust would mean: the same direction at every level from the heuristic up); "
            "converged would mean: the two strongest levels agree within ±2 pp and the "
            "strongest is not beaten by itself at double the budget.",
            "",
            "| players | first player wins, standard rules | known order changes it by "
            f"(Holm-adjusted) | skill ladder | at {top} | converged? |",
            "| --- | --- | --- | --- | --- | --- |"]
        for r in _seat0_changes(co):
            n = int(r["n_players"])
            base = first.get((r["baseline"], n))
            f = verdicts.get(("effect", n, r["variant"], "seat 0 win share"))
            share = (f"{100 * base['share']:.1f}% (fair {100 * base['fair']:.0f}%)"
                     if base else "–")
            lines.append(f"| {n} | {share} | {_change(r)} | "
                         f"**{f['label'] if f else 'not examined'}** | {_top(f)} | "
                         f"{_converged(f)} |")
        lines.append("")
        fp = [verdicts.get(("first player", n, "standard", "seat 0 win share"))
              for n in (2, 3, 4)]
        if any(fp):
            words = ", ".join(f"{n} players: **{f['label']}** ({_top(f)} at {top}"
                              + (f"; {_converged(f)}" if f.get("convergence") else "") + ")"
                              for n, f in zip((2, 3, 4), fp, strict=True) if f)
            lines += [f"**Does the first player have an edge (standard rules)?** {words}.", ""]
    lines += _laddered(reports, "neutral-stack", "Does the neutral stack's order matter?",
                       "the standard stack")
    lines += _laddered(reports, "stalls", "How many stalls at four players?",
                       "the rulebook's 16")
    for name in ("compensation", "compensation-search"):
        fr = _load(reports, name)
        if fr is None:
            continue
        cells = "; ".join(
            f"{c['label']} at {c['players']}p: {c['recommended']['start_scores']}"
            + _notes(c) for c in fr["cells"])
        lines += [f"**What start scores make the seats fair ({fr['agents']})?** {cells} "
                  f"(seat 0 first; [report](reports/{name}/index.html)).", ""]
    lines += _river_answers(reports)
    lines.append(ANSWERS_END)
    return "\n".join(lines)


def _laddered(reports: Path, name: str, question: str, baseline: str) -> list[str]:
    """A study's changes of the first player's share against its baseline, each with its
    label across the levels of the study's own skill ladder (`reports/<name>-ladder`, the
    same variants from random play up), its size at the ladder's top and its convergence; a
    study without such a ladder, one sentence at its one level."""
    s = _load(reports, name)
    if s is None:
        return []
    ladder = _load(reports, f"{name}-ladder")
    link = f"([report](reports/{name}/index.html))"
    if not ladder or not ladder.get("skill"):
        parts = [f"{_label(s, r['variant'])} at {r['n_players']}p {_change(r)}"
                 for r in _seat0_changes(s)]
        return [f"**{question}** The first player's share against {baseline}, with the "
                f"{_level_of(s)} only (not on a ladder): " + "; ".join(parts) + f". {link}", ""]
    verdicts = _ladder_findings(ladder)
    top = _top_level(ladder)
    out = [f"**{question}** The first player's share against {baseline}, measured with the "
           f"{_level_of(s)} in every seat {link}; the label is its "
           f"[skill ladder](reports/{name}-ladder/index.html)'s across "
           f"{len(ladder['skill']['levels'])} levels of play.", "",
           "| players | rules | change (Holm-adjusted) | skill ladder | "
           f"at {top} | converged? |", "| --- | --- | --- | --- | --- | --- |"]
    for r in _seat0_changes(s):
        n = int(r["n_players"])
        f = verdicts.get(("effect", n, r["variant"], "seat 0 win share"))
        out.append(f"| {n} | {_label(s, r['variant'])} | {_change(r)} | "
                   f"**{f['label'] if f else 'not examined'}** | {_top(f)} | "
                   f"{_converged(f)} |")
    return [*out, ""]


def _river_answers(reports: Path) -> list[str]:
    """River Market's answers: per player count, the first player's share at the study's
    strongest level with its label across the levels, and what the shorter game changes;
    then the extra Coins its fairness tuning recommends."""
    lines: list[str] = []
    rm = _load(reports, "river-market")
    if rm is not None and rm.get("skill"):
        verdicts = _ladder_findings(rm)
        top = _top_level(rm)
        first = {(r["variant"], r["n_players"]): r for r in rm["first_player"]}
        changes = {int(r["n_players"]): r for r in _seat0_changes(rm)}
        lines += [
            "**River Market, the second game (on a reconstructed card set): does the first "
            "player have an edge, and does the rulebook's shorter game (4 houses) change "
            f"it?** Measured at {len(rm['skill']['levels'])} levels of play in every seat, "
            f"shown at the strongest, {top} ([report](reports/river-market/index.html), "
            f"{_games(rm):,} games); the labels are across its own levels.",
            "",
            f"| players | first player wins at {top} | edge across levels | the shorter "
            "game changes it by | across levels | converged? |",
            "| --- | --- | --- | --- | --- | --- |"]
        for n in sorted({int(r["n_players"]) for r in rm["first_player"]}):
            base = first.get(("standard", n))
            fp = verdicts.get(("first player", n, "standard", "seat 0 win share"))
            eff = verdicts.get(("effect", n, "short", "seat 0 win share"))
            share = (f"{100 * base['share']:.1f}% [{100 * base['adj_lo']:.1f}, "
                     f"{100 * base['adj_hi']:.1f}] (fair {100 * base['fair']:.0f}%)"
                     if base else "–")
            change = _change(changes[n]) if n in changes else "–"
            lines.append(f"| {n} | {share} | **{fp['label'] if fp else 'not examined'}** | "
                         f"{change} | **{eff['label'] if eff else 'not examined'}** | "
                         f"{_converged(fp)} |")
        lines.append("")
    rc = _load(reports, "river-coins")
    if rc is not None:
        cells = "; ".join(f"{c['players']}p: {c['recommended']['seat_coins']}" + _notes(c)
                          for c in rc["cells"])
        lines += [f"**What extra starting Coins make River Market's seats fair "
                  f"({rc['agents']})?** {cells} (seat 0 first; "
                  "[report](reports/river-coins/index.html)).", ""]
    return lines


# -- reports/README.md ------------------------------------------------------------------------
def reports_index(reports: Path) -> str:
    """reports/README.md: every committed report, its question and answers, its cost."""
    lines = ["# Committed reports", "",
             "Written by `make answers` from each report's own summary.json (do not edit by "
             "hand): the question, the headline answers with their labels, and the games and "
             "time each report cost. Each is rebuilt by the command in its study or tuning "
             "spec's header.", ""]
    names = [n for n in ORDER if (reports / n / "summary.json").is_file()]
    names += sorted(p.parent.name for p in reports.glob("*/summary.json")
                    if p.parent.name not in ORDER)
    for name in names:
        s = _load(reports, name)
        assert s is not None
        lines += [f"## [{s['title']}]({name}/index.html)", ""]
        if s.get("description"):
            lines += [" ".join(str(s["description"]).split()), ""]
        if "cells" in s and "format" in s:  # a fairness tuning
            lines += _fairness_lines(s)
        else:
            lines += _study_lines(s)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _study_lines(s: dict[str, Any]) -> list[str]:
    out = []
    if s.get("ladder"):
        lad = s["ladder"]
        out.append(f"Measured with the {lad.get('level') or 'agents shown'}; labels from the "
                   f"skill ladder ({lad['examined']} findings examined).")
    sk = s.get("skill")
    if sk:
        counts = ", ".join(f"{v} {k}" for k, v in sk["counts"].items())
        out.append(f"Skill levels: {', '.join(lv['label'] for lv in sk['levels'])}; "
                   f"labels: {counts}.")
        conv = sk.get("convergence")
        if conv:
            checks = "; ".join(f"{n} players {c['share']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}] "
                               f"against {c['fair']:.3f} ({c['state']})"
                               for n, c in conv["saturation"].items())
            agent = next((c["agent"] for c in conv["saturation"].values()), "")
            out.append(f"Converged at the top: {conv['counts'].get('converged', 0)} of "
                       f"{sum(conv['counts'].values())} findings"
                       + (f"; the saturation check ({agent} in one seat): {checks}" if checks
                          else "; no saturation check") + ".")
    out.append(f"Cost: {_cost(s)}.")
    out += ["", "Findings:", ""]
    for f in s["findings"]:
        if f.get("topic") in ("precision",):
            continue
        label = f"**{f['label']}** " if f.get("label") else ""
        out.append(f"- {label}{f['text']}")
    return out


def _fairness_lines(s: dict[str, Any]) -> list[str]:
    """A fairness tuning's recommendations: every seat's start score (River Market: every
    seat's extra Coins) and confirmed share, per cell."""
    out = [f"Agents: {s['agents']}.", ""]
    for c in s["cells"]:
        r = c["recommended"]
        shares = ", ".join(f"{100 * x:.1f}%" for x in r["shares"])
        seats = (f"extra Coins {r['seat_coins']}" if "seat_coins" in r else
                 f"start scores {r['start_scores']}")
        label = f"{c['label']}, " if c["label"] else ""
        out.append(f"- {label}{c['players']} players: {seats} (seat 0 first) give seat "
                   f"shares {shares} over "
                   f"{r['games']:,} games"
                   + (": confirmed fair" if r.get("confirmed") else ": not confirmed fair"))
    return out


# -- writing ----------------------------------------------------------------------------------
def with_answers(readme: str, block: str) -> str:
    """README's text with its answers block replaced by `block`."""
    start, end = readme.find(ANSWERS_BEGIN), readme.find(ANSWERS_END)
    if start < 0 or end < start:
        raise ValueError(f"README has no answers block ({ANSWERS_BEGIN} ... {ANSWERS_END})")
    return readme[:start] + block + readme[end + len(ANSWERS_END):]


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite README's answers block and reports/README.md (from the repository root)."""
    root = Path(argv[0]) if argv else Path(".")
    reports = root / "reports"
    readme = root / "README.md"
    readme.write_text(with_answers(readme.read_text(encoding="utf-8"),
                                   readme_answers(reports)), encoding="utf-8")
    (reports / "README.md").write_text(reports_index(reports), encoding="utf-8")
    print(f"{readme} and {reports / 'README.md'} written from {reports}/*/summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
