"""The report of a population study: the answer whoever plays, first.

Its first screen says, for every player count, the first player's share at the meta-game's
equilibrium with its interval, each variant's change (Holm over the study's family, the
interval and the verdict agreeing) and whether the answer has converged (adding the next
stronger bot moved it by less than 2 points). Then: the 2-player meta-game as a heatmap
with the seats' equilibrium mixtures; at more players the deviation table (each symmetric
profile, its best one-seat switch and whether it is stable) and alpha-Rank (over every
line-up, each listed with its mass, when the study played the whole tensor); the skill
curve; the rounds of adaptive sampling and what they saved; the cost.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from analysis import plots as P
from analysis.metrics.advice import POPULATION_RULE
from analysis.report.advice import box_html
from analysis.report.advice import population_advice
from analysis.report.page import _img
from analysis.report.page import _version
from analysis.report.page import table_html
from analysis.report.population_figures import heatmap
from analysis.report.population_figures import skill_curve
from analysis.report.table import Row
from analysis.report.table import Table
from sim.core.outputs import atomic_write
from sim.core.outputs import replace_folder

TEMPLATE = "population.html.j2"


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def interval(iv: Mapping[str, float]) -> str:
    return f"{pct(iv['estimate'])} [{100 * iv['lo']:.1f}, {100 * iv['hi']:.1f}]"


def change_text(c: Mapping[str, Any]) -> str:
    """`-0.7 pp [-11.6, +10.4], not significant` (Holm-adjusted)."""
    return (f"{pp(c['diff'])} pp [{pp(c['adj_lo'])}, {pp(c['adj_hi'])}], "
            + ("significant" if c["significant"] else "not significant"))


def convergence_text(v: Mapping[str, Any], nxt: str | None) -> str:
    c = v.get("convergence")
    if not c:
        return "not checked (the spec names no next bot)"
    moved = f"{pp(c['estimate'])} pp [{pp(c['lo'])}, {pp(c['hi'])}]"
    if c["converged"]:
        return f"converged: adding {nxt} moved it by {moved}, inside ±{100 * c['within']:.0f} pp"
    return (f"not converged: adding {nxt} moved it by {moved}, not inside "
            f"±{100 * c['within']:.0f} pp")


def where_read(v: Mapping[str, Any], players: int) -> str:
    if players == 2:
        return "at the equilibrium of the 2-player meta-game"
    p = v["profile"]
    state = "stable" if p["stable"] else "no profile is stable; the least unstable"
    return f"at {p['bot']} in every seat ({state})"


def headline(s: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One line per player count and variant: the answer whoever plays, its change, and
    its convergence."""
    changes = {(c["n_players"], c["variant"]): c for c in s["changes"]}
    out = []
    for block in s["players"]:
        n = block["players"]
        for v in block["variants"]:
            c = changes.get((n, v["variant"]))
            half = (v["answer"]["hi"] - v["answer"]["lo"]) / 2
            out.append({"precision": (f"±{100 * half:.1f} pp, within the ±"
                                      f"{100 * s['margin']:.1f} asked" if half <= s["margin"]
                                      else f"±{100 * half:.1f} pp, wider than the ±"
                                      f"{100 * s['margin']:.1f} asked"),
                        "players": n, "variant": s["labels"].get(v["variant"], v["variant"]),
                        "answer": interval(v["answer"]), "fair": pct(1 / n),
                        "where": where_read(v, n),
                        "change": change_text(c) if c else "the baseline",
                        "significant": bool(c and c["significant"]),
                        "convergence": convergence_text(v, s.get("next"))})
    return out


def answer_table(s: Mapping[str, Any]) -> Table:
    rows = [Row(((str(h["players"]), "num"), (h["variant"], "txt"), (h["answer"], "num"),
                 (h["fair"], "num"), (h["change"], "txt wrap"), (h["convergence"], "txt wrap")),
                highlight=h["significant"]) for h in headline(s)]
    return Table(("players", "rules", "first player wins, whoever plays",
                  "fair", "change against the baseline (Holm)", "converged?"), tuple(rows))


def mixture_table(block: Mapping[str, Any], bots: list[str]) -> Table:
    rows = []
    for v in block["variants"]:
        mix = v["mixtures"]
        for seat in ("seat 0", "seat 1"):
            picks = ", ".join(f"{b} {w:.0%}" for b, w in zip(bots, mix[seat], strict=True)
                              if w > 0)
            rows.append(Row(((v["variant"], "txt"), (seat, "txt"), (picks, "txt wrap"))))
    return Table(("rules", "seat", "bots the seat picks at the equilibrium"), tuple(rows))


def deviation_table(block: Mapping[str, Any]) -> Table:
    rows = []
    for v in block["variants"]:
        for d in v["deviations"]:
            sw = d["best switch"]
            rows.append(Row((
                (v["variant"], "txt"), (d["profile"], "txt"),
                (" · ".join(pct(x) for x in d["seat shares"]), "num"),
                (f"seat {sw['seat']} to {sw['to']}: {pp(sw['gain'])} pp", "txt"),
                ("stable" if d["stable"] else "not stable", "txt")),
                highlight=d["profile"] == v["profile"]["bot"]))
    return Table(("rules", "every seat plays", "seat shares (seat 0 first)",
                  "best one-seat switch", "stable (no switch gains over 2 pp)"), tuple(rows))


def lineup_text(bots: list[str]) -> str:
    """`random ×2 · greedy`: a line-up's bots in population order, each with its seats."""
    return " · ".join(b if bots.count(b) == 1 else f"{b} ×{bots.count(b)}"
                      for b in dict.fromkeys(bots))


def lineup_table(block: Mapping[str, Any]) -> Table:
    """Every line-up of the tensor (a study with `profiles = "all"`): each bot's share in
    it, alpha-Rank's mass and its games."""
    rows = []
    for v in block["variants"]:
        for p in v.get("alpharank_profiles") or []:
            rows.append(Row(((v["variant"], "txt"), (lineup_text(p["profile"]), "txt"),
                             (" · ".join(f"{b} {pct(x)}" for b, x in p["shares"].items()),
                              "txt wrap"),
                             (pct(p["mass"]), "num"), (f"{p['games']:,}", "num")),
                            highlight=p["mass"] == max(q["mass"] for q in
                                                       v["alpharank_profiles"])))
    return Table(("rules", "line-up (seats rotate)", "each bot's share (a seat)",
                  "alpha-Rank mass", "games"), tuple(rows))


def render(s: Mapping[str, Any], dpi: int = 100) -> str:
    """The page as one HTML string."""
    images: dict[str, str] = {}
    blocks = []
    for block in s["players"]:
        n = block["players"]
        figs = []
        if n == 2:
            for v in block["variants"]:
                label = s["labels"].get(v["variant"], v["variant"])
                figs.append(_img(P.to_png(heatmap(v, s["bots"], f"{label}: seat 0's win "
                                                  "share by line-up (95% CI)"), dpi)))
        curve = [c for c in s["curve"] if c["players"] == n]
        if curve:
            answers = {v["variant"]: v["answer"] for v in block["variants"]}
            images[f"curve_{n}"] = _img(P.to_png(skill_curve(curve, answers, s["labels"], n),
                                                 dpi))
        alpha = [] if n == 2 else [
            (v["variant"], ", ".join(f"{b} {w:.0%}" for b, w in
                                     zip(s["bots"], v["alpharank"], strict=True)))
            for v in block["variants"]]
        tensor = n > 2 and "alpharank_profiles" in block["variants"][0]
        blocks.append({"n": n, "heatmaps": figs, "curve": images.get(f"curve_{n}"),
                       "mixtures": table_html(mixture_table(block, s["bots"])) if n == 2
                       else "", "deviations": "" if n == 2
                       else table_html(deviation_table(block)), "alpharank": alpha,
                       "lineups": table_html(lineup_table(block)) if tensor else "",
                       "lineup_count": len(block["variants"][0].get("alpharank_profiles")
                                           or [])})
    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined)
    return env.get_template(TEMPLATE).render(
        advice=box_html(population_advice(s), POPULATION_RULE),
        s=s, lines=headline(s), answer=table_html(answer_table(s)), blocks=blocks,
        generated=time.strftime("%Y-%m-%d %H:%M"), version=_version(),
        saved=1 - s["cost"]["games"] / s["uniform_games"] if s["uniform_games"] else 0.0)


def build_population_report(summary: Mapping[str, Any], out: str | Path,
                            dpi: int = 100) -> Path:
    """Write the report folder `out` (index.html, summary.json), replacing any earlier
    report there whole; returns the HTML path."""
    import matplotlib

    matplotlib.use("Agg", force=False)

    def build(root: Path) -> None:
        atomic_write(root / "index.html", render(summary, dpi).encode("utf-8"))
        atomic_write(root / "summary.json",
                     (json.dumps(summary, indent=1) + "\n").encode("utf-8"))

    return replace_folder(out, build) / "index.html"
