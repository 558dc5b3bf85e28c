"""A played population study as plain data (the report's summary.json): every player
count's meta-game answers (`analysis.metagame.answers`), the variants' changes with Holm's
correction over the study's whole family (intervals that agree with the verdicts,
`analysis.metrics.multiple`), the self-play curve, and what the study cost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.load import load_run
from analysis.load import read_manifest
from analysis.metagame.answers import solve_population
from analysis.metagame.estimate import percentile
from analysis.metagame.spec import PopulationSpec
from analysis.metagame.spec import bot_name
from analysis.metagame.study import POPULATION_FILE
from analysis.metagame.study import Unit
from analysis.metagame.study import profile_games
from analysis.metagame.study import units
from analysis.metrics.common import wilson_interval
from analysis.metrics.multiple import ALPHA
from analysis.metrics.multiple import holm
from analysis.metrics.multiple import holm_steps
from analysis.study.switches import StudyError


def _levels(spec: PopulationSpec, root: Path) -> dict[Unit, int]:
    try:
        record = json.loads((root / POPULATION_FILE).read_text(encoding="utf-8"))
        held = {r["key"]: int(r["level"]) for r in record["runs"]}
    except (OSError, ValueError, KeyError, TypeError):
        raise StudyError(f"no readable {POPULATION_FILE}: run the study first",
                         source=str(root)) from None
    base = spec.study.variants[0].name
    out = {}
    for u in units(spec):
        level = held.get(u.key(spec, base))
        if level is None:
            raise StudyError(f"run {u.key(spec, base)} is not in {POPULATION_FILE}: run the "
                             "study again", source=str(root))
        out[u] = level
    return out


def _holm(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Holm over every change of the study: p_holm, significant, and the adjusted interval
    at the level of Holm's step that decides each (it leaves 0 out exactly when
    significant, as bootstrap p-value and percentile interval are taken alike)."""
    p = np.array([c["p_value"] for c in changes], dtype=float)
    adj = holm(p)
    _, local = holm_steps(p, ALPHA)
    out = []
    for c, padj, lv in zip(changes, adj, local, strict=True):
        iv = percentile(c["diff"], c["replicates"], 1 - float(lv))
        plain = percentile(c["diff"], c["replicates"])
        out.append({k: v for k, v in c.items() if k != "replicates"}
                   | {"lo": plain.lo, "hi": plain.hi, "p_holm": float(padj),
                      "significant": bool(padj < ALPHA), "adj_level": 1 - float(lv),
                      "adj_lo": iv.lo, "adj_hi": iv.hi})
    return out


def _curve(spec: PopulationSpec, root: Path, levels: dict[Unit, int]) -> list[dict[str, Any]]:
    """Self-play at each curve bot: seat 0's share per variant and player count (Wilson)."""
    out = []
    for n in spec.study.players:
        for c in spec.curve:
            unit = next(u for u in levels if u.players == n and (
                u.curve == c or (not u.curve and len(set(u.agents)) == 1
                                 and spec.bots[u.agents[0]] == c)))
            for v in spec.study.variants:
                run = load_run(root / "runs" / unit.key(spec, v.name), allow_partial=True)
                games = levels[unit] * unit.per_level
                wins = (run.players()
                        .filter((pl.col("seat") == 0) & (pl.col("game_id") < games))
                        .select("win_share").collect()["win_share"].to_numpy())
                lo, hi = wilson_interval(float(wins.sum()), len(wins))
                out.append({"players": n, "bot": c, "name": bot_name(c), "variant": v.name,
                            "games": len(wins), "share": float(wins.mean()),
                            "lo": float(lo), "hi": float(hi), "fair": 1 / n})
    return out


def _cost(spec: PopulationSpec, root: Path, levels: dict[Unit, int]) -> dict[str, Any]:
    """Games held and the core-seconds their runs cost (seconds x jobs of each run's
    recorded play)."""
    games = 0
    core_seconds = 0.0
    for u in levels:
        for v in spec.study.variants:
            m = read_manifest(root / "runs" / u.key(spec, v.name))
            games += int(levels[u] * u.per_level)
            cost = m.get("cost") or {}
            jobs = max(cost.get("jobs") or [1])
            core_seconds += float(cost.get("seconds") or 0) * jobs
    return {"games": games, "core_hours": core_seconds / 3600}


def summarise(spec: PopulationSpec, out: str | Path, command: str = "") -> dict[str, Any]:
    """The whole study's answers (see the module docstring); `command` is the one that
    continues the study (the report shows it while the study is not complete)."""
    root = Path(out)
    levels = _levels(spec, root)
    names = [v.name for v in spec.study.variants]
    base = names.index(spec.study.baseline)
    counts = []
    changes: list[dict[str, Any]] = []
    for n in spec.study.players:
        data = profile_games(spec, root, n, levels)
        got = solve_population(data, names, list(spec.bots), baseline=base,
                               has_next=spec.next is not None, seed=spec.study.seed,
                               profiles=spec.profiles)
        changes += got.pop("changes")
        counts.append(got)
    record = json.loads((root / POPULATION_FILE).read_text(encoding="utf-8"))
    # Uniform sampling to the same depth: every profile at the level the most-sampled one
    # reached (the games adaptive sampling saved are those it did not play).
    deepest = max(level for u, level in levels.items() if not u.curve)
    uniform = sum(deepest * u.per_level for u in levels if not u.curve) * len(names)
    return {"kind": "population", "name": spec.name, "title": spec.study.title,
            "description": spec.study.description, "spec": spec.to_dict(),
            "labels": {v.name: v.label for v in spec.study.variants},
            "bots": list(spec.bots), "next": spec.next, "margin": spec.margin,
            "players": counts, "changes": _holm(changes),
            "curve": _curve(spec, root, levels), "cost": _cost(spec, root, levels),
            "rounds": record.get("rounds", []), "uniform_games": uniform,
            "uniform_depth": deepest,
            "status": record.get("status"), "command": command,
            "load": [round(x, 2) for x in record.get("load") or []]}
