"""Turn an engine's small statistics table into :class:`Aggregates`.

Every engine runs the same query (:func:`fairbound.engines.sql.stats_query`) and hands
its rows here, so DuckDB and Spark results are assembled by one piece of code: the same
exclusion rules, the same group order and the same summation order (cells sorted by key
before floating-point sums are added up).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar

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


def collected_size(rows: list[dict]) -> int:
    """Bytes of a statistics result that crossed to Python, as every engine counts them.

    8 a number (or missing value), the UTF-8 text of strings; lists count their items.
    """
    def size(v) -> int:
        if isinstance(v, str):
            return len(v.encode())
        if isinstance(v, bytes):
            return len(v)
        if isinstance(v, list | tuple):
            return sum(size(x) for x in v)
        return 8

    return sum(size(v) for r in rows for v in r.values())


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
    seen = {tuple(r[k] for k in keys) for r in rows
            if plan.where is None or bool(r["w"])}
    return sum(1 for t in seen if not any(is_missing(v) for v in t))


class Excluded(dict):
    """Rows left out, by reason: a dict that only ever holds reasons with rows."""

    def add(self, reason: str, n: int) -> None:
        if n:
            self[reason] = self.get(reason, 0) + int(n)


def kept_rows(rows: Iterable[Mapping], plan: Plan, keys: list[str], excluded: Excluded):
    """The statistics rows in one order (by ``keys``) whatever the scan's, with their groups.

    Yields ``(row, n, group)`` for the rows the filter keeps and whose group is known; the
    others are counted in ``excluded`` (the filter's reason, :data:`MISSING_GROUP`).  The
    one exclusion rule and the one summation order of every scan's assembly.
    """
    n_group = len(plan.group)
    for r in sorted(rows, key=lambda r: tuple(
            (2, 0.0, "") if is_missing(r[k]) else sort_key(py(r[k])) for k in keys)):
        n = int(r["n"])
        if plan.where is not None and not bool(r["w"]):
            excluded.add(where_reason(plan), n)
            continue
        key = group_key(r, n_group)
        if key is None:
            excluded.add(MISSING_GROUP, n)
            continue
        yield r, n, key


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
    """
    n_group = len(plan.group)
    key_names = [f"g{i}" for i in range(n_group)]
    if plan.confusion:
        key_names += ["y", "p"]
    if plan.where is not None:
        key_names.append("w")
    rows = list(rows)
    check_groups(rows, plan)
    n_rows = sum(int(r["n"]) for r in rows)
    excluded = Excluded()
    groups: set = set()
    cells: list[tuple] = []
    moments: dict = {}
    for r, n, key in kept_rows(rows, plan, key_names, excluded):
        groups.add(key)
        if plan.confusion:
            y, p = r["y"], r["p"]
            if is_missing(y):
                excluded.add(MISSING_LABEL, n)
            elif is_missing(p):
                excluded.add(MISSING_PREDICTION, n)
            else:
                cells.append((key, py(y), py(p), n))
        if plan.cost is not None:
            nc = int(r["nc"] or 0)
            excluded.add(MISSING_COST, n - nc)
            m = moments.setdefault(key, [0, 0.0, 0.0, math.inf, -math.inf])
            if nc:
                m[0] += nc
                m[1] += float(r["s"])
                m[2] += float(r["ss"])
                m[3] = min(m[3], float(r["lo"]))
                m[4] = max(m[4], float(r["hi"]))
    ordered = tuple(sorted(groups, key=sort_key))
    confusion = None
    classes: tuple = ()
    label_values: tuple = ()
    pred_values: tuple = ()
    if plan.confusion:
        label_values = tuple(sorted({c[1] for c in cells}, key=sort_key))
        pred_values = tuple(sorted({c[2] for c in cells}, key=sort_key))
        classes = tuple(sorted(set(label_values) | set(pred_values), key=sort_key))
        index = {g: i for i, g in enumerate(ordered)}
        cls_index = {c: i for i, c in enumerate(classes)}
        confusion = np.zeros((len(ordered), len(classes), len(classes)), dtype=np.int64)
        for g, y, p, n in cells:
            confusion[index[g], cls_index[y], cls_index[p]] += n
    cost = None
    if plan.cost is not None:
        empty = [0, 0.0, 0.0, math.inf, -math.inf]
        ms = [moments.get(g, empty) for g in ordered]
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
        prediction_values=pred_values, cost=cost, n_rows=n_rows, excluded=dict(excluded),
        engine=engine, source=source, collected_bytes=int(collected_bytes),
    )


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
