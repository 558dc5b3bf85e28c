"""What the skill ladder knows of a report measured at one level of play.

A balance study plays one set of agents; a skill-ladder study (`skill = [...]`, see
`analysis.report.skill`) plays the same question at several levels and labels each finding
robust, skill-dependent, reversed or not found. A study spec that names a ladder
(`ladder = "../../reports/skill-ladder"`) gets, in its report, the ladder's word beside
every finding the ladder examined (the same kind of finding at the same player count, for
the variant with the same rules, or of the same name where an older ladder does not list
its variants' rules, and the same measure), and a banner naming the ladder level
its agents play (matched by what the agents play, so a spec that pins the classic weights
in full is the ladder's `heuristic:weights=classic`), so that no answer is read without
its caveat.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import Any

from analysis import compare as C
from analysis.facets import play_fingerprint as game_fingerprint
from analysis.report.model import Analysis
from analysis.report.model import LadderNote
from analysis.study import StudyData
from sim.core.errors import PortobelloError
from sim.games.registry import default_game

SUMMARY = "summary.json"


class LadderError(PortobelloError):
    """A ladder that cannot be read: not a report folder of a study with skill levels."""


@dataclass(frozen=True)
class Ladder:
    """A skill ladder's summary, as a report reads it."""

    folder: Path
    title: str
    levels: tuple[dict[str, Any], ...]  # name, label, agents, weakest first
    findings: tuple[dict[str, Any], ...]
    counts: dict[str, int]
    variants: tuple[dict[str, Any], ...] = ()  # name, label, rules (newer ladders only)


def read_ladder(path: str | Path) -> Ladder:
    """The ladder of a skill-ladder report folder (or its summary.json)."""
    p = Path(path)
    folder = p.parent if p.name == SUMMARY else p
    try:
        data = json.loads((folder / SUMMARY).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LadderError(f"no {SUMMARY} here: give the report folder of a skill-ladder "
                          "study", source=str(folder), field="ladder") from None
    except (OSError, ValueError) as exc:
        raise LadderError(f"{SUMMARY} cannot be read ({str(exc)[:80]})", source=str(folder),
                          field="ladder") from None
    skill = data.get("skill") if isinstance(data, dict) else None
    if not isinstance(skill, dict) or not skill.get("levels"):
        raise LadderError("is the report of a study without skill levels, not a ladder",
                          source=str(folder), field="ladder")
    return Ladder(folder=folder, title=str(data.get("title", "skill ladder")),
                  levels=tuple(skill["levels"]), findings=tuple(skill.get("findings", [])),
                  counts={str(k): int(v) for k, v in skill.get("counts", {}).items()},
                  variants=tuple(data.get("variants") or ()))


def play_fingerprint(spec: str, players: int, game: str = "") -> Any:
    """What an agent spec plays, as its game (the default game when none is named) tells
    (`analysis.facets.play_fingerprint`): Portobello Market's compiled row's kind and
    parameters where it has one (so pinned weights equal the weight set they pin), else the
    spec itself."""
    return game_fingerprint(game or default_game(), spec, players)


def report_level(a: Analysis, ladder: Ladder) -> str | None:
    """The ladder level whose agents every cell of the report plays (its label)."""
    cells = a.data.cells
    specs = {(c.players, s) for c in cells for s in c.run.manifest["agents"]}
    for level in ladder.levels:
        spec = str(level.get("agents", ""))
        if "," in spec or "(seats rotate)" in spec:
            continue  # a mixed line-up: not one agent to compare with
        game = a.data.game
        if all(play_fingerprint(s, n, game) == play_fingerprint(spec, n, game)
               for n, s in specs):
            return str(level.get("label", level.get("name")))
    return None


def variant_names(data: StudyData, ladder: Ladder) -> dict[str, str]:
    """The ladder's name of each of this study's variants: the ladder variant that changes
    the same rules (where the ladder lists its variants' rules), else the same name."""
    if not ladder.variants:
        return {v: v for v in data.variants}
    theirs = {json.dumps(v.get("rules", {}), sort_keys=True): str(v["name"])
              for v in ladder.variants}
    out = {}
    for v in data.variants:
        cell = next(c for c in data.cells if c.variant == v)
        rules = cell.run.rules().to_dict(changed_only=True)
        rules.pop("players", None)
        name = theirs.get(json.dumps(rules, sort_keys=True))
        if name is not None:
            out[v] = name
    return out


def verdicts_for(data: StudyData, ladder: Ladder) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The ladder's verdicts keyed as this study's findings are (its own variant names):
    `(kind, n_players, variant, measure)`; an effect only where the baselines agree too."""
    theirs = variant_names(data, ladder)
    mine = {name: v for v, name in theirs.items()}
    out = {}
    for f in ladder.findings:
        variant = mine.get(f["variant"])
        if variant is None:
            continue
        if f["kind"] == "effect" and theirs.get(data.baseline) != f.get("baseline"):
            continue
        out[(f["kind"], int(f["n_players"]), variant, f["measure"])] = f
    return out


def _words(f: dict[str, Any], labels: dict[str, str]) -> str:
    """The ladder's verdict on a finding, with its strongest level's estimate."""
    levels = f.get("levels") or []
    top = levels[-1] if levels else None
    text = f"Skill ladder: {f['verdict']}: {f['reason']}"
    if top is not None and top.get("estimate") is not None:
        kind = f.get("value_kind", C.SHARE)
        value = (f"{100 * top['estimate']:+.1f} pp" if kind == C.SHARE
                 else f"{top['estimate']:+.2f}")
        lo, hi = top.get("adj_lo"), top.get("adj_hi")
        span = (f" ({C.bound(lo, kind)} to {C.bound(hi, kind)})"
                if lo is not None and hi is not None else "")
        text += (f"; at its strongest level, {labels.get(top['level'], top['level'])}: "
                 f"{value}{span}, {'significant' if top.get('significant') else 'not significant'}")
    conv = f.get("convergence")
    if conv:
        text += f"; at the top: {conv['text']}"
    return text + "."


def with_ladder(a: Analysis, path: str | Path, report_dir: Path | None = None) -> Analysis:
    """`a` with the ladder's label on every finding it examined (those a skill-level study
    labelled itself keep their own) and `a.ladder` set, its link relative to
    `report_dir`."""
    ladder = read_ladder(path)
    names = {str(lv["name"]): str(lv.get("label", lv["name"])) for lv in ladder.levels}
    verdicts = verdicts_for(a.data, ladder)
    examined = 0
    findings = []
    converged: dict[tuple[Any, ...], str] = {}
    for f in a.findings:
        v = verdicts.get(tuple(f.key)) if f.key and not f.label else None
        if v is None:
            findings.append(f)
            continue
        examined += 1
        if v.get("convergence"):
            converged[tuple(f.key)] = str(v["convergence"]["text"])
        own = ("" if f.significant or v["label"] in ("not found",) else
               " The label is the ladder's, from its own games; this study's games do not "
               "show the finding significantly.")
        findings.append(replace(f, label=str(v["label"]), label_source="skill ladder",
                                text=f"{f.text} {_words(v, names)}{own}"))
    a.findings = findings
    index = ladder.folder / "index.html"
    link = os.path.relpath(index, report_dir) if report_dir is not None else str(index)
    a.ladder = LadderNote(link=Path(link).as_posix(), title=ladder.title,
                          level=report_level(a, ladder),
                          levels=tuple(names.values()), counts=ladder.counts,
                          examined=examined, convergence=converged)
    return a
