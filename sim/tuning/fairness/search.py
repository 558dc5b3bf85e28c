"""The searches: which settings to play, given what the settings played so far gave.

Each search calls `measure(setting)`, which plays the setting on the cell's common seeds
(or reads it from the tuning log) and returns its outcome. A search is a deterministic
function of those outcomes and the seed, so a resumed tuning replays it from the log and
goes on where it stopped, with the same choices an uninterrupted run would make.

- `grid`: every setting (for small spaces of choices).
- `monotone`: one integer knob whose effect on each seat's win share runs one way (a start
  score bonus helps its seat more the larger it is). A few evenly spaced values, then an
  isotonic fit of every seat's share (scipy), read at every integer, points to where the
  target is smallest; that value and its neighbours are played until the fitted best and
  both neighbours are known. The fit pools neighbouring values, so one value's noise does
  not mislead the search.
- `surface`: several integer knobs (start-score bonuses for several seats). A linear
  model of every seat's share in the knobs (least squares, weighted towards the best
  setting so far, where the response is close to linear), read at every integer setting,
  points to the setting with the smallest predicted target; it is played, then its
  neighbours (one step up or down in any of the knobs, the most promising first), until
  the predicted best and all its neighbours are known.
  Each seat's share moves almost linearly with the bonuses near the fair point, so this
  finds it in a few dozen settings where a general optimiser would need far more.
- `optuna`: several knobs, some of them choices. Optuna's TPE sampler proposes each
  setting from all outcomes so far; it is rebuilt for every proposal from the log with a
  seed derived from the tuning's seed and the proposal's index, which makes the proposals
  replayable.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.run.loop import derive_seed
from sim.tuning.fairness.knobs import Dimension
from sim.tuning.fairness.knobs import space_size
from sim.tuning.fairness.outcome import Outcome
from sim.tuning.fairness.spec import Target

Setting = tuple[Any, ...]
Measure = Callable[[Setting], Outcome]
FIRST_POINTS = 5  # evenly spaced values a monotone search starts with
MAX_SURFACE = 200_000  # integer settings a response surface reads at once
REPEATS = 25  # an optuna search stops after this many proposals in a row it had already made


def method_for(dims: Sequence[Dimension], method: str, budget: int) -> str:
    """The search `auto` picks: monotone for one integer knob, a response surface for
    several, every setting when they fit the budget, else optuna."""
    if method != "auto":
        return method
    if len(dims) == 1 and dims[0].is_int:
        return "monotone"
    if all(d.is_int for d in dims) and space_size(dims) <= MAX_SURFACE:
        return "surface"
    if space_size(dims) <= budget:
        return "grid"
    return "optuna"


def grid(dims: Sequence[Dimension], measure: Measure, budget: int, target: Target,
         seed: int) -> None:
    """Every setting, in order, up to the budget."""
    for setting in itertools.islice(itertools.product(*(d.values() for d in dims)), budget):
        measure(tuple(setting))


def fitted_shares(xs: Sequence[int], outcomes: Sequence[Outcome], grid_x: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's win share fitted as a monotone function of x (increasing or decreasing,
    whichever fits better, weighted by games) and read at every x of `grid_x` (linear
    between played values, flat beyond them); the mean rounds interpolated the same way."""
    from scipy.optimize import isotonic_regression

    order = np.argsort(xs)
    x = np.asarray(xs, np.float64)[order]
    w = np.asarray([o.games for o in outcomes], np.float64)[order]
    shares = np.asarray([o.shares() for o in outcomes], np.float64)[order]
    rounds = np.asarray([o.rounds for o in outcomes], np.float64)[order]
    fitted = np.empty((len(grid_x), shares.shape[1]))
    for seat in range(shares.shape[1]):
        y = shares[:, seat]
        best = None
        for increasing in (True, False):
            fit = isotonic_regression(y, weights=w, increasing=increasing).x
            sse = float(np.sum(w * (fit - y) ** 2))
            if best is None or sse < best[0]:
                best = (sse, fit)
        assert best is not None
        fitted[:, seat] = np.interp(grid_x, x, best[1])
    return fitted, np.interp(grid_x, x, rounds)


def monotone(dims: Sequence[Dimension], measure: Measure, budget: int, target: Target,
             seed: int) -> None:
    """One integer knob: evenly spaced values, then the fitted best and its neighbours."""
    (dim,) = dims
    values = dim.values()
    done: dict[int, Outcome] = {}

    def play(x: int) -> None:
        if x not in done and len(done) < budget:
            done[x] = measure((x,))

    k = min(FIRST_POINTS, len(values), budget)
    for i in range(k):
        play(values[round(i * (len(values) - 1) / max(k - 1, 1))])
    grid_x = np.asarray(values, np.float64)
    while len(done) < budget:
        xs = sorted(done)
        fitted, rounds = fitted_shares(xs, [done[x] for x in xs], grid_x)
        best = values[int(np.argmin(target.values(fitted, rounds)))]
        todo = [x for x in (best, best - 1, best + 1)
                if dim.low <= x <= dim.high and x not in done]
        if not todo:
            return
        play(todo[0])


def surface(dims: Sequence[Dimension], measure: Measure, budget: int, target: Target,
            seed: int) -> None:
    """Several integer knobs: a locally weighted linear fit, its predicted best and that
    setting's neighbours (every setting one step away in any knobs: near the fair point the
    seats trade shares, so moving two bonuses together is often the step that helps)."""
    done: dict[Setting, Outcome] = {}

    def play(x: Setting) -> None:
        if x not in done and len(done) < budget:
            done[x] = measure(x)

    lows = np.array([d.low for d in dims])
    highs = np.array([d.high for d in dims])
    start = np.clip(0, lows, highs)
    play(tuple(int(v) for v in start))
    for i, d in enumerate(dims):  # one step along each knob: the first fit is exact
        step = max(1, d.size() // 4)
        x = start.copy()
        x[i] = x[i] + step if x[i] + step <= d.high else x[i] - step
        play(tuple(int(v) for v in x))
    grid_x = np.array(list(itertools.product(*(d.values() for d in dims))), np.float64)
    index = {tuple(int(v) for v in row): i for i, row in enumerate(grid_x)}
    steps = [s for s in itertools.product((-1, 0, 1), repeat=len(dims)) if any(s)]
    while len(done) < budget:
        xs = list(done)
        outs = [done[x] for x in xs]
        best = np.array(min(xs, key=lambda x: done[x].target(target)), np.float64)
        pts = np.array(xs, np.float64)
        scale = highs - lows + 1
        dist = np.sqrt((((pts - best) / scale * 4) ** 2).sum(axis=1))
        w = np.array([o.games for o in outs], np.float64) / (1 + dist ** 2)
        design = np.column_stack([np.ones(len(xs)), pts])
        ys = np.column_stack([np.array([o.shares() for o in outs]),
                              np.array([o.rounds for o in outs])])
        sw = np.sqrt(w)[:, None]
        coef, *_ = np.linalg.lstsq(design * sw, ys * sw, rcond=None)
        pred = np.column_stack([np.ones(len(grid_x)), grid_x]) @ coef
        values = target.values(pred[:, :-1], pred[:, -1])
        x_best = tuple(int(v) for v in grid_x[int(np.argmin(values))])
        near = [tuple(v + d for v, d in zip(x_best, s, strict=True)) for s in steps]
        near = sorted((x for x in near if x in index), key=lambda x: values[index[x]])
        todo = [x for x in (x_best, *near) if x not in done]
        if not todo:
            return
        play(todo[0])


def optuna_search(dims: Sequence[Dimension], measure: Measure, budget: int, target: Target,
                  seed: int) -> None:
    """Several knobs: TPE proposals, each from every outcome so far, up to the budget of
    distinct settings (or until it keeps proposing settings it has played)."""
    import optuna
    from optuna.distributions import CategoricalDistribution
    from optuna.distributions import IntDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {d.name: IntDistribution(d.low, d.high) if d.is_int
             else CategoricalDistribution(list(range(d.size()))) for d in dims}
    history: list[tuple[dict[str, int], float]] = []
    seen: set[Setting] = set()
    repeats = 0
    index = 0
    while len(seen) < budget and repeats < REPEATS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(
                seed=derive_seed(seed, "optuna", index) % 2**32,
                n_startup_trials=min(10, max(budget // 3, 1)))
            study = optuna.create_study(sampler=sampler)
            for params, value in history:
                study.add_trial(optuna.trial.create_trial(params=params, distributions=dists,
                                                          value=value))
            trial = study.ask(dists)
        params = {d.name: int(trial.params[d.name]) for d in dims}
        setting = tuple(params[d.name] if d.is_int else d.choices[params[d.name]]
                        for d in dims)
        index += 1
        repeats = repeats + 1 if setting in seen else 0
        seen.add(setting)
        history.append((params, measure(setting).target(target)))


SEARCHES: dict[str, Callable[..., None]] = {"grid": grid, "monotone": monotone,
                                            "surface": surface, "optuna": optuna_search}
