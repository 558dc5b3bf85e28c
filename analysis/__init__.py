"""Loading run logs, statistics with confidence intervals, comparisons, charts, reports."""

from analysis.load import RunData
from analysis.load import load_run
from analysis.load import load_runs

__all__ = ["RunData", "load_run", "load_runs"]
