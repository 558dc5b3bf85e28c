"""The toolkit's current answers, written from the committed reports' own summary.json files
(never typed by hand), so that README, `reports/README.md` and the reports cannot disagree.

- `readme_answers(reports)`: the block README shows on its first screen, between the markers
  `ANSWERS_BEGIN` and `ANSWERS_END`: each game's answers in registry order, as its report
  facet writes them (`readme_answers`, with the helpers below): for Portobello Market the
  central question (does the known customer order change the first player's edge?) per
  player count with its Holm-adjusted interval, its skill-ladder label and its value at the
  ladder's strongest level, then the other studies' headline answers; then River Market's
  (the second game): its first player's edge and the shorter game with the labels of the
  study's own skill levels, and its compensation;
- `reports_index(reports)`: `reports/README.md`, every committed report with its question,
  its answers (each with its label where a ladder gives one), the games it played and what
  they cost.

`make answers` (`python -m analysis.report.answers`) writes both; a test checks that what is
committed is what these functions write now. It reads every committed report's summary and
checks what the answers read of it (`analysis.report.summaries`) before it builds anything: a
report of `ORDER` that is missing, a summary that is not JSON, cut short, nested too deeply
or holding a value of the wrong kind is refused in one line naming the file, the field and
the reason (a missing answer is never shown as no answer). Both files are then built whole
in memory and replaced together (`write_together`): a full disk leaves both as they were.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis.facets import report_facets
from analysis.facets import seat_bonus_of
from analysis.metrics.advice import POPULATION_RULE
from analysis.metrics.advice import RULE as ADVICE_RULE
from analysis.report.advice import FAIRNESS_RULE
from analysis.report.advice import SETTLE
from analysis.report.advice import Item
from analysis.report.advice import box_html
from analysis.report.advice import fairness_advice
from analysis.report.advice import ladder_advice
from analysis.report.advice import population_advice
from analysis.report.advice import ranked
from analysis.report.advice import study_advice
from analysis.report.advice import with_box
from analysis.report.summaries import AnswersError
from analysis.report.summaries import Summaries
from analysis.report.summaries import is_fairness
from analysis.report.summaries import is_population
from analysis.report.summaries import summaries_of
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.core.files import regular_file
from sim.core.outputs import write_together

ANSWERS_BEGIN = "<!-- answers: begin (written by `make answers` from reports/*/summary.json) -->"
ANSWERS_END = "<!-- answers: end -->"
INDEX = "README.md"  # reports/README.md, the committed reports' index


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
    """A ladder finding at its strongest level: `+4.3 pp [-3.4, +12.0], not significant`;
    a level without an interval (the same outcome in every game) says so."""
    if not f or not f.get("levels"):
        return "–"
    t = f["levels"][-1]
    if t.get("adj_lo") is None:
        return f"{_pp(t['estimate'])} pp in every game (the same games)"
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


# -- advice -----------------------------------------------------------------------------------
def _examined_by(member: str, name: str) -> str | None:
    """The report that examined report `name`'s question, as its game's report facet says
    (`LADDER_OF`: its skill ladder, `POPULATION_OF`: its population study)."""
    for facet in report_facets():
        found = getattr(facet, member, {}).get(name)
        if found:
            return str(found)
    return None


def advice_items(summaries: Summaries, name: str) -> list[Item]:
    """What report `name` advises (`analysis.report.advice`), from its own summary and those
    of the ladder and the population study that examined its question."""
    s = summaries.get(name)
    if s is None:
        return []
    ladder_of, population_of = _examined_by("LADDER_OF", name), _examined_by("POPULATION_OF",
                                                                             name)
    with summaries.showing(name, *(n for n in (ladder_of, population_of)
                                   if n and summaries.get(n) is not None)):
        if is_fairness(s):
            return fairness_advice(s)
        if is_population(s):
            return population_advice(s)
        pop = summaries.get(population_of or "")
        settle = str(pop.get("command") or SETTLE) if pop else SETTLE
        if s.get("skill"):
            return ladder_advice(s, settle)
        ladder = summaries.get(ladder_of or "")
        return study_advice(s, ladder, pop, settle)


def _advice_lines(summaries: Summaries, name: str) -> list[str]:
    """README's recommendation line for a question: every advice in a few words, strongest
    first (the sentences are in the report's box)."""
    items = ranked(advice_items(summaries, name))
    if not items:
        return []
    return ["*What to do* (from the report's advice box): "
            + "; ".join(it.short for it in items) + ".", ""]


def report_pages(summaries: Summaries) -> dict[Path, str]:
    """Every committed report page with its advice box written from its summary: the box
    opens the page, under its title, and says what the numbers mean for the rules."""
    out: dict[Path, str] = {}
    for name in summaries.names():
        page = summaries.reports / name / "index.html"
        if not page.is_file():
            continue
        s = summaries.get(name) or {}
        rule = FAIRNESS_RULE if is_fairness(s) else (
            POPULATION_RULE if is_population(s) else ADVICE_RULE)
        box = box_html(advice_items(summaries, name), rule)
        try:
            out[page] = with_box(_read_text(page), box)
        except ValueError as exc:
            raise AnswersError(str(exc), source=str(page)) from None
    return out


# -- README's block ---------------------------------------------------------------------------
def readme_answers(reports: Path | Summaries) -> str:
    """README's answers block (markers included): each game's answers, in registry order
    (its report facet's `readme_answers`)."""
    summaries = summaries_of(reports)
    lines = [ANSWERS_BEGIN]
    for facet in report_facets():
        if hasattr(facet, "readme_answers"):
            lines += facet.readme_answers(summaries)
    lines.append(ANSWERS_END)
    return "\n".join(lines)


def _pop_pct(iv: Mapping[str, Any]) -> str:
    return f"{100 * iv['estimate']:.1f}% [{100 * iv['lo']:.1f}, {100 * iv['hi']:.1f}]"


def _whoever_plays(summaries: Summaries, name: str) -> list[str]:
    """A population study's answers whoever plays: per player count, the first player's
    share at the meta-game's equilibrium, each variant's change (Holm) and convergence."""
    pop = summaries.get(name)
    if pop is None:
        return []
    with summaries.showing(name):
        bots = [b for b in pop["bots"] if b != pop.get("next")]
        labels = pop.get("labels") or {}
        changes = {(int(c["n_players"]), str(c["variant"])): c for c in pop["changes"]}
        parts = []
        for block in pop["players"]:
            n = int(block["players"])
            for v in block["variants"]:
                c = changes.get((n, v["variant"]))
                where = ("at the equilibrium" if n == 2 else
                         f"at {v['profile']['bot']} in every seat"
                         + ("" if v["profile"]["stable"] else " (no stable profile)"))
                text = (f"{n} players, {labels.get(v['variant'], v['variant'])}: "
                        f"{_pop_pct(v['answer'])} {where}")
                if c:
                    text += f", change {_change(c)}"
                conv = v.get("convergence")
                if conv:
                    text += (f", {'converged' if conv['converged'] else 'not converged'} "
                             f"(adding {pop['next']} moves it {_pp(conv['estimate'])} pp "
                             f"{_ci(conv['lo'], conv['hi'])})")
                parts.append(text)
        state = "" if pop.get("status") == "complete" else (
            f" Not finished (stopped after round {len(pop.get('rounds') or [])} of its "
            f"adaptive sampling): `{pop.get('command')}` continues it.")
        return [f"**Whoever plays** ([report](reports/{name}/index.html), each seat picks its "
                f"best bot among {', '.join(bots)}; first player's share, fair 1/n): "
                + "; ".join(parts) + "." + state, ""]


def _laddered(reports: Path | Summaries, name: str, question: str,
              baseline: str) -> list[str]:
    """A study's changes of the first player's share against its baseline, each with its
    label across the levels of the study's own skill ladder (`reports/<name>-ladder`, the
    same variants from random play up), its size at the ladder's top and its convergence; a
    study without such a ladder, one sentence at its one level."""
    summaries = summaries_of(reports)
    s = summaries.get(name)
    if s is None:
        return []
    ladder = summaries.get(f"{name}-ladder")
    with summaries.showing(name, f"{name}-ladder"):
        return [f"**{question}**", "", *_advice_lines(summaries, name),
                *_laddered_lines(s, ladder, name, question, baseline)]


def _laddered_lines(s: dict[str, Any], ladder: dict[str, Any] | None, name: str,
                    question: str, baseline: str) -> list[str]:
    link = f"([report](reports/{name}/index.html))"
    if not ladder or not ladder.get("skill"):
        parts = [f"{_label(s, r['variant'])} at {r['n_players']}p {_change(r)}"
                 for r in _seat0_changes(s)]
        return [f"The first player's share against {baseline}, with the "
                f"{_level_of(s)} only (not on a ladder): " + "; ".join(parts) + f". {link}", ""]
    verdicts = _ladder_findings(ladder)
    top = _top_level(ladder)
    out = [f"The first player's share against {baseline}, measured with the "
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


# -- reports/README.md ------------------------------------------------------------------------
def reports_index(reports: Path | Summaries) -> str:
    """reports/README.md: every committed report, its question and answers, its cost."""
    summaries = summaries_of(reports)
    lines = ["# Committed reports", "",
             "Written by `make answers` from each report's own summary.json (do not edit by "
             "hand): the question, the headline answers with their labels, and the games and "
             "time each report cost. Each is rebuilt by the command in its study or tuning "
             "spec's header.", ""]
    for name in summaries.names():
        s = summaries.get(name)
        assert s is not None
        with summaries.showing(name):
            lines += [f"## [{s['title']}]({name}/index.html)", ""]
            if s.get("description"):
                lines += [" ".join(str(s["description"]).split()), ""]
            lines += (_fairness_lines(s) if is_fairness(s) else
                      _population_lines(s) if is_population(s) else _study_lines(s))
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


def _population_lines(s: dict[str, Any]) -> list[str]:
    """A population study: its bots, its answers whoever plays, its sampling and cost."""
    out = [f"Bots: {', '.join(s['bots'])}"
           + (f" ({s['next']} the convergence check)" if s.get("next") else "") + "."]
    for block in s["players"]:
        for v in block["variants"]:
            out.append(f"- {block['players']} players, {v['variant']}: first player wins "
                       f"{_pop_pct(v['answer'])} whoever plays.")
    for c in s["changes"]:
        out.append(f"- {c['n_players']} players, {c['variant']} against {c['baseline']}: "
                   f"{_change(c)} (Holm).")
    out.append(f"Cost: {s['cost']['games']:,} games, {s['cost']['core_hours']:.2f} "
               f"core-hours, {len(s.get('rounds') or [])} rounds of adaptive sampling "
               f"(every profile as deep as the most-sampled one: "
               f"{s.get('uniform_games', 0):,} games).")
    return out


def _fairness_lines(s: dict[str, Any]) -> list[str]:
    """A fairness tuning's recommendations: every seat's bonus (its game's seat bonus,
    `analysis.facets.SeatBonus`: Portobello Market's start score, River Market's extra
    Coins) and confirmed share, per cell."""
    out = [f"Agents: {s['agents']}.", ""]
    for c in s["cells"]:
        r = c["recommended"]
        shares = ", ".join(f"{100 * x:.1f}%" for x in r["shares"])
        bonus = seat_bonus_of(r)
        seats = f"{bonus.words} {r[bonus.key]}"
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


def answers_files(root: Path) -> dict[Path, bytes]:
    """README.md with its answers block rewritten and reports/README.md, as `make answers`
    writes them under `root`, built whole in memory from summaries read and checked first
    (`Summaries.checked`); an `AnswersError` in one line, and nothing built, when a report,
    README or the place of either file is not what they are written from or to."""
    reports = root / "reports"
    readme, index = root / "README.md", reports / INDEX
    summaries = Summaries.checked(reports)
    current = _read_text(readme)
    block = readme_answers(summaries)
    try:
        text = with_answers(current, block)
    except ValueError as exc:
        raise AnswersError(str(exc), source=str(readme)) from None
    files = {readme: _utf8(text, readme), index: _utf8(reports_index(summaries), index)}
    files |= {page: _utf8(html, page) for page, html in report_pages(summaries).items()}
    for path in files:
        if path.exists() and not path.is_file():
            raise AnswersError("is not a file; the answers replace it with one",
                               source=str(path))
    return files


def _read_text(path: Path) -> str:
    """README's text; an `AnswersError` naming it when it is missing or unreadable."""
    try:
        return regular_file(path, AnswersError, "README").read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise AnswersError("cannot read: not UTF-8 text", source=str(path)) from None
    except OSError as exc:
        raise AnswersError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None


def _utf8(text: str, path: Path) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise AnswersError(f"cannot be written as UTF-8: {exc.reason}",
                           source=str(path)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite README's answers block and reports/README.md (from the repository root `argv[0]`,
    default the current folder): both or neither. Any refusal (a report missing or damaged, a
    full disk) is one line on stderr, `error: <file>: <field>: <reason>`, and exit status 1."""
    root = Path(argv[0]) if argv else Path(".")
    try:
        files = answers_files(root)
        write_together(files)
    except PortobelloError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a full disk, a read-only folder...
        print(f"error: {from_os_error(exc).message}", file=sys.stderr)
        return 1
    readme, index, *pages = files
    print(f"{readme}, {index} and the advice of {len(pages)} report pages written from "
          f"{root / 'reports'}/*/summary.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
