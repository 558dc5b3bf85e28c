"""A table's groups found once, from category codes and small integers: the groups
`common.groups` makes (observed only, sorted, rows with a missing key left out), without
pandas hashing every key column of every row for every statistic.

Grouping the 3-million-row players table of a million-game run by variant, player count
and seat costs pandas a hash of each key column per call; the keys are categories and
small integers, so here each row's group number is their codes combined arithmetically,
and pandas then aggregates by that number as a category (codes used as they are). The
aggregates are pandas' own over the same rows in the same order, so they are the same to
the last bit; keys of any other kind (strings, floats) are grouped by pandas itself.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from typing import NamedTuple

import numpy as np
import pandas as pd

from analysis.metrics.common import groups

# Above this many possible key combinations (and more than two a row) the observed ones
# are found by sorting instead of counting.
_COUNTED_COMBINATIONS = 1 << 22


@dataclass(frozen=True)
class Grouping:
    """Each row's group (`codes`: 0 to `len(index) - 1` in the sorted order of the groups,
    -1 for a row with a missing key) and the groups' keys (`index`: as the results of
    `common.groups(df, by)` are indexed)."""

    codes: np.ndarray
    index: pd.Index

    def __len__(self) -> int:
        return len(self.index)

    @property
    def keys(self) -> list[tuple[Any, ...]]:
        """Each group's key values as a tuple (also for one key column), in order."""
        return [k if isinstance(k, tuple) else (k,) for k in self.index]

    @cached_property
    def sizes(self) -> np.ndarray:
        """Rows per group."""
        return np.bincount(self.codes[self.codes >= 0], minlength=len(self))

    def grouped(self, data: pd.DataFrame | pd.Series) -> Any:
        """`data` (the table's rows or some of its columns) grouped by these groups: pandas'
        aggregates give one row per group, in order, over the index 0 to n - 1 (`indexed`
        puts the keys on)."""
        by = pd.Categorical.from_codes(self.codes, categories=pd.RangeIndex(len(self)))
        return data.groupby(by, observed=False)

    def indexed(self, result: pd.DataFrame | pd.Series) -> pd.DataFrame | pd.Series:
        """An aggregate of `grouped` with the groups' keys as its index."""
        result.index = self.index
        return result

    def split(self, values: np.ndarray) -> list[np.ndarray]:
        """`values` (one per row) as one array per group, each in the table's row order (as
        iterating over the groupby gives the groups' rows)."""
        codes = self.codes
        if len(codes) > 1 and not (codes[1:] >= codes[:-1]).all():
            order = np.argsort(codes, kind="stable")
            codes, values = codes[order], values[order]
        skipped = int(np.searchsorted(codes, 0))  # rows with a missing key sort first
        return np.split(values[skipped:], np.cumsum(self.sizes)[:-1])

    def parents(self, coarser: Grouping) -> np.ndarray:
        """For each of these groups, the number of the group of `coarser` that holds it:
        `coarser` groups the same table by the first of these keys."""
        inner = list(range(coarser.index.nlevels, self.index.nlevels))
        return coarser.index.get_indexer(self.index.droplevel(inner))


class _Key(NamedTuple):
    """A key column as codes: `column - offset` (category codes or integers; -1 for a
    missing category, when `missing`), of `radix` values; `values` makes the key values
    (in the column's dtype) of codes."""

    column: np.ndarray
    offset: int
    radix: int
    missing: bool
    values: Callable[[np.ndarray], Any]


def grouping(df: pd.DataFrame, by: Sequence[str]) -> Grouping:
    """The groups of `common.groups(df, by)`: from the codes of categorical and integer key
    columns when every key is one, else from pandas' own grouping."""
    by = list(by)
    keys = [_key(df[b]) for b in by] if len(df) else []
    if not keys or any(k is None for k in keys):
        return _pandas_grouping(df, by)
    known = [k for k in keys if k is not None]
    combinations = int(np.prod([k.radix for k in known], dtype=object))
    if combinations >= 1 << 62:
        return _pandas_grouping(df, by)
    combined, missing = _combined(known, len(df), np.int32 if combinations < 1 << 31
                                  else np.int64)
    if missing is not None and missing.all():
        return _pandas_grouping(df, by)
    present, codes = _observed(combined, missing, combinations)
    levels = [k.values(present // stride % k.radix)
              for k, stride in zip(known, _strides([k.radix for k in known]), strict=True)]
    if len(by) == 1:
        return Grouping(codes, pd.Index(levels[0], name=by[0]))
    return Grouping(codes, pd.MultiIndex.from_arrays(levels, names=by))


def _key(col: pd.Series) -> _Key | None:
    """A categorical, integer or boolean key column's codes; None for another kind."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        dtype = col.dtype
        codes = col.cat.codes.to_numpy()
        low, high = int(codes.min()), int(codes.max())
        missing = low < 0
        offset = 0 if missing else low
        return _Key(codes, offset, max(high - offset + 1, 1), missing,
                    lambda c: pd.Categorical.from_codes(c + offset, dtype=dtype))
    if not isinstance(col.dtype, np.dtype) or col.dtype.kind not in "iub" \
            or col.dtype == np.uint64:
        return None
    values = col.to_numpy()
    low, high = int(values.min()), int(values.max())
    kind = values.dtype
    return _Key(values, low, high - low + 1, False, lambda c: (c + low).astype(kind))


def _combined(keys: Sequence[_Key], rows: int, dtype: Any
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """Each row's codes combined into one number (the first key the most significant; a key
    with one value adds nothing), and which rows miss a key (None when none does)."""
    combined: np.ndarray | None = None
    missing: np.ndarray | None = None
    for k in keys:
        if k.missing:
            missing = k.column < 0 if missing is None else missing | (k.column < 0)
        if k.radix == 1:
            continue
        part = np.subtract(k.column, k.offset, dtype=dtype)
        if combined is None:
            combined = part
        else:
            combined *= k.radix
            combined += part
    return (np.zeros(rows, dtype) if combined is None else combined), missing


def _strides(radices: Sequence[int]) -> list[int]:
    """What each key's code is multiplied by in the combined code (the last key's by 1)."""
    strides = [1] * len(radices)
    for i in range(len(radices) - 2, -1, -1):
        strides[i] = strides[i + 1] * radices[i + 1]
    return strides


def _observed(combined: np.ndarray, missing: np.ndarray | None, combinations: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """The combined codes that occur (ascending) and each row's rank among them (-1 where a
    key is missing)."""
    valid = combined if missing is None else combined[~missing]
    if combinations <= max(_COUNTED_COMBINATIONS, 2 * len(combined)):
        present = np.flatnonzero(np.bincount(valid, minlength=combinations))
        if missing is None and len(present) == combinations:
            return present, combined  # every combination occurs: the codes are the ranks
        rank = np.full(combinations, -1, combined.dtype)
        rank[present] = np.arange(len(present))
        codes = rank[combined if missing is None else np.where(missing, 0, combined)]
    else:
        present, inverse = np.unique(valid, return_inverse=True)
        codes = np.full(len(combined), -1, combined.dtype)
        codes[slice(None) if missing is None else ~missing] = inverse
    if missing is not None:
        codes[missing] = -1
    return present, codes


def _pandas_grouping(df: pd.DataFrame, by: Sequence[str]) -> Grouping:
    """The groups as pandas finds them (keys of any kind)."""
    g = groups(df, by)
    codes = g.ngroup().to_numpy(dtype=float, na_value=np.nan)
    codes = np.where(np.isnan(codes), -1, codes).astype(np.int64)
    return Grouping(codes, g.size().index)


def distinct_per_group(groups: Grouping, values: pd.Series) -> np.ndarray:
    """How many distinct values each group holds (pandas' `nunique`): counted as runs of
    equal values when the rows are in group order with integer values ascending within
    each group (a run's game ids as it loads), else by pandas."""
    column = values.to_numpy()
    if column.dtype.kind in "iu":
        equal = ascending([groups.codes, column])
        if equal is not None:
            held = groups.codes >= 0
            starts = np.concatenate(([True], ~equal)) & held
            return np.bincount(groups.codes[starts], minlength=len(groups))
    return groups.grouped(values).nunique().to_numpy()


def ascending(columns: Sequence[np.ndarray]) -> np.ndarray | None:
    """Whether the rows are sorted by `columns` (ascending, the first the most
    significant): for sorted rows, whether each row and the next are equal in every
    column (one less than the rows); None when they are not sorted."""
    n = len(columns[0]) if columns else 0
    equal = np.ones(max(n - 1, 0), bool)
    for values in columns:
        a, b = values[:-1], values[1:]
        if (equal & (b < a)).any():
            return None
        equal &= a == b
    return equal
