"""Expert iteration: rounds of labelled games, a fit and an evaluation, resumably.

Round r plays `games` games on fresh seeds (spread over the spec's presets in turn, their
start scores spread too when the spec has a `start_bonus`) in
tasks of a few games through the command's pool (`sim.run.execution`): in round 0 the
teacher plays every seat; later, each seat plays the teacher's move with probability
1/2^r and the last model's otherwise, the teacher searching every position either way
(DAgger, `sim.learning.teacher.Mixed`). Each round's rows are kept in `OUT/round-R.npz`;
the network is fitted on every round's rows so far (`sim.learning.fit`) and saved as
`OUT/round-R.model`, then plays `eval_games` seat-rotated games against the tuned heuristic
on seeds of its own. `OUT/train.json` logs every finished round, and finished tasks of the
round under way are kept (`OUT/tasks/`), so a stopped training run again continues where
it stopped with the same result. The last round's model is also `OUT/expert.model`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.outputs import atomic_write
from sim.core.outputs import owner_of
from sim.games.portobello.agents.compiled.features import FEATURES_VERSION
from sim.games.portobello.agents.model import Model
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules
from sim.learning.fit import fit
from sim.learning.spec import StartBonus
from sim.learning.spec import TrainingError
from sim.learning.spec import TrainSpec
from sim.learning.teacher import Rows
from sim.learning.teacher import teach
from sim.run.config import play_code
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import chunks
from sim.run.execution import progress_bar
from sim.run.execution import task_size
from sim.run.loop import derive_seed
from sim.run.store import code_version
from sim.run.store import run_lock
from sim.run.store import write_json_atomic
from sim.run.task_store import TaskStore
from sim.run.task_store import task_key

LOG = "train.json"
FORMAT = "portobello-training/1"
RESULT = "expert.model"
FIELDS = ("X", "value", "visits", "chosen", "outcome", "decision")


def _teach_task(board: Board, rules: Rules, teacher: str, seeds: list[int],
                student: bytes | None, beta: float, bonus: StartBonus | None = None) -> Rows:
    """One task: a few labelled games (the student's model travels as its file's bytes)."""
    model = None if student is None else Model.from_bytes(student, "the student model")
    return teach(board, rules, teacher, seeds, model, beta, bonus)


def _save_rows(path: Path, rows: Rows) -> None:
    import io

    sink = io.BytesIO()
    np.savez(sink, **{f: getattr(rows, f) for f in FIELDS})
    atomic_write(path, sink.getvalue())


def _load_rows(path: Path) -> Rows:
    with np.load(path) as data:
        return Rows(*(data[f] for f in FIELDS))


def _log(out: Path, spec: TrainSpec) -> dict[str, Any]:
    path = out / LOG
    if not path.exists():
        return {"format": FORMAT, "name": spec.name, "identity": spec.identity(),
                "spec": spec.text, "rounds": []}
    try:
        log = json.loads(path.read_text())
        held = log["identity"]
        rounds = log["rounds"]
    except (ValueError, KeyError, TypeError):
        raise TrainingError("is not a training log; use another --out",
                            source=str(path)) from None
    if held != spec.identity() or log.get("name") != spec.name or not isinstance(rounds, list):
        raise TrainingError("holds another training (another spec); run that spec, or use "
                            "another --out", source=str(path))
    return log


def round_seeds(spec: TrainSpec, r: int) -> list[tuple[str, int]]:
    """Round r's games: (preset, game seed), the presets in turn."""
    return [(spec.presets[i % len(spec.presets)], derive_seed(spec.seed, "train", r, i))
            for i in range(spec.games)]


def _labels(spec: TrainSpec, r: int, pool: Pool, store: TaskStore, student: Model | None,
            bar: Any) -> Rows:
    """Round r's rows, in game order whatever the pool (tasks of a few games each)."""
    games = round_seeds(spec, r)
    beta = 0.5 ** r if student is not None else 1.0
    size = task_size(len(games), pool.workers, 1, 8)
    model_bytes = student.to_bytes() if student is not None else None
    student_hash = hashlib.sha256(model_bytes).hexdigest() if model_bytes else None
    tasks, keys = [], []
    for preset in spec.presets:
        mine = [s for p, s in games if p == preset]
        for part in chunks(mine, size):
            tasks.append((spec.board, spec.rules(preset), spec.teacher, list(part),
                          model_bytes, beta, spec.start_bonus))
            keys.append(task_key(spec.identity(), r, preset, list(part), beta, student_hash))
    parts = pool.ordered(_teach_task, tasks, store=store, keys=keys,
                         done=lambda k, _: bar.update(len(tasks[k][3])))
    return Rows.concat(parts)


def evaluate(spec: TrainSpec, model_path: Path, r: int, jobs: int) -> dict[str, Any]:
    """The model against the tuned heuristic: seat-rotated games on seeds of their own, the
    model's win share and its 95% interval (against parity 1/n)."""
    from sim.run.tournament import TournamentConfig
    from sim.run.tournament import run_tournament
    from sim.run.tournament import summary

    if spec.eval_games == 0:
        return {}
    config = TournamentConfig(agents=(f"expert:model={model_path}", "heuristic"),
                              players=(spec.players,), games=spec.eval_games,
                              seed=derive_seed(spec.seed, "evaluate", r) % (2**31),
                              board_ref=spec.board_ref, rules=spec.rules(spec.presets[0]),
                              pairing="first", jobs=jobs)
    df, errors = run_tournament(config)
    if errors:
        raise TrainingError(f"the model failed in {len(errors)} evaluation game(s): "
                            f"{errors[0]}", source=str(model_path))
    row = summary(df).iloc[0]
    return {"against": "heuristic", "games": int(row.games),
            "win_share": round(float(row.win_rate), 4),
            "interval": [round(float(row.ci_low), 4), round(float(row.ci_high), 4)],
            "parity": round(1 / spec.players, 4)}


def check_folder(out: Path) -> None:
    """Refuse, before anything is written, an `out` that is or lies in a folder another
    command owns (`sim.core.outputs.OWNED`: a run, study or tuning folder): a training
    writes its rows, models and log beside that command's files, which that command would
    then take for damage (or a report would show)."""
    target = Path(out).expanduser().resolve()
    found = owner_of(target)
    if found is not None:
        folder, what = found
        where = "is" if folder == target else "lies inside"
        raise TrainingError(f"{where} {folder}, {what}; a training does not write there: "
                            "give a folder of its own", source=str(out), field="--out")


def train(spec: TrainSpec, out: Path, execution: Execution | None = None,
          quiet: bool = False, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run (or resume) the training in `out` (refused in a folder another command owns:
    `check_folder`); returns its log."""
    check_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    execution = execution or Execution()
    with run_lock(out):
        book = _log(out, spec)
        store = TaskStore(out / "tasks")
        with Pool(execution) as pool:
            done = len(book["rounds"])
            bar = progress_bar(spec.games * (spec.rounds - done), quiet=quiet,
                               workers=pool.workers, desc="labelled games")
            try:
                for r in range(done, spec.rounds):
                    start = time.perf_counter()
                    student = Model.load(out / f"round-{r - 1}.model") if r else None
                    rows = _labels(spec, r, pool, store, student, bar)
                    _save_rows(out / f"round-{r}.npz", rows)
                    labelled = time.perf_counter() - start
                    data = Rows.concat([_load_rows(out / f"round-{k}.npz")
                                        for k in range(r + 1)])
                    header = {"board_hash": spec.board.content_hash,
                              "players": spec.players, "features_version": FEATURES_VERSION,
                              "presets": list(spec.presets), "teacher": spec.teacher,
                              **({"start_bonus": spec.start_bonus.to_dict()}
                                 if spec.start_bonus else {}),
                              "spec": spec.text, "round": r, "rows": len(data),
                              "data_hash": _data_hash(data), "code": play_code(),
                              "code_version": code_version(),
                              "command": " ".join(["portobello", *sys.argv[1:]])}
                    model, loss = fit(data, spec.hidden, spec.seed + 1000 * r, spec.epochs,
                                      spec.mix, header, spec.fits)
                    path = out / f"round-{r}.model"
                    model.save(path)
                    fitted = time.perf_counter() - start - labelled
                    evaluation = evaluate(spec, path, r, execution.jobs
                                          if not execution.dask else 1)
                    book["rounds"].append({
                        "round": r, "rows": len(rows), "rows_total": len(data),
                        "loss": round(loss, 6), "model": path.name,
                        "evaluation": evaluation,
                        "seconds": {"labels": round(labelled, 1), "fit": round(fitted, 1),
                                    "evaluation": round(time.perf_counter() - start
                                                        - labelled - fitted, 1)}})
                    if evaluation:  # the provenance carries how the model played
                        model = Model(model.W, model.L, {**model.header,
                                                         "evaluation": evaluation})
                        model.save(path)
                    write_json_atomic(out / LOG, book)
                    shutil.copyfile(path, out / RESULT)
                    store.clear()
                    if log:
                        e = evaluation
                        log(f"round {r}: {len(rows):,} rows ({len(data):,} in all), loss "
                            f"{loss:.5f}" + (f"; against the heuristic {e['win_share']:.3f} "
                                             f"[{e['interval'][0]:.3f}, {e['interval'][1]:.3f}]"
                                             f" (parity {e['parity']:.3f})" if e else ""))
            finally:
                bar.close()
    return book


def _data_hash(rows: Rows) -> str:
    h = hashlib.sha256()
    for f in FIELDS:
        h.update(np.ascontiguousarray(getattr(rows, f)).tobytes())
    return h.hexdigest()[:16]
