"""The advice box that opens every report, and the recommendation line that leads each of
README's answers: built from the reports' own summaries (never typed by hand) by the rules
of `analysis.metrics.advice`, so a rebuild cannot contradict them.

- `study_advice(study, ladder, population, settle)`: one piece of advice per variant and
  player count of a balance study (its change of the first player's share), with the skill
  ladder's label and the population answer where they exist;
- `ladder_advice(ladder, settle)`: the same for a skill-ladder report, read at its strongest
  level;
- `population_advice(population)`: the same for a population study, read whoever plays;
- `fairness_advice(fairness)`: one line per tuned cell: use the setting (fair at every level
  checked), use it for some levels only, or no fair setting found yet and what to try next.

Each item is `(kind, text)`, kind one of `analysis.metrics.advice.KINDS` (or, for fairness,
`recommend`, `do not rely on`, `unknown`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any
from typing import NamedTuple

from analysis.metrics.advice import CANDIDATE
from analysis.metrics.advice import DO_NOT_RELY
from analysis.metrics.advice import RECOMMEND
from analysis.metrics.advice import UNKNOWN
from analysis.metrics.advice import Edge
from analysis.metrics.advice import Estimate
from analysis.metrics.advice import Evidence
from analysis.metrics.advice import advise
from analysis.metrics.advice import advise_edge
from analysis.metrics.advice import edge_sentence
from analysis.metrics.advice import edge_short
from analysis.metrics.advice import sentence
from analysis.metrics.advice import short_form


class Item(NamedTuple):
    """One piece of advice: its kind, its sentence (the report's box) and its short form
    (README's one line a question)."""

    kind: str
    text: str
    short: str = ""
SETTLE = ("a population study of the question (population = [...] in its spec, "
          "docs/studies.md)")
SEAT0 = "seat 0 win share"


def _label(s: Mapping[str, Any], name: str) -> str:
    for v in s.get("variants") or []:
        if v.get("name") == name:
            return str(v.get("label") or name)
    return name


def _base_shares(s: Mapping[str, Any]) -> dict[tuple[int, str], float]:
    return {(int(r["n_players"]), str(r["variant"])): float(r["share"])
            for r in s.get("first_player") or []}


def _level_where(s: Mapping[str, Any]) -> str:
    lad = s.get("ladder") or {}
    level = lad.get("level")
    return f"with the {level}" if level else "at the level measured"


def _ladder_index(ladder: Mapping[str, Any] | None) -> dict[tuple[int, str], Mapping[str, Any]]:
    if not ladder or not ladder.get("skill"):
        return {}
    return {(int(f["n_players"]), str(f["variant"])): f for f in ladder["skill"]["findings"]
            if f.get("measure") == SEAT0 and f.get("kind") != "first player"}


def _top(ladder: Mapping[str, Any], finding: Mapping[str, Any], below: int = 0
         ) -> Estimate | None:
    """A ladder finding at its strongest level (`below` levels under it), None when that
    level has no interval."""
    levels = finding.get("levels") or []
    if len(levels) <= below or levels[-1 - below].get("adj_lo") is None:
        return None
    t = levels[-1 - below]
    names = {str(lv.get("name")): str(lv["label"]) for lv in ladder["skill"]["levels"]}
    name = names.get(str(t.get("level")), str(ladder["skill"]["levels"][-1 - below]["label"]))
    return Estimate(float(t["estimate"]), float(t["adj_lo"]), float(t["adj_hi"]),
                    bool(t["significant"]), f"with the {name}")


def _whoever(population: Mapping[str, Any]) -> str:
    """Where a population answer holds: among its bots (the convergence check's left out)."""
    return "whoever plays among " + ", ".join(
        b for b in population["bots"] if b != population.get("next"))


def _population_index(population: Mapping[str, Any] | None
                      ) -> dict[tuple[int, str], tuple[Estimate, bool]]:
    if not population:
        return {}
    where = _whoever(population)
    conv = {(int(b["players"]), str(v["variant"])): bool((v.get("convergence") or {})
                                                         .get("converged"))
            for b in population["players"] for v in b["variants"]}
    return {(int(c["n_players"]), str(c["variant"])): (
        Estimate(float(c["diff"]), float(c["adj_lo"]), float(c["adj_hi"]),
                 bool(c["significant"]), where), conv[int(c["n_players"]), str(c["variant"])])
        for c in population["changes"]}


def study_advice(study: Mapping[str, Any], ladder: Mapping[str, Any] | None = None,
                 population: Mapping[str, Any] | None = None, settle: str = "") -> list[Item]:
    """One item per variant change of the first player's share (see the module docstring)."""
    base = _base_shares(study)
    lad = _ladder_index(ladder)
    pop = _population_index(population)
    out = []
    for r in study.get("comparisons") or []:
        if r.get("measure") != SEAT0 or r.get("adj_lo") is None:
            continue
        n, v, b = int(r["n_players"]), str(r["variant"]), str(r["baseline"])
        f = lad.get((n, v))
        p = pop.get((n, v))
        e = Evidence(players=n, variant=_label(study, v), baseline=_label(study, b),
                     base_share=base.get((n, b), float(r.get("base_mean", 1 / n))),
                     measured=Estimate(float(r["diff"]), float(r["adj_lo"]),
                                       float(r["adj_hi"]), bool(r["significant"]),
                                       _level_where(study)),
                     label=None if f is None else str(f["label"]),
                     top=None if f is None or ladder is None else _top(ladder, f),
                     population=None if p is None else p[0],
                     converged=None if p is None else p[1])
        a = advise(e)
        out.append(Item(a.kind, sentence(e, a), short_form(e, a)))
    return _with_next(out, settle)


def ladder_advice(ladder: Mapping[str, Any], settle: str = "") -> list[Item]:
    """A skill ladder's own findings, read at its strongest level with its labels."""
    out = []
    for (n, v), f in _ladder_index(ladder).items():
        top, below = _top(ladder, f), _top(ladder, f, 1)
        if top is None:
            continue
        # The baseline's first-player share at the level the change is read at.
        at = -2 if below is not None else -1
        base = next((float(x["levels"][at]["estimate"]) + 1 / n
                     for x in ladder["skill"]["findings"]
                     if x.get("kind") == "first player" and int(x["n_players"]) == n
                     and len(x.get("levels") or []) >= -at
                     and x.get("variant") == f.get("baseline")), 1 / n)
        e = Evidence(players=n, variant=_label(ladder, v),
                     baseline=_label(ladder, str(f.get("baseline") or "")),
                     base_share=base, measured=below or top, label=str(f["label"]),
                     top=top if below is not None else None)
        a = advise(e)
        out.append(Item(a.kind, sentence(e, a), short_form(e, a)))
    return _with_next(out, settle)


def population_advice(population: Mapping[str, Any]) -> list[Item]:
    """A population study's answers whoever plays: the first player's edge under the
    baseline rules at each player count, then each variant's change of it."""
    out = _edge_items(population)
    pop = _population_index(population)
    shares = {(int(b["players"]), str(v["variant"])): float(v["answer"]["estimate"])
              for b in population["players"] for v in b["variants"]}
    labels = population.get("labels") or {}
    for c in population["changes"]:
        n, v, b = int(c["n_players"]), str(c["variant"]), str(c["baseline"])
        est, converged = pop[n, v]
        e = Evidence(players=n, variant=labels.get(v, v), baseline=labels.get(b, b),
                     base_share=shares[n, b], measured=est, population=est,
                     converged=converged)
        a = advise(e)
        out.append(Item(a.kind, sentence(e, a), short_form(e, a)))
    return _with_next(out, str(population.get("command") or ""))


def _edge_items(population: Mapping[str, Any]) -> list[Item]:
    """The first player's edge whoever plays under the rules every change is measured
    against (the one rules set of a study without variants)."""
    labels = population.get("labels") or {}
    bases = {str(c["baseline"]) for c in population["changes"]}
    where = _whoever(population)
    out = []
    for b in population["players"]:
        variants = b["variants"]
        wanted = bases or ({str(variants[0]["variant"])} if len(variants) == 1 else set())
        for v in variants:
            name = str(v["variant"])
            if name not in wanted:
                continue
            answer, conv = v["answer"], v.get("convergence")
            e = Edge(int(b["players"]), labels.get(name, name), float(answer["estimate"]),
                     float(answer["lo"]), float(answer["hi"]), where,
                     None if not conv else bool(conv.get("converged")))
            a = advise_edge(e)
            out.append(Item(a.kind, edge_sentence(e, a), edge_short(e, a)))
    return out


def fairness_advice(fairness: Mapping[str, Any]) -> list[Item]:
    """One item per tuned cell: recommend a setting fair at every level checked; do not
    rely on one that is fair for the tuned agents only; unknown when none was confirmed,
    with what to try next."""
    out = []
    for c in fairness.get("cells") or []:
        rec = c["recommended"]
        name = f"{c.get('label') or 'the rules'} at {c['players']} players"
        setting = str(rec.get("label") or rec.get("values") or "the recommended setting")
        checks = [*({"agents": [str(lv["agents"])], "fair": bool(lv.get("fair"))}
                    for lv in rec.get("levels") or []), *(c.get("checks") or [])]
        tuned = "" if rec.get("levels") else str(fairness.get("agents"))
        unfair = [str(k["agents"][0]) for k in checks if not k.get("fair")]
        if rec.get("levels") and not rec.get("confirmed"):
            out.append(Item(DO_NOT_RELY, f"{name}: no setting is fair at every level "
                            f"({fairness.get('agents')}); the best compromise, {setting}, "
                            f"has a worst seat gap of {float(rec.get('gap', 0)):.3f} "
                            f"({rec.get('worst')}): use it only knowing that.",
                            f"{name}: {DO_NOT_RELY} (compromise {setting})"))
        elif not rec.get("confirmed"):
            out.append(Item(UNKNOWN, f"{name}: no setting was confirmed fair (closest: {setting});"
                        " try a wider range of the knob, another knob, or more games.",
                            f"{name}: {UNKNOWN} (closest {setting})"))
        elif unfair:
            fair = [a for a in [tuned] + [str(k["agents"][0]) for k in checks
                                          if k.get("fair")] if a]
            out.append(Item(DO_NOT_RELY, f"{name}: {setting} is fair for "
                        f"{' and '.join(fair)} but not for {', '.join(unfair)}: do not "
                        "rely on it for other levels of play; tune with several agents "
                        "(agents = [...]) for a setting fair at every level.",
                            f"{name}: {DO_NOT_RELY} ({setting}: not fair for "
                            f"{', '.join(unfair)})"))
        elif not checks:
            out.append(Item(CANDIDATE, f"{name}: {setting} is confirmed fair for "
                        f"{fairness.get('agents')}; no other level of play was checked, so "
                        "it is a candidate until it is (tune with several agents, "
                        "agents = [...]).", f"{name}: {CANDIDATE} ({setting})"))
        else:
            levels = [a for a in [tuned] + [str(k["agents"][0]) for k in checks] if a]
            out.append(Item(RECOMMEND, f"{name}: use {setting}, confirmed fair for "
                        f"{' and '.join(levels)}.", f"{name}: {RECOMMEND} ({setting})"))
    return out


NEXT = "next step"


def _with_next(items: list[Item], settle: str) -> list[Item]:
    """The items, then once what would settle those not yet recommended."""
    if settle and any(it.kind != RECOMMEND for it in items):
        return [*items, Item(NEXT, f"to settle what is not yet recommended: {settle}",
                             f"to settle: {settle}")]
    return items


FAIRNESS_RULE = ("recommend: confirmed fair on fresh games and fair for every other level of "
                 "play checked; candidate: confirmed fair for the tuned agents, no other level "
                 "checked; do not rely on: confirmed fair for the tuned agents but not for "
                 "another level checked; unknown: no setting confirmed fair")
ORDER = {RECOMMEND: 0, CANDIDATE: 1, DO_NOT_RELY: 2, UNKNOWN: 3, NEXT: 4}


def ranked(items: list[Item]) -> list[Item]:
    """The items with the strongest advice first (stable within a kind)."""
    return sorted(items, key=lambda it: ORDER.get(it[0], 9))


BOX_BEGIN = "<!-- advice: begin (written from this report's summary.json) -->"
BOX_END = "<!-- advice: end -->"
STYLES = {RECOMMEND: "#1b7f3b", CANDIDATE: "#2f6fb3", DO_NOT_RELY: "#b35c00", UNKNOWN: "#666"}


def box_html(items: list[Item], rule: str) -> str:
    """The advice box (markers included): one line per item, strongest advice first, its
    kind as a coloured word; styled inline, so it reads alike in any report page."""
    rows = "".join(
        f'<li style="margin:3px 0"><b style="color:{STYLES.get(k, "#333")}">{html.escape(k)}'
        f"</b>: {html.escape(t)}</li>" for k, t, _ in ranked(items))
    return (f'{BOX_BEGIN}<div id="advice" style="border:2px solid #2f6fb3;border-radius:8px;'
            'padding:6px 14px;margin:8px 0;background:#f5f9ff"><p style="margin:4px 0">'
            "<b>What this means for the rules</b></p>"
            f'<ul style="margin:4px 0;padding-left:20px">{rows}</ul>'
            f'<p style="margin:4px 0;font-size:85%;color:#555">How the advice is decided: '
            f"{html.escape(rule)}.</p></div>{BOX_END}")


def with_box(page: str, box: str) -> str:
    """A report page with its advice box replaced, or put right under its title."""
    start, end = page.find(BOX_BEGIN), page.find(BOX_END)
    if start >= 0 and end > start:
        return page[:start] + box + page[end + len(BOX_END):]
    title = page.find("</h1>")
    if title < 0:
        raise ValueError("the page has no title (<h1>) to put the advice under")
    cut = title + len("</h1>")
    return page[:cut] + "\n" + box + page[cut:]
