"""Balance studies: a TOML spec of variants x player counts, run cell by cell, loaded as one.

- `analysis.study.spec`: parsing and validating the spec (`load_study`, `study_from_dict`,
  `StudySpec`, its `Cell`s);
- `analysis.study.run`: playing every cell through `sim.run.runner.Run` into
  `DIR/runs/<variant>-<players>p` and recording `DIR/study.json` (`run_study`);
- `analysis.study.data`: opening a study folder, or any run folders on one board, as pandas
  tables (`open_study`, `cells_from_runs`, `StudyData`).

Every name is importable from `analysis.study` itself.
"""

from analysis.study.data import CellRun, StudyData, cells_from_runs, open_study
from analysis.study.run import CellResult, run_study
from analysis.study.spec import (
    CELL_KEYS,
    STUDY_FILE,
    STUDY_FORMAT,
    TOP_KEYS,
    VARIANT_KEYS,
    Cell,
    StudyError,
    StudySpec,
    Variant,
    load_study,
    study_from_dict,
)

__all__ = ["CELL_KEYS", "STUDY_FILE", "STUDY_FORMAT", "TOP_KEYS", "VARIANT_KEYS", "Cell",
           "CellResult", "CellRun", "StudyData", "StudyError", "StudySpec", "Variant",
           "cells_from_runs", "load_study", "open_study", "run_study", "study_from_dict"]
