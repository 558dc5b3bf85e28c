"""Statistics of study tables: small callables from DataFrame to DataFrame.

Each statistic is a frozen dataclass of parameters, checked at construction (the message
names the class, the parameter and the allowed values), called on a pandas DataFrame and
returning a new one; it keeps no other state. The input tables are those of
`analysis.study.StudyData` (`games`, `players`, `events`, each with `variant` and
`n_players`); every statistic groups by `by` (default variant and player count).

Intervals are 95% by default. Win shares use the Wilson score interval on the mean share:
a game counts as one trial and a k-way tie gives each winner 1/k, so a seat's wins are the
sum of its shares over n games. Means use the t interval.

The statistics live in cohesive modules, all re-exported here (`from analysis import metrics
as M; M.WinShare()`): `common` (grouping, checks, intervals), `seats` (win shares, seat
balance, first player), `games` (distributions, margins, points, end reasons, anomalies),
`events` (districts, lanes, spots) and `luck` (customer exposure and its effect).
`multiple` (Holm's correction and the intervals that agree with it) is imported from
`analysis.metrics.multiple` or through `analysis.compare`; `robustness` (labels of findings
across skill levels) and `calibration` (the games against real play) from their modules.
"""

from analysis.metrics.common import BY
from analysis.metrics.common import StatError
from analysis.metrics.common import wilson_interval
from analysis.metrics.common import z_value
from analysis.metrics.events import DistrictTiming
from analysis.metrics.events import LaneUsage
from analysis.metrics.events import SpotUsage
from analysis.metrics.games import Anomalies
from analysis.metrics.games import Describe
from analysis.metrics.games import Margins
from analysis.metrics.games import PointsBySource
from analysis.metrics.games import Proportions
from analysis.metrics.luck import CustomerExposure
from analysis.metrics.luck import LuckEffect
from analysis.metrics.luck import ShareByLevel
from analysis.metrics.seats import FirstPlayerAdvantage
from analysis.metrics.seats import SeatBalance
from analysis.metrics.seats import WinShare

__all__ = ["BY", "Anomalies", "CustomerExposure", "Describe", "DistrictTiming",
           "FirstPlayerAdvantage", "LaneUsage", "LuckEffect", "Margins", "PointsBySource",
           "Proportions", "SeatBalance", "ShareByLevel", "SpotUsage", "StatError", "WinShare",
           "wilson_interval", "z_value"]
