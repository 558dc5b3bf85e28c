"""What a designer should do with a finding: explicit rules from labels, verdicts and
population answers to one of four kinds of advice (pure functions, no tables).

A finding here is a rules variant's change of the first player's win share against the
baseline rules, at one player count. Its evidence: the verdict at the level of play the
report measured (significant or not, its Holm-adjusted interval), the skill ladder's label
across levels (`analysis.metrics.robustness`), and, where a population study answered it,
the change whoever plays (`analysis.metagame`) and whether that answer has converged.

**The rules**, in this order:

1. **recommend**: the population answer is significant and has converged, and the ladder
   (if any) labels the finding robust in the same direction: it holds at every level of
   play checked and whoever plays.
2. **do not rely on**: the ladder labels it skill-dependent or reversed, or the population
   answer is significant in the direction opposite to the measured level's: the answer
   depends on the bots.
3. **candidate**: significant where measured and robust across the ladder (or significant
   whoever plays without having converged, or significant at its only level when no
   ladder examined it): worth trying, not yet settled for strong play.
4. **unknown**: nothing significant (the ladder's *not found*, or no significant verdict
   anywhere): no change of the rules is supported.

For recommend and candidate the action follows the sign: a change that brings the first
player's share closer to the fair share says *change to the variant*, one that takes it
further says *keep the baseline*.

**The first player's edge itself** (a population study's answer for one rules set, not a
change): **recommend** compensating the seats when the first player's share whoever plays
leaves out the fair share 1/n and the answer has converged; **candidate** when it leaves
it out without having converged (or with no next bot to check it); **unknown** when its
interval holds 1/n (no edge shown: keep the rules). The compensation is for the later seats
when the first player wins more than 1/n, for the first seat when it wins less.
"""

from __future__ import annotations

from dataclasses import dataclass

RECOMMEND = "recommend"
CANDIDATE = "candidate"
DO_NOT_RELY = "do not rely on"
UNKNOWN = "unknown"
KINDS = (RECOMMEND, CANDIDATE, DO_NOT_RELY, UNKNOWN)
RULE = ("recommend: significant and converged whoever plays (a population of bots), robust "
        "across the skill ladder if one examined it; do not rely on: skill-dependent or "
        "reversed across the ladder, or significant whoever plays in the other direction; "
        "candidate: significant where measured and robust across the ladder, significant "
        "whoever plays but not converged, or significant at its only level; unknown: "
        "significant nowhere")
EDGE_RULE = ("the first player's edge whoever plays: recommend compensating when its interval "
             "leaves out the fair share 1/n and the answer has converged, candidate when it "
             "leaves it out without having converged, unknown (keep the rules) when it holds it")
POPULATION_RULE = f"{RULE}; {EDGE_RULE}"


@dataclass(frozen=True)
class Estimate:
    """A change with its (Holm-adjusted) interval and verdict, where it was measured."""

    diff: float
    lo: float
    hi: float
    significant: bool
    where: str  # "with the Learned agent", "whoever plays among ..."

    def __post_init__(self) -> None:
        if self.significant != (self.lo > 0 or self.hi < 0):
            raise ValueError(f"an interval [{self.lo}, {self.hi}] and the verdict "
                             f"significant={self.significant} disagree")


@dataclass(frozen=True)
class Evidence:
    """Everything known of one finding (see the module docstring)."""

    players: int
    variant: str
    baseline: str
    base_share: float  # the baseline's first-player share where measured
    measured: Estimate
    label: str | None = None  # the ladder's label; None when no ladder examined it
    top: Estimate | None = None  # the ladder's strongest level
    population: Estimate | None = None  # the change whoever plays
    converged: bool | None = None  # the population answer's convergence


@dataclass(frozen=True)
class Advice:
    """One piece of advice: its kind, the action (`change`, `keep`, or "" when none is
    supported) and the rule that decided it."""

    kind: str
    action: str
    reason: str


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def towards_fair(base_share: float, diff: float, players: int) -> bool:
    """Whether a change brings the first player's share closer to the fair 1/n."""
    fair = 1 / players
    return abs(base_share + diff - fair) < abs(base_share - fair)


def advise(e: Evidence) -> Advice:
    """The advice for one finding, by the rules of the module docstring."""
    pop = e.population
    robust = e.label in (None, "robust")
    if pop is not None and pop.significant and e.converged and robust \
            and (e.label is None or _sign(pop.diff) == _sign(e.measured.diff)):
        return Advice(RECOMMEND, _action(e, pop.diff),
                      "significant and converged whoever plays"
                      + ("" if e.label is None else ", robust across the ladder"))
    if e.label in ("skill-dependent", "reversed"):
        return Advice(DO_NOT_RELY, "", f"{e.label} across the skill ladder")
    if pop is not None and pop.significant and e.measured.significant \
            and _sign(pop.diff) != _sign(e.measured.diff):
        return Advice(DO_NOT_RELY, "", "whoever plays, it points the other way")
    if e.label == "robust" and e.measured.significant:
        return Advice(CANDIDATE, _action(e, e.measured.diff),
                      "robust across the skill ladder, not yet settled whoever plays")
    if pop is not None and pop.significant:
        return Advice(CANDIDATE, _action(e, pop.diff),
                      "significant whoever plays, not converged")
    if e.label is None and e.measured.significant:
        return Advice(CANDIDATE, _action(e, e.measured.diff),
                      "significant at the one level measured; no ladder examined it")
    return Advice(UNKNOWN, "", "significant nowhere" if e.label != "not found"
                  else "not found at any level of the skill ladder")


def _action(e: Evidence, diff: float) -> str:
    return "change" if towards_fair(e.base_share, diff, e.players) else "keep"


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def interval_text(est: Estimate) -> str:
    return f"{_pp(est.diff)} pp [{_pp(est.lo)}, {_pp(est.hi)}]"


def sentence(e: Evidence, a: Advice) -> str:
    """The advice in one or two sentences: what to do, the levels of play (and population)
    it holds for, and what is still unknown (the command that would settle it is the
    caller's, said once for all its findings)."""
    n, v, b = e.players, e.variant, e.baseline
    m = e.measured
    effect = "cuts" if towards_fair(e.base_share, m.diff, n) else "widens"
    if a.kind == RECOMMEND:
        pop = e.population
        assert pop is not None
        verb = f"use {v}" if a.action == "change" else f"keep {b}"
        return (f"At {n} players, {verb}: {v} changes the first player's share by "
                f"{interval_text(pop)} {pop.where}, converged"
                + (", and robust across the skill ladder" if e.label else "") + ". Recommended.")
    if a.kind == CANDIDATE:
        basis = e.population if a.reason.startswith("significant whoever") else m
        assert basis is not None
        top = (f" and {interval_text(e.top)} {e.top.where}"
               if e.top is not None and e.label == "robust" else "")
        span = ("at every level from the heuristic up" if e.label == "robust"
                else basis.where)
        verb = f"{v} is a candidate rule" if a.action == "change" \
            else f"keep {b}: {v} is worse"
        return (f"At {n} players, {v} {effect} the first player's edge: {interval_text(basis)} "
                f"{basis.where}{top}, {span}: {verb}; not yet settled for every level of "
                f"play.")
    if a.kind == DO_NOT_RELY:
        parts = [f"{interval_text(m)} {m.where}"]
        if e.top is not None:
            parts.append(f"{interval_text(e.top)} {e.top.where}")
        if e.population is not None:
            parts.append(f"{interval_text(e.population)} {e.population.where}")
        signs = {_sign(x.diff) for x in (m, e.top, e.population)
                 if x is not None and x.significant}
        if len(signs) == 1 and e.top is not None and e.top.significant and m.significant:
            return (f"At {n} players, {v} {effect} the first player's edge at every level "
                    f"measured, but by how much depends on the bots: {'; '.join(parts)}. Do "
                    f"not rely on its size for strong play.")
        return (f"Whether {v} helps at {n} players depends on the bots: "
                f"{'; '.join(parts)}. Do not rely on it for strong play.")
    if e.label == "robust":
        return (f"At {n} players, these games show no significant change from {v} "
                f"({interval_text(m)} {m.where}), though the skill ladder found one at every "
                "level from the heuristic up on its own games: more games here would tell.")
    return (f"At {n} players, {v} shows no change of the first player's share that holds "
            f"({interval_text(m)} {m.where}): no reason to change the rules.")


def short_form(e: Evidence, a: Advice) -> str:
    """The advice in a few words, for a one-line summary: `Known order at 2p: do not rely
    on (depends on the bots)`."""
    head = f"{e.variant} at {e.players}p: {a.kind}"
    if a.kind == RECOMMEND:
        return f"{head} ({'use it' if a.action == 'change' else f'keep {e.baseline}'})"
    if a.kind == CANDIDATE:
        what = "cuts" if a.action == "change" else "widens"
        return f"{head} ({what} the first player's edge, {interval_text(e.measured)})"
    if a.kind == DO_NOT_RELY:
        return f"{head} (depends on the bots)"
    return f"{head} (no change that holds)"


@dataclass(frozen=True)
class Edge:
    """The first player's share whoever plays at one player count under one rules set, its
    interval, and whether the answer has converged (None: no next bot checked it)."""

    players: int
    rules: str
    share: float
    lo: float
    hi: float
    where: str  # "whoever plays among ..."
    converged: bool | None = None

    @property
    def fair(self) -> float:
        return 1 / self.players


def advise_edge(e: Edge) -> Advice:
    """The advice on the first player's edge, by the module docstring's last rule."""
    if e.lo <= e.fair <= e.hi:
        return Advice(UNKNOWN, "", "the interval holds the fair share")
    action = "compensate later seats" if e.lo > e.fair else "compensate the first seat"
    if e.converged:
        return Advice(RECOMMEND, action, "an edge whoever plays, converged")
    return Advice(CANDIDATE, action, "an edge whoever plays, not converged"
                  if e.converged is False else "an edge whoever plays, convergence not checked")


def edge_sentence(e: Edge, a: Advice) -> str:
    """The edge advice in one or two sentences (the report's box)."""
    n = e.players
    share = (f"the first player wins {100 * e.share:.1f}% [{100 * e.lo:.1f}, "
             f"{100 * e.hi:.1f}] {e.where} (fair {100 * e.fair:.0f}%)")
    if a.kind == UNKNOWN:
        return f"At {n} players, {e.rules}: {share}: no edge shown; keep the rules."
    whom = "the later seats" if a.action == "compensate later seats" else "the first seat"
    settled = {RECOMMEND: "converged: compensate them (a start-score bonus, `portobello tune`)",
               CANDIDATE: "not yet converged: a compensation is worth tuning, not yet "
                          "settled for every level of play"}[a.kind]
    return f"At {n} players, {e.rules}: {share}, an edge against {whom}; {settled}."


def edge_short(e: Edge, a: Advice) -> str:
    """The edge advice in a few words: `Standard rules at 2p: candidate (first player
    79.5%, compensate later seats)`."""
    head = f"{e.rules} at {e.players}p: {a.kind}"
    if a.kind == UNKNOWN:
        return f"{head} (no first-player edge shown)"
    return f"{head} (first player {100 * e.share:.1f}%, {a.action})"
