"""Balance studies: a TOML spec of variants x player counts, run cell by cell, loaded as one.

- `analysis.study.spec`: parsing and validating the spec (`load_study`, `study_from_dict`,
  `StudySpec`, its `Cell`s);
- `analysis.study.switches`: the rules switches of a spec (presets, rules tables, stall
  counts by player count) and sweeps over one or two switches (`Sweep`, `Variant`);
- `analysis.study.skill`: skill levels, the same variants played by weaker and stronger
  agents on the same seeds (`SkillLevel` in a spec, `SkillInfo` in a loaded study);
- `analysis.study.run`: playing every cell through `sim.run.runner.Run` into
  `DIR/runs/<variant>-<players>p` and recording `DIR/study.json` (`run_study`), resuming
  or topping up a study folder of the same configuration;
- `analysis.study.precision`: precision on demand, a cell played in rounds until every
  seat's win share is as precise as asked (`Plan`, `make_plan`, `play_to_precision`);
- `analysis.study.data`: opening a study folder, or any run folders on one board, as pandas
  tables (`open_study`, `cells_from_runs`, `StudyData`, its `SweepInfo`).

Every name is importable from `analysis.study` itself.
"""

from analysis.study.data import CellRun
from analysis.study.data import StudyData
from analysis.study.data import SweepInfo
from analysis.study.data import cells_from_runs
from analysis.study.data import open_study
from analysis.study.data import sweep_value
from analysis.study.precision import Plan
from analysis.study.precision import PrecisionError
from analysis.study.precision import make_plan
from analysis.study.precision import play_to_precision
from analysis.study.run import CellResult
from analysis.study.run import run_study
from analysis.study.skill import SkillInfo
from analysis.study.skill import SkillLevel
from analysis.study.spec import CELL_KEYS
from analysis.study.spec import STUDY_FILE
from analysis.study.spec import STUDY_FORMAT
from analysis.study.spec import TOP_KEYS
from analysis.study.spec import VARIANT_KEYS
from analysis.study.spec import Cell
from analysis.study.spec import StudyError
from analysis.study.spec import StudySpec
from analysis.study.spec import Sweep
from analysis.study.spec import Variant
from analysis.study.spec import load_study
from analysis.study.spec import study_from_dict
from analysis.study.switches import per_player_keys

__all__ = ["CELL_KEYS", "STUDY_FILE", "STUDY_FORMAT", "TOP_KEYS",
           "VARIANT_KEYS", "Cell", "CellResult", "CellRun", "SkillInfo", "SkillLevel",
           "StudyData", "StudyError", "StudySpec", "Sweep", "SweepInfo", "Variant",
           "cells_from_runs", "load_study", "open_study", "per_player_keys", "run_study",
           "study_from_dict", "sweep_value"]
__all__ += ["Plan", "PrecisionError", "make_plan", "play_to_precision"]
