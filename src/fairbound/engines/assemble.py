"""Turn an engine's small statistics table into :class:`Aggregates`.

Every engine runs the same query (:func:`fairbound.engines.sql.stats_query`) and hands
its rows here, so DuckDB and Spark results are assembled by one piece of code: the same
exclusion rules, the same group order and the same summation order (cells sorted by key
before floating-point sums are added up).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from itertools import chain
from operator import itemgetter

import numpy as np

from fairbound.engines.base import Aggregates, AggregateSpec, CostMoments
from fairbound.engines.sql import Plan
from fairbound.errors import FairboundError
from fairbound.labels import sort_key  # the one order of label and group values

MISSING_GROUP = "missing group (not annotated)"
MISSING_LABEL = "missing label"
MISSING_PREDICTION = "missing prediction"
MISSING_COST = "missing cost"


def is_missing(v) -> bool:
    """``None``, NaN or ``pandas.NA``."""
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return bool(np.isnan(v))
    return type(v).__name__ in ("NAType", "NaTType")


def py(v):
    """Plain Python scalar; integral floats become ``int`` so 1.0 and 1 are one label."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def group_key(row: Mapping, n_group: int):
    """Return the group label of a result row (a tuple for intersections), or ``None``."""
    vals = [row[f"g{i}"] for i in range(n_group)]
    if any(is_missing(v) for v in vals):
        return None
    vals = [py(v) for v in vals]
    return vals[0] if n_group == 1 else tuple(vals)


def where_reason(plan: Plan) -> str:
    """Return the exclusion reason for rows that fail the filter."""
    return f"where not true: {plan.where.text}"


def check_kept(n_rows: int, kept: bool, plan: Plan, excluded: Mapping, source: str,
               nothing: str) -> None:
    """The one-line errors of a scan that kept no row, else nothing.

    No rows at all (``data: no rows in <source>``), a ``where`` condition that selects
    none of them, or else ``nothing`` (what a kept row needs), followed by the reasons
    rows were excluded for.
    """
    if n_rows == 0:
        raise FairboundError(f"data: no rows in {source}", param="data")
    if kept:
        return
    if plan.where is not None and excluded.get(where_reason(plan), 0) >= n_rows:
        raise FairboundError(f"where: the condition {plan.where.text!r} selects none of "
                             f"the {n_rows:,} rows", param="where")
    raise FairboundError(f"{nothing}; excluded: {dict(excluded)}", param="data")


class ResultColumns(Sequence):
    """The rows of a statistics result held as its columns: a sequence of dicts to read.

    An engine that gets a result as tuples (DuckDB's ``fetchall``) hands it on as columns
    instead of building one dict per row, which at 100,000 groups (400,000 rows) cost
    about as much as the rest of the assembly: the default audit of ``python
    benchmarks/bench_groups.py --groups 100000 --rows 10000000 --methods auto`` took 4.0x
    to 4.7x the bare ``GROUP BY`` after this, against 4.7x to 5.0x before, in the same
    rounds (``benchmarks/results/bench_groups.txt``).  :func:`assemble` and
    :func:`collected_size` read the columns; anything else reads rows, as dicts, as from
    a list.

    Examples
    --------
    >>> res = ResultColumns.from_tuples(["g0", "n"], [("a", 3), ("b", 1)])
    >>> len(res), res[1], res.column("n")
    (2, {'g0': 'b', 'n': 1}, [3, 1])
    """

    __slots__ = ("_columns", "_names", "_size")

    def __init__(self, names: list[str], columns: list[list]):
        if len(names) != len(columns) or len({len(c) for c in columns}) > 1:
            raise ValueError("ResultColumns: one column of equal length per name")
        self._names = list(names)
        self._columns = list(columns)       # the lists themselves, not copies
        self._size = len(columns[0]) if columns else 0

    @classmethod
    def from_tuples(cls, names: list[str], rows: list[tuple]) -> ResultColumns:
        """Columns of ``rows``, tuples in the order of ``names``."""
        return cls(names, [list(map(itemgetter(i), rows)) for i in range(len(names))])

    @property
    def names(self) -> list[str]:
        """The column names, in order."""
        return list(self._names)

    def column(self, name: str) -> list:
        """The values of column ``name``, one per row (the held list: do not change it)."""
        return self._columns[self._names.index(name)]

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        return dict(zip(self._names, (c[i] for c in self._columns), strict=True))

    def __iter__(self) -> Iterator[dict]:
        names = self._names
        return (dict(zip(names, vals, strict=True)) for vals in zip(*self._columns, strict=True))


def _column_values(rows, name: str) -> list:
    """Column ``name`` of a result's rows (:class:`ResultColumns` or a list of dicts)."""
    if isinstance(rows, ResultColumns):
        return rows.column(name)
    return list(map(itemgetter(name), rows))


def collected_size(rows: list[dict] | ResultColumns) -> int:
    """Bytes of a statistics result that crossed to Python, as every engine counts them.

    8 a number (or missing value), the UTF-8 text of strings; lists count their items.
    Values are counted by type, a whole type at once (the text of all strings of a
    result is encoded in one go).

    Examples
    --------
    >>> collected_size([{"g0": "a", "n": 3}, {"g0": "é", "n": 1, "cs": [0.5, 1.0]}])
    35
    >>> collected_size(ResultColumns(["g0", "n"], [["a", "é"], [3, 1]]))
    19
    """
    columns = None
    if isinstance(rows, ResultColumns):
        columns = [rows.column(k) for k in rows.names]
    else:
        names = list(rows[0]) if rows else []
        if all(len(r) == len(names) for r in rows):   # the same columns in every row
            with contextlib.suppress(KeyError):
                columns = [list(map(itemgetter(k), rows)) for k in names]
    if columns is not None:
        total = 0
        for col in columns:
            kinds = set(map(type, col))
            if len(kinds) == 1:
                total += _size_of(kinds.pop(), col, None)
            else:
                types = list(map(type, col))
                total += sum(_size_of(t, col, types) for t in kinds)
        return total
    values = list(chain.from_iterable(r.values() for r in rows))
    types = list(map(type, values))
    return sum(_size_of(t, values, types) for t in set(types))


def _size_of(t: type, values: list, types: list | None) -> int:
    """The bytes of the ``values`` of type ``t``, as :func:`collected_size` counts them.

    ``types`` holds the type of each value (``None``: all are of type ``t``).
    """
    if types is not None:
        values = [v for v, u in zip(values, types, strict=True) if u is t]
    if issubclass(t, str):   # UTF-8 is concatenative: one encoding of all the text
        return len("".join(values).encode())
    if issubclass(t, bytes):
        return sum(map(len, values))
    if issubclass(t, list | tuple):
        inner = [x for v in values for x in v]
        kinds = list(map(type, inner))
        return sum(_size_of(k, inner, kinds) for k in set(kinds))
    return 8 * len(values)


#: What :func:`checking_groups` asks :func:`assemble` to run on the number of groups.
_GROUP_CHECK: ContextVar[Callable[[int], None] | None] = ContextVar("fairbound_group_check",
                                                                     default=None)


@contextlib.contextmanager
def checking_groups(check: Callable[[int], None]) -> Iterator[None]:
    """Run ``check(number of groups)`` in every :func:`assemble` of this block.

    It runs as soon as the statistics rows are back from the engine, before they are
    sorted and summed (what takes the time for many groups), so a caller can refuse an
    audit of too many groups (:func:`fairbound.audits.pairing.check_comparison_limit`) after
    the one scan without waiting for the rest.  ``check`` raises to refuse.

    Examples
    --------
    >>> def at_most_one(n):
    ...     if n > 1:
    ...         raise ValueError(f"{n} groups")
    >>> import pandas as pd
    >>> from fairbound.engines import aggregate
    >>> with checking_groups(at_most_one):
    ...     aggregate(pd.DataFrame({"g": ["a", "b"], "y": [0, 1]}),
    ...               AggregateSpec(group=("g",), label="y", prediction="y"))
    Traceback (most recent call last):
    ...
    ValueError: 2 groups
    """
    token = _GROUP_CHECK.set(check)
    try:
        yield
    finally:
        _GROUP_CHECK.reset(token)


def check_groups(rows: list[Mapping], plan: Plan) -> None:
    """Run the :func:`checking_groups` check (if any) on the groups of ``rows``.

    :func:`assemble` calls it; an engine that does more work between its scan and
    :func:`assemble` (a second scan for cost samples) calls it first.
    """
    check = _GROUP_CHECK.get()
    if check is not None:
        check(count_groups(rows, plan))


def count_groups(rows: list[Mapping], plan: Plan) -> int:
    """The number of groups :func:`assemble` finds in ``rows``, without sorting them.

    Rows the filter drops and rows with a missing group value hold no group, as in
    :func:`kept_rows`; values are compared as Python compares them (``1`` and ``1.0``
    are one group, as :func:`py` makes them).
    """
    keys = [f"g{i}" for i in range(len(plan.group))]
    if plan.where is not None:
        rows = [r for r in rows if bool(r["w"])]
    if len(keys) == 1:
        k = keys[0]
        seen = {r[k] for r in rows}
        if all(type(v) is str for v in seen):
            return len(seen)
        return sum(1 for v in seen if not is_missing(v))
    seen = {tuple(r[k] for k in keys) for r in rows}
    return sum(1 for t in seen if not any(is_missing(v) for v in t))


class Excluded(dict):
    """Rows left out, by reason: a dict that only ever holds reasons with rows."""

    def add(self, reason: str, n: int) -> None:
        if n:
            self[reason] = self.get(reason, 0) + int(n)


#: The sort key of a missing value: after every value.
_MISSING_KEY = (2, 0.0, "")


def _unique(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values of ``a`` (1-D), the index where each first comes, the inverse.

    What ``np.unique(a, return_index=True, return_inverse=True)`` gives for whole numbers
    and text, by one stable sort (without the import of ``numpy.ma`` that the first call
    of ``np.unique`` costs a short command).
    """
    order = np.argsort(a, kind="stable")
    s = a[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] != s[:-1]
    inverse = np.empty(len(a), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return s[new], order[new], inverse


def _codes(values: list) -> tuple[list, np.ndarray, bool]:
    """The distinct values of a column and, per row, the index of its value among them.

    Values of one plain type (text, booleans; or numbers, ints and floats mixed), with
    missing ones, are looked up in a dict: equal values there have one sort key and one
    :func:`py` value, so they may share an entry (``1`` and ``1.0`` do).  Anything else
    (decimals, dates, mixed types) keeps an entry per row, so that nothing is merged that
    the row-by-row rules would keep apart.  The flag says whether entries were merged
    (then two rows share an entry exactly when their values are equal).
    """
    kinds = set(map(type, values))
    if kinds == {int}:   # whole numbers (labels, predictions): on an array, where they fit
        try:
            uniq, _, codes = _unique(np.array(values, dtype=np.int64))
        except OverflowError:
            pass
        else:
            return uniq.tolist(), codes, True
    if kinds == {str} and "\x00" not in "".join(values):
        # text on a fixed-width array (which would cut trailing NULs: none here), where
        # equal means equal text and the order is the order of the text
        uniq, _, codes = _unique(np.array(values, dtype=str))
        return uniq.tolist(), codes, True
    kinds.discard(type(None))
    if kinds <= {int, float} or (len(kinds) == 1 and kinds <= {str, bool}):
        pos = dict.fromkeys(values)   # the first of equal values, in order of appearance
        for i, v in enumerate(pos):
            pos[v] = i
        return list(pos), np.fromiter(map(pos.__getitem__, values), dtype=np.intp,
                                      count=len(values)), True
    return list(values), np.arange(len(values), dtype=np.intp), False


def _ranks(uniq: list, text: bool) -> np.ndarray:
    """Each value's rank in the one order of values (equal keys share a rank).

    The order is :func:`sort_key` of the :func:`py` value, missing values last: the order
    :func:`kept_rows` sorts rows in, so that ranks can be sorted instead of keys.  ``text``:
    every value is a ``str`` (which orders as itself and is never missing).
    """
    if text:
        keys: list = uniq
    else:
        keys = [_MISSING_KEY if is_missing(v) else sort_key(py(v)) for v in uniq]
    rank = np.empty(len(uniq), dtype=np.intp)
    order = sorted(range(len(uniq)), key=keys.__getitem__)
    if text and len(set(uniq)) == len(uniq):   # distinct text: no ties
        rank[order] = np.arange(len(uniq))
        return rank
    r, prev = -1, None
    for i in order:
        if r < 0 or keys[i] != prev:
            r, prev = r + 1, keys[i]
        rank[i] = r
    return rank


class _Column:
    """One key column of a statistics result: distinct values, per-row codes and ranks."""

    __slots__ = ("_rank", "codes", "merged", "missing", "text", "uniq")

    def __init__(self, values: list):
        self.uniq, self.codes, self.merged = _codes(values)
        self.text = all(type(v) is str for v in self.uniq)
        missing = (np.zeros(len(self.uniq), dtype=bool) if self.text else
                   np.array([is_missing(v) for v in self.uniq], dtype=bool))
        self.missing = missing[self.codes]    # per row
        self._rank = None

    @property
    def rank(self) -> np.ndarray:
        """Per row, the rank of its value in the one order of values."""
        if self._rank is None:
            self._rank = _ranks(self.uniq, self.text)[self.codes]
        return self._rank

    def plain(self) -> list:
        """The :func:`py` value of each distinct value."""
        return self.uniq if self.text else [py(v) for v in self.uniq]


def _combined(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray | None:
    """One number per combination of per-column codes (mixed radix), if it fits 62 bits."""
    if math.prod(sizes) >= 2**62:
        return None
    flat = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    for c, size in zip(codes, sizes, strict=True):
        flat = flat * size + c
    return flat


def _count_kept_groups(rows: list, cols: dict, plan: Plan, passed) -> int:
    """:func:`count_groups` of ``rows``, from the group columns' codes where they can tell.

    Codes tell when each column's equal values share a code (:func:`_codes`); otherwise
    the values are compared one by one.
    """
    gcols = [cols[f"g{i}"] for i in range(len(plan.group))]
    if not all(c.merged for c in gcols):
        return count_groups(rows, plan)
    keep = np.ones(len(rows), dtype=bool) if passed is None else passed.copy()
    for c in gcols:
        keep &= ~c.missing
    flat = _combined([c.codes[keep] for c in gcols], [len(c.uniq) for c in gcols])
    if flat is None:
        return count_groups(rows, plan)
    return len(_unique(flat)[0])


def _sorted_columns(rows: list[Mapping], keys: list[str]) -> tuple[np.ndarray, dict]:
    """The order of ``rows`` by ``keys`` (stable, as Python's ``sorted``) and the columns.

    Sorting by each column's rank gives the order a sort by the tuple of
    :func:`sort_key` s gives (``np.lexsort`` is stable, as ``sorted`` is), without a key
    tuple per row.
    """
    cols = {k: _Column(list(map(itemgetter(k), rows))) for k in keys}
    return _lexsort(cols, keys, len(rows)), cols


def _lexsort(cols: dict, keys: list[str], n: int) -> np.ndarray:
    """The stable order of the rows by the ranks of ``keys`` (the first key first)."""
    if not keys:
        return np.arange(n)
    return np.lexsort([cols[k].rank for k in reversed(keys)])


def kept_rows(rows: Iterable[Mapping], plan: Plan, keys: list[str], excluded: Excluded):
    """The statistics rows in one order (by ``keys``) whatever the scan's, with their groups.

    Yields ``(row, n, group)`` for the rows the filter keeps and whose group is known; the
    others are counted in ``excluded`` (the filter's reason, :data:`MISSING_GROUP`).  The
    one exclusion rule and the one summation order of every scan's assembly (rows sorted
    by the :func:`sort_key` of each key, missing values last).
    """
    rows = list(rows)
    order, _ = _sorted_columns(rows, keys)
    n_group = len(plan.group)
    for i in order.tolist():
        r = rows[i]
        n = int(r["n"])
        if plan.where is not None and not bool(r["w"]):
            excluded.add(where_reason(plan), n)
            continue
        key = group_key(r, n_group)
        if key is None:
            excluded.add(MISSING_GROUP, n)
            continue
        yield r, n, key


class _Exclusions:
    """Rows left out, by reason, added in the order :func:`kept_rows` would add them."""

    def __init__(self, n: np.ndarray):
        self.n = n
        self.found: list[tuple[int, int, str, int]] = []

    def add(self, reason: str, step: int, mask: np.ndarray, n: np.ndarray | None = None):
        """Rows ``mask`` (sorted order) excluded for ``reason`` at ``step`` of a row's checks."""
        n = self.n if n is None else n
        some = np.flatnonzero(mask & (n != 0))
        if some.size:
            self.found.append((int(some[0]), step, reason, int(n[mask].sum())))

    def result(self) -> Excluded:
        """The reasons in the order their first rows come (a reason enters a dict once)."""
        out = Excluded()
        for _, _, reason, n in sorted(self.found, key=lambda f: f[:2]):
            out.add(reason, n)
        return out


def _kept_groups(cols: dict, kept: np.ndarray, n_group: int) -> tuple[tuple, np.ndarray]:
    """The groups of the kept rows (``kept``: row indices in sorted order) and each row's.

    Returns the groups sorted by :func:`sort_key` (the one group order: :func:`py` values,
    tuples for intersections) and, per kept row, the index of its group among them.
    """
    gcols = [cols[f"g{i}"] for i in range(n_group)]
    codes = np.stack([c.codes[kept] for c in gcols], axis=1)
    flat = _combined([c.codes[kept] for c in gcols], [len(c.uniq) for c in gcols])
    if flat is not None:
        _, first, inverse = _unique(flat)
        combos = codes[first]
    else:
        combos, first, inverse = np.unique(codes, axis=0, return_index=True,
                                           return_inverse=True)
    appear = np.argsort(first, kind="stable")      # distinct combinations, as they come
    plains = [c.plain() for c in gcols]
    parts = [[plain[j] for j in combos[appear, i].tolist()] for i, plain in enumerate(plains)]
    keys = parts[0] if n_group == 1 else list(zip(*parts, strict=True))
    # rows come sorted by group: the groups in order of first appearance are sorted, unless
    # two different groups share a sort key (a tie, e.g. integers beyond 2**53), where the
    # order of a set decides, as it did for ``sorted(set(groups), key=sort_key)``
    tie = False
    if len(kept) > 1:
        same_rank = np.ones(len(kept) - 1, dtype=bool)
        for c in gcols:
            rk = c.rank[kept]
            same_rank &= rk[1:] == rk[:-1]
        same_code = (codes[1:] == codes[:-1]).all(axis=1)
        tie = bool((same_rank & ~same_code).any())
    ordered = tuple(sorted(set(keys), key=sort_key)) if tie else tuple(dict.fromkeys(keys))
    index = {g: i for i, g in enumerate(ordered)}
    group_of = np.empty(len(combos), dtype=np.intp)
    group_of[appear] = [index[k] for k in keys]
    return ordered, group_of[inverse.reshape(-1)]


def _first_values(plain: list, codes: np.ndarray) -> set:
    """The set of the values of ``codes``, built in the order the codes first come."""
    distinct, first, _ = _unique(codes)
    return {plain[j] for j in distinct[np.argsort(first, kind="stable")].tolist()}


def assemble(
    rows: Iterable[Mapping],
    plan: Plan,
    spec: AggregateSpec,
    *,
    engine: str,
    source: str,
    samples=None,
    collected_bytes: int = 0,
) -> Aggregates:
    """Build :class:`Aggregates` from the rows of the statistics query (dicts by column).

    ``samples`` is ``None`` or ``(per-group dict of arrays, per-group complete flags,
    method name)`` from the engine's sampling step.

    The rows are taken in the order and with the exclusions of :func:`kept_rows`, on
    arrays: integer counts are added up in any order, cost sums in that order.
    """
    n_group = len(plan.group)
    key_names = [f"g{i}" for i in range(n_group)]
    if plan.confusion:
        key_names += ["y", "p"]
    if plan.where is not None:
        key_names.append("w")
    if not isinstance(rows, ResultColumns):
        rows = list(rows)
    cols = {k: _Column(_column_values(rows, k)) for k in key_names}
    passed = None
    if plan.where is not None:
        passed = np.array([bool(v) for v in _column_values(rows, "w")], dtype=bool)
    check = _GROUP_CHECK.get()
    if check is not None:   # as check_groups, before anything is sorted or summed
        check(_count_kept_groups(rows, cols, plan, passed))
    counts = _column_values(rows, "n")
    if set(map(type, counts)) - {int}:
        counts = [int(v) for v in counts]
    counts = np.array(counts, dtype=np.int64)
    n_rows = int(counts.sum())
    order = _lexsort(cols, key_names, len(rows))
    n = counts[order]                       # everything below is in sorted order
    excluded = _Exclusions(n)
    keep = np.ones(len(rows), dtype=bool)
    if passed is not None:
        excluded.add(where_reason(plan), 0, ~passed[order])
        keep &= passed[order]
    no_group = np.zeros(len(rows), dtype=bool)
    for i in range(n_group):
        no_group |= cols[f"g{i}"].missing[order]
    excluded.add(MISSING_GROUP, 1, keep & no_group)
    keep &= ~no_group
    kept = order[keep]                      # row indices of the kept rows, in sorted order
    ordered, gidx = _kept_groups(cols, kept, n_group)
    confusion = None
    classes: tuple = ()
    label_values: tuple = ()
    pred_values: tuple = ()
    if plan.confusion:
        ycol, pcol = cols["y"], cols["p"]
        no_label = ycol.missing[kept]
        no_pred = pcol.missing[kept] & ~no_label
        n_kept = n[keep]
        excluded.add(MISSING_LABEL, 2, keep, _spread(keep, no_label, n_kept))
        excluded.add(MISSING_PREDICTION, 3, keep, _spread(keep, no_pred, n_kept))
        cell = ~(no_label | no_pred)
        yplain, pplain = ycol.plain(), pcol.plain()
        ycodes, pcodes = ycol.codes[kept][cell], pcol.codes[kept][cell]
        label_values = tuple(sorted(_first_values(yplain, ycodes), key=sort_key))
        pred_values = tuple(sorted(_first_values(pplain, pcodes), key=sort_key))
        classes = tuple(sorted(set(label_values) | set(pred_values), key=sort_key))
        cls_index = {c: i for i, c in enumerate(classes)}
        ymap = np.array([cls_index.get(v, -1) for v in yplain], dtype=np.intp)
        pmap = np.array([cls_index.get(v, -1) for v in pplain], dtype=np.intp)
        confusion = np.zeros((len(ordered), len(classes), len(classes)), dtype=np.int64)
        np.add.at(confusion, (gidx[cell], ymap[ycodes], pmap[pcodes]), n_kept[cell])
    cost = None
    if plan.cost is not None:
        moments: dict[int, list] = {}
        no_cost = np.zeros(len(kept), dtype=np.int64)
        for j, (i, g) in enumerate(zip(kept.tolist(), gidx.tolist(), strict=True)):
            r = rows[i]
            nc = int(r["nc"] or 0)
            no_cost[j] = int(r["n"]) - nc
            m = moments.setdefault(g, [0, 0.0, 0.0, math.inf, -math.inf])
            if nc:   # summed in sorted order, row by row: the one summation order
                m[0] += nc
                m[1] += float(r["s"])
                m[2] += float(r["ss"])
                m[3] = min(m[3], float(r["lo"]))
                m[4] = max(m[4], float(r["hi"]))
        excluded.add(MISSING_COST, 4, keep, _spread(keep, None, no_cost))
        empty = [0, 0.0, 0.0, math.inf, -math.inf]
        ms = [moments.get(i, empty) for i in range(len(ordered))]
        sample_arrays = complete = None
        method = ""
        if samples is not None:
            by_group, flags, method = samples
            sample_arrays = tuple(np.asarray(by_group.get(g, np.empty(0)), dtype=float)
                                  for g in ordered)
            complete = tuple(bool(flags.get(g, True)) for g in ordered)
        cost = CostMoments(
            n=np.array([m[0] for m in ms], dtype=float),
            total=np.array([m[1] for m in ms], dtype=float),
            total_sq=np.array([m[2] for m in ms], dtype=float),
            minimum=np.array([m[3] if m[0] else np.nan for m in ms], dtype=float),
            maximum=np.array([m[4] if m[0] else np.nan for m in ms], dtype=float),
            samples=sample_arrays, samples_complete=complete, sample_method=method,
        )
    return Aggregates(
        groups=ordered, classes=classes, confusion=confusion, label_values=label_values,
        prediction_values=pred_values, cost=cost, n_rows=n_rows,
        excluded=dict(excluded.result()), engine=engine, source=source,
        collected_bytes=int(collected_bytes),
    )


def _spread(keep: np.ndarray, mask: np.ndarray | None, values: np.ndarray) -> np.ndarray:
    """Per sorted row: ``values`` of the kept rows where ``mask`` (all kept rows if None)."""
    out = np.zeros(len(keep), dtype=np.int64)
    out[keep] = values if mask is None else np.where(mask, values, 0)
    return out


def sample_from_values(value_rows: Iterable[Mapping], n_group: int, k: int, seed: int):
    """Per-group cost samples rebuilt from (group, sorted values, counts) rows.

    Groups with at most ``k`` costs are returned whole; larger ones get a seeded
    multivariate-hypergeometric subsample of size ``k`` (a uniform sample without
    replacement), drawn group by group in sorted group order.  Values come back sorted,
    so the result depends on neither the scan order nor the engine.
    """
    by_group: dict = {}
    for r in value_rows:
        key = group_key(r, n_group)
        if key is not None:
            by_group[key] = (np.asarray(r["cs"], dtype=float),
                             np.asarray(r["ns"], dtype=np.int64))
    rng = np.random.default_rng(seed)
    out, complete = {}, {}
    for g in sorted(by_group, key=sort_key):
        values, counts = by_group[g]
        total = int(counts.sum())
        if total > k:
            counts = rng.multivariate_hypergeometric(counts, k)
        out[g] = np.repeat(values, counts)
        complete[g] = total <= k
    return out, complete


def hashed_threshold(n: int, k: int) -> float:
    """Return the share of a group's rows to let through the hash filter.

    With overwhelming probability at least ``k`` come back: the expected count is ``k``
    plus 8 standard deviations plus 16.
    """
    if n <= k:
        return 1.0
    return min(1.0, (k + 8.0 * math.sqrt(k) + 16.0) / n)


def sample_from_hashed(rows: Iterable[Mapping], n_group: int, k: int, sizes: Mapping):
    """Per-group samples from (group, sorted costs of the bottom-k hashed rows) rows.

    Keeping the ``k`` rows with the smallest hash of a group is a uniform sample without
    replacement of the group's rows (a bottom-k sketch), whatever order they arrive in.
    ``sizes`` holds each group's number of costs (a group of at most ``k`` is complete).
    """
    out, complete = {}, {}
    for r in rows:
        key = group_key(r, n_group)
        if key is not None:
            out[key] = np.asarray(r["cs"], dtype=float)
            complete[key] = sizes.get(key, math.inf) <= k
    return out, complete


__all__ = ["MISSING_COST", "MISSING_GROUP", "MISSING_LABEL", "MISSING_PREDICTION", "assemble",
           "checking_groups", "count_groups", "group_key", "hashed_threshold", "is_missing",
           "py", "sample_from_hashed", "sample_from_values", "sort_key", "where_reason"]
