"""The closing lines of the long commands: the headline answer and where the output is.

`simulate`, `study` and `report` end with a few lines a designer reads first: the first
player's (seat 0's) win share with its 95% Wilson interval, per variant and player count,
next to the fair share, then the folder or page written. They print even with `--quiet`
(which hides progress only). `study` and `report` keep their standard output the report's
path alone (scripts read it), so their summary goes to standard error, before the path.

The numbers are the analysis layer's own: `analysis.metrics.WinShare` on the study's tables
(as in the report's win-share table), or, for one run, its seat-0 rows from `analysis.load`
through `analysis.metrics.wilson_interval`, so they match the report to the digit.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from analysis.study import StudyData
    from sim.run.runner import RunConfig

LEVEL = 0.95


def notice(line: str) -> None:
    """One line on standard error, at once (before minutes of silence or the output)."""
    print(line, file=sys.stderr, flush=True)


def compile_first(line: str | None, game: str | None = None) -> None:
    """When the games to come would first compile the game's code (`line`, their command's
    compile notice, is given): compile it now, saying so on standard error, even with
    --quiet (`sim.run.game_runs.compile_now`). A game may compile more in the same breath
    (`compile_first` of its commands facet, `sim.cli.games`: the default game also
    compiles the simpler line-ups' games its code holds, so that no later command of those
    line-ups compiles again)."""
    if not line:
        return
    from sim.cli import games as G
    from sim.games.registry import default_game
    from sim.games.registry import kind
    from sim.run import game_runs

    name = game or default_game()
    first = G.member(kind(name), "compile_first")
    if first is not None:
        first(notice, line)
    else:
        game_runs.compile_now(name, notice, line)


def interval_text(share: float, lo: float, hi: float) -> str:
    """`0.531 [0.475, 0.586]`: a share and its interval."""
    return f"{share:.3f} [{lo:.3f}, {hi:.3f}]"


def fair_mark(lo: float, hi: float, fair: float) -> str:
    """Where the whole interval lies against the fair share (empty when it holds it)."""
    return "above the fair share" if lo > fair else "below the fair share" if hi < fair \
        else ""


def agents_text(agents: Sequence[str]) -> str:
    """The line-up as a reader wants it: one spec `in every seat`, or the specs in order."""
    if len(set(agents)) == 1:
        return f"{agents[0]} in every seat"
    return f"{', '.join(agents)} (seats rotate)"


def seat_zero_shares(data: StudyData) -> list[dict[str, Any]]:
    """Seat 0's win share per player count and variant (in that order): `variant`,
    `label`, `n_players`, `games`, `share`, `lo`, `hi`, `fair` (`analysis.metrics.WinShare`
    on the study's players table, the report's own numbers)."""
    from analysis import metrics as M

    shares = M.WinShare(level=LEVEL)(data.players())
    first = shares[shares["seat"] == 0]
    order = {v: i for i, v in enumerate(data.variants)}
    rows = [{"variant": str(r["variant"]), "label": data.labels.get(str(r["variant"]),
                                                                    str(r["variant"])),
             "n_players": int(r["n_players"]), "games": int(r["games"]),
             "share": float(r["share"]), "lo": float(r["lo"]), "hi": float(r["hi"]),
             "fair": float(r["fair"])} for _, r in first.iterrows()]
    return sorted(rows, key=lambda r: (r["n_players"], order.get(r["variant"], 0)))


def study_lines(data: StudyData) -> list[str]:
    """The headline of a study or report: seat 0's win share by player count and variant
    and each variant's change to it (with skill levels, by level, weakest first), and
    whether the run was reduced."""
    lines = _share_lines(data) + _saturation_lines(data)
    from analysis.report.provenance import reduced_run

    reduced = reduced_run(data)
    if reduced is not None and reduced.short:
        lines.append(f"  {reduced.short}: a quick look, with intervals wider than the full "
                     "study's")
    return lines


def _saturation_lines(data: StudyData) -> list[str]:
    """The strongest level's saturation check, a line per player count (none without)."""
    from analysis.report.skill import doubled_agent
    from analysis.report.skill import saturation

    checks = saturation(data)
    if not checks:
        return []
    lines = [f" saturation check: {doubled_agent(data)} in one seat against the strongest "
             "level, its win share"]
    for n, c in sorted(checks.items()):
        lines.append(f"  {n} players  {interval_text(c.share.estimate, c.share.lo, c.share.hi)}"
                     f"  (fair {c.fair:.3f}, {c.games:,} games)  "
                     f"{c.state()}")
    return lines


def _share_lines(data: StudyData) -> list[str]:
    if data.skill is not None and data.levels:
        lines = [f"{data.title}: the first player's (seat 0's) win share, {LEVEL:.0%} "
                 "interval, by skill level"]
        for level in data.levels:
            lines.append(f" level {data.skill.labels.get(level, level)} "
                         f"({data.skill.agents_text(level)}):")
            lines += ["  " + line for line in _share_lines(data.at_level(level))[1:]]
        return lines
    rows = seat_zero_shares(data)
    width = min(max([len(r["label"]) for r in rows] + [7]), 40)
    lines = [f"{data.title}: the first player's (seat 0's) win share, {LEVEL:.0%} interval"]
    for r in rows:
        mark = fair_mark(r["lo"], r["hi"], r["fair"])
        lines.append(f"  {r['n_players']} players  {r['label'][:width]:{width}}  "
                     f"{interval_text(r['share'], r['lo'], r['hi'])}  "
                     f"(fair {r['fair']:.3f}, {r['games']:,} games)" + (f"  {mark}" if mark
                                                                      else ""))
    ladder = ladder_labels(data)
    for d in seat_zero_differences(data):
        label = ladder.get(("effect", d["n_players"], d["variant"], "seat 0 win share"))
        head = f"  {d['n_players']} players  {d['label']} − {d['base']}: "
        if math.isnan(d["lo"]):  # the same outcome in every game: nothing to test
            lines.append(head + f"{100 * d['diff']:+.1f} pp in every game (the same games: "
                         "these rules play alike at this count)")
            continue
        lines.append(head + f"{100 * d['diff']:+.1f} pp [{100 * d['lo']:+.1f}, "
                     f"{100 * d['hi']:+.1f}] (Holm-adjusted, {d['adj_level']:.1%}): "
                     + ("significant" if d["significant"] else "not significant")
                     + (f"; skill ladder: {label}" if label else ""))
    return lines


def ladder_labels(data: StudyData) -> dict[tuple[Any, ...], str]:
    """The labels of the skill ladder the study's spec names (`analysis.report.ladder`), by
    finding, with its convergence at the top where it has one: empty without a ladder."""
    path = ((data.study or {}).get("spec") or {}).get("ladder")
    if not path or data.skill is not None:
        return {}
    from analysis.report.ladder import read_ladder
    from analysis.report.ladder import verdicts_for

    return {key: str(f["label"]) + (f"; at the top: {f['convergence']['text']}"
                                     if f.get("convergence") else "")
            for key, f in verdicts_for(data, read_ladder(path)).items()}


def seat_zero_differences(data: StudyData) -> list[dict[str, Any]]:
    """Each variant's change to seat 0's win share against the baseline, per player count:
    the report's comparisons table (paired on common seeds, Holm-corrected over every
    measure of it), its seat-0 rows: `n_players`, `label`, `base`, `diff`, `lo`, `hi` (the
    adjusted interval), `adj_level`, `significant`."""
    from analysis import compare as C

    if len(data.variants) < 2:
        return []
    table = C.Holm(interval=C.TInterval("diff"))(
        C.VariantDifference(data.baseline)(C.GameMeasures(points=C.GAME_POINTS[data.game])(
            data.games(), data.players())))
    if table.empty:
        return []
    rows = table[table["measure"] == "seat 0 win share"]
    order = {v: i for i, v in enumerate(data.variants)}
    out = [{"n_players": int(r["n_players"]), "variant": str(r["variant"]),
            "label": data.labels.get(str(r["variant"]), str(r["variant"])),
            "base": data.labels.get(data.baseline, data.baseline), "diff": float(r["diff"]),
            "lo": float(r["adj_lo"]), "hi": float(r["adj_hi"]),
            "adj_level": float(r["adj_level"]), "significant": bool(r["significant"])}
           for _, r in rows.iterrows()]
    return sorted(out, key=lambda d: (d["n_players"], order.get(d["variant"], 0)))


def run_seat_zero(out: str | Path) -> dict[str, float]:
    """Seat 0's win share in a run folder: `games`, `wins` (ties split), `share`, `lo`, `hi`
    (Wilson, `LEVEL`), `fair`; the seat-0 rows only are read."""
    import polars as pl

    from analysis.load import load_run
    from analysis.metrics import wilson_interval

    run = load_run(out)
    got = (run.lazy("players").filter(pl.col("seat") == 0)
           .select(pl.len().alias("games"), pl.col("win_share").cast(pl.Float64).sum()
                   .alias("wins")).collect().row(0, named=True))
    games, wins = int(got["games"]), float(got["wins"] or 0.0)
    lo, hi = wilson_interval(wins, games, LEVEL)
    players = int(run.manifest["rules"]["players"])
    return {"games": games, "wins": wins, "share": wins / games if games else float("nan"),
            "lo": float(lo), "hi": float(hi), "fair": 1 / players}


def run_lines(out: str | Path, config: RunConfig, timings: Mapping[str, Any]) -> list[str]:
    """The closing lines of `simulate`: games and how they were played, the agents and the
    engine; seat 0's win share; the run folder."""
    played, resumed = timings.get("games_played", 0), timings.get("games_resumed", 0)
    rate = timings.get("games_per_second")
    how = (f"{played:,} played in {timings.get('seconds', 0):.1f} s"
           + (f" at {rate:,.{0 if rate >= 10 else 2}f} games/s" if rate else "")
           + (f", {resumed:,} already there" if resumed else ""))
    s = run_seat_zero(out)
    mark = fair_mark(s["lo"], s["hi"], s["fair"])
    return [f"{config.games:,} games of {config.rules.players} players ({how}): "
            f"{agents_text(config.agents)}, {timings.get('engine', '?')} engine",
            f"the first player (seat 0) wins {interval_text(s['share'], s['lo'], s['hi'])} "
            f"({LEVEL:.0%} interval; fair share {s['fair']:.3f})" + (f": {mark}" if mark
                                                                     else ""),
            f"run folder: {out}"]
