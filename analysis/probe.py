"""`portobello tournament --probe AGENT`: an exploitability probe. AGENT meets challengers
built from its own spec, and every challenger that beats it is named, after correcting for
the many comparisons (Holm).

Challengers, at each player count n, are the game's (its report facet's `probe_challengers`,
`analysis.facets`), written as explicit agent specs so any one of them can be played again
with `portobello tournament --agents`: for Portobello Market (`sim.games.portobello.probe`)
AGENT under each restriction it does not carry, AGENT with one of its restrictions or set
weights lifted, and AGENT's weights perturbed at random and stepped one at a time (the most
influential ones, by a pilot that watches moves, not results). A game without them has no
probe.

Matchups: a tournament with AGENT first (`pairing="first"`) per player count: with two
players AGENT against the challenger, seats alternating; with n > 2 both directions, the
challenger alone against n - 1 AGENTs ("alone") and AGENT alone against n - 1 challengers
("field"). Every block of n rotations shares its game seed with every matchup.

The statistic is the challenger's win share per seat (in the "field" direction: one n-1-th
of what AGENT leaves), against parity 1/n. Each matchup is one two-sided score test of the
focus agent's share against 1/n (the test the Wilson interval inverts); the whole probe, all
player counts and directions, is one Holm family (`analysis.metrics.multiple.Holm`, alpha
0.05), and each row's interval is its Holm step-down Wilson interval, which excludes parity
exactly when Holm rejects. The verdict is read off that interval: `beats` when it lies
above parity, `loses` when below, `even` otherwise, so the interval and the verdict shown
together agree.
"""

from __future__ import annotations

import hashlib
import json
import math
from contextlib import closing
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as st

from analysis.facets import report_facet
from analysis.metrics.multiple import ALPHA
from analysis.metrics.multiple import Holm
from analysis.metrics.multiple import WilsonInterval
from sim.core.errors import PortobelloError
from sim.core.specs import split_specs
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.execution import progress_bar
from sim.run.game_runs import with_players
from sim.run.ratings import wilson_interval
from sim.run.task_store import TaskStore
from sim.run.tournament import TournamentConfig
from sim.run.tournament import run_tournament

TOP = 3  # weights stepped one at a time, by default: the most influential ones
EXIT_NONE, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_BEATEN = 0, 1, 2, 3


class ProbeError(PortobelloError):
    """Bad input to a probe (an unknown agent, nothing to probe, a bad flag): exit 2."""

    exit_code = EXIT_BAD_INPUT


@dataclass(frozen=True)
class Challenger:
    """One challenger at one player count: its spec, which kind it is, and how it differs
    from AGENT (`change`, e.g. `tempo x1.25`)."""

    spec: str
    players: int
    kind: str
    change: str


# -- the probe --------------------------------------------------------------------------------
@dataclass
class ProbeConfig:
    """Everything that decides a probe's challengers and games (see the module docstring).
    Construction checks it all, so bad input fails before any game (`ProbeError`)."""

    agent: str
    players: tuple[int, ...] = (2, 3, 4)
    games: int = 600  # per matchup (rounded up to whole blocks of n games)
    seed: int = 0
    random: int = 4  # random perturbations per player count
    sigma: float = 0.25  # their log-normal spread
    step: float = 0.25  # one weight at a time times 1 +- step
    weights: tuple[str, ...] | None = None  # the weights stepped (None: the `top` ones)
    top: int = TOP  # how many weights to step, ranked by the influence pilot
    board: Any = None  # the game's material (None: loaded from `board_ref`)
    board_ref: str = "standard"
    rules: Any = None  # the game's rules (None: its default rules)
    jobs: int = 1
    engine: str = "auto"
    weights_dir: Path | None = None  # search agents' perturbed weight sets go here
    game: str = field(default_factory=default_game)
    challengers: dict[int, list[Challenger]] = field(init=False)
    influence: dict[int, dict[str, float]] = field(init=False)  # the pilot, per count
    tournaments: dict[int, TournamentConfig] = field(init=False)

    def __post_init__(self) -> None:
        try:
            self._check()
        except ProbeError:
            raise
        except PortobelloError as exc:  # any bad input is exit 2 here
            raise ProbeError(exc.reason, source=exc.source, field=exc.field) from None

    def _check(self) -> None:
        specs = split_specs(self.agent)
        if len(specs) != 1:
            raise ProbeError(f"--probe takes one agent spec, got {len(specs)}: "
                             f"{', '.join(specs)}", field="--probe")
        self.agent = specs[0]
        game = kind(self.game)
        game.check_agent(self.agent)
        if not self.players:
            raise ProbeError("no player counts", field="--players")
        if self.games < 1:
            raise ProbeError("games must be at least 1", field="--games")
        if self.random < 0:
            raise ProbeError("the number of random perturbations must be 0 or more",
                             field="--perturbations")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ProbeError("sigma must be a positive number", field="--sigma")
        if not (math.isfinite(self.step) and 0 < self.step < 1):
            raise ProbeError("the step must lie between 0 and 1 (0.25: ±25%)",
                             field="--step")
        facet = report_facet(self.game)
        if facet is None or not hasattr(facet, "probe_challengers"):
            raise ProbeError(f"{game.title} has no exploitability probe (its report facet "
                             "builds no challengers)", field="--probe")
        if hasattr(facet, "check_probe"):
            facet.check_probe(self)
        if self.board is None:
            self.board = game.load_material(self.board_ref, None)
        if self.rules is None:
            self.rules = game.default_rules()
        for n in self.players:
            with_players(self.game, self.rules, n)  # validates the player count
        if self.weights_dir is None:
            self.weights_dir = Path("data/runs") / f"probe-{self.probe_id}.weights"
        if self.top < 0:
            raise ProbeError("the number of weights to step must be 0 or more", field="--top")
        self.challengers = {}
        self.tournaments = {}
        self.influence = {}
        for n in self.players:
            found, ranked = facet.probe_challengers(self, n, self.weights_dir)
            if ranked is not None:
                self.influence[n] = ranked
            self.challengers[n] = found
            self.tournaments[n] = TournamentConfig(
                agents=(self.agent, *(c.spec for c in found)), players=(n,),
                games=self.games, seed=self.seed, board=self.board, board_ref=self.board_ref,
                rules=self.rules, pairing="first", jobs=self.jobs, engine=self.engine,
                game=self.game)

    @property
    def probe_id(self) -> str:
        text = json.dumps([self.agent, list(self.players), self.games, self.seed, self.random,
                           self.sigma, self.step, self.weights, self.top, self.board_ref,
                           self.rules.to_dict(changed_only=True)], sort_keys=True)
        return f"p{self.seed}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"

    def influence_text(self, n: int) -> str:
        """The pilot's ranking at n players, e.g. `end 0.86, fill 0.86, lane 0.81, ...`."""
        ranked = self.influence.get(n, {})
        return ", ".join(f"{k} {v:.2f}" for k, v in sorted(ranked.items(),
                                                             key=lambda kv: -kv[1]))

    def all_challengers(self) -> list[Challenger]:
        return [c for n in self.players for c in self.challengers[n]]

    def matchup_count(self) -> int:
        """Matchups played: one per challenger at 2 players, two (both directions) above."""
        return sum(len(cs) * (1 if n == 2 else 2) for n, cs in self.challengers.items())


def run_probe(config: ProbeConfig, progress: bool = False, pool: Pool | None = None,
              store: TaskStore | None = None) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Play every player count's tournament on one pool (`pool`, else `jobs` local
    processes) under one progress bar; the per-seat table (the tournament's schema, one
    `tournament` id per player count) and the failed games; `store` keeps finished tasks
    (`sim.run.tournament.run_tournament`)."""
    frames, errors = [], []
    with pool_for(pool, Execution(config.jobs)) as workers:
        tournaments = [config.tournaments[n] for n in config.players]
        total = sum(t.game_count(workers.workers) for t in tournaments)
        with closing(progress_bar(total, quiet=not progress, workers=workers.workers,
                                  desc="probe")) as bar:
            for t in tournaments:
                df, e = run_tournament(t, pool=workers, bar=bar, store=store)
                frames.append(df)
                errors.extend(e)
    frames = [f for f in frames if not f.empty]
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), errors


def probe_table(df: pd.DataFrame, config: ProbeConfig, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per matchup: the challenger's win share per seat against parity 1/n, its
    95% Wilson interval, the Holm-corrected interval over the whole probe and the verdict
    (`beats`, `even`, `loses`) read off the corrected interval."""
    kinds = {(c.players, c.spec): c for c in config.all_challengers()}
    rows = []
    for (n, _), g in df.groupby(["players", "matchup_index"], sort=True):
        focus = g[g.role == "focus"]
        first = focus.iloc[0]
        alone = first.focus != config.agent
        spec = first.focus if alone else first.field
        games = len(focus)
        share = float(focus.win_share.sum()) / games
        parity = 1.0 / n
        se0 = math.sqrt(parity * (1 - parity) / games)
        c = kinds[(int(n), spec)]
        rows.append({"challenger": spec, "kind": c.kind, "change": c.change, "players": int(n),
                     "direction": "head-to-head" if n == 2 else "alone" if alone else "field",
                     "challenger_focus": bool(alone), "games": games, "share": share,
                     "parity": parity,
                     "p_value": float(2 * st.norm.sf(abs(share - parity) / se0))})
    tested = pd.DataFrame(rows)
    if tested.empty:
        return tested
    out = Holm(alpha=alpha, interval=WilsonInterval())(tested)
    lo95, hi95 = wilson_interval_rows(out)
    # The focus agent's share and intervals -> the challenger's per seat.
    field_rows = ~out.challenger_focus.to_numpy(dtype=bool)
    k = out.players - 1
    for col, lo, hi in (("share", None, None), ("ci", lo95, hi95),
                        ("adj", out.adj_lo.to_numpy(), out.adj_hi.to_numpy())):
        if col == "share":
            out["win_share"] = np.where(field_rows, (1 - out.share) / k, out.share)
            continue
        out[f"{col}_lo"] = np.where(field_rows, (1 - hi) / k, lo)
        out[f"{col}_hi"] = np.where(field_rows, (1 - lo) / k, hi)
    out["verdict"] = np.where(out.adj_lo > out.parity, "beats",
                              np.where(out.adj_hi < out.parity, "loses", "even"))
    return out[["challenger", "kind", "change", "players", "direction", "games", "win_share",
                "parity", "ci_lo", "ci_hi", "adj_lo", "adj_hi", "adj_level", "p_value",
                "p_holm", "holm_m", "significant", "verdict"]]


def wilson_interval_rows(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The unadjusted 95% Wilson interval of each row's tested share."""
    pairs = [wilson_interval(s * g, int(g)) for s, g in zip(table.share, table.games,
                                                               strict=True)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def beaten_by(table: pd.DataFrame) -> list[str]:
    """The challengers that beat AGENT somewhere, in table order, each once."""
    return list(dict.fromkeys(table[table.verdict == "beats"].challenger))


def format_probe(table: pd.DataFrame) -> str:
    """The probe table as Markdown: every challenger, the corrected interval and verdict."""
    level = ""
    if not table.empty:
        level = f" (Holm, m = {int(table.holm_m.iloc[0])})"
    lines = [f"| challenger | kind | players | direction | games | challenger win share "
             f"per seat | parity | corrected interval{level} | level | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.challenger} | {r.kind}: {r.change} | {r.players} | "
                     f"{r.direction} | {r.games} | {r.win_share:.3f} | {r.parity:.3f} | "
                     f"[{r.adj_lo:.3f}, {r.adj_hi:.3f}] | {100 * r.adj_level:.2f}% | "
                     f"{r.verdict} |")
    return "\n".join(lines)


def verdict_line(table: pd.DataFrame, agent: str) -> str:
    """The probe's last word: `no challenger beats AGENT`, or who does, where."""
    winners = table[table.verdict == "beats"]
    if winners.empty:
        return f"no challenger beats {agent}"
    where = [f"{r.challenger} ({r.players} players, {r.direction}: {r.win_share:.3f} "
             f"[{r.adj_lo:.3f}, {r.adj_hi:.3f}])" for r in winners.itertuples()]
    return f"{len(beaten_by(table))} challenger(s) beat {agent}: " + "; ".join(where)
