"""Build an audit: read the data once, then one :class:`Comparison` per gap, with verdicts.

:func:`audit` reads the data once through an engine (DuckDB for files and in-memory frames,
Spark for Spark DataFrames) into per-group sufficient statistics, then builds one
:class:`~fairbound.audits.gaps.result.Comparison` per metric component, class and pair of groups
(:mod:`fairbound.audits.pairing`), each with its interval, its verdict
(:mod:`fairbound.audits.verdicts`) and the annotated sample size that would settle it.
Everything after the scan works on those statistics: :meth:`Comparison.recompute` changes
the method or the confidence level without touching the data again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import gc
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from fairbound._validate import check_columns, check_expression, check_int, check_seed

# SMALL_GROUP: groups with fewer rows in a denominator get a note and a warning
from fairbound._words import SMALL_GROUP

# Moved to fairbound.audits.gaps.comparison (so the results need not import the builder);
# importable from here as before.
from fairbound.audits.gaps.comparison import VECTOR_MIN as VECTOR_MIN
from fairbound.audits.gaps.comparison import Comparison as Comparison
from fairbound.audits.gaps.comparison import (
    _build_from_stats,
    _jsonable,
    _StatRow,
)
from fairbound.audits.gaps.comparison import _compare as _compare
from fairbound.audits.gaps.comparison import required_parity_n as required_parity_n
from fairbound.audits.gaps.comparison import required_total_n as required_total_n
from fairbound.audits.gaps.result import AuditResult
from fairbound.audits.pairing import (
    MAX_COMPARISONS,
    REST,
    check_comparison,
    check_comparison_limit,
    check_groups,
    check_max_comparisons,
    pairs,
    per_pair,
    resolve_reference,
)
from fairbound.audits.verdicts import (
    check_error_control,
    check_tolerance,
)
from fairbound.engines import Aggregates, AggregateSpec, aggregate
from fairbound.engines.assemble import checking_groups
from fairbound.errors import FairboundError, SmallGroupWarning
from fairbound.metrics import (
    COST,
    DEFAULT_METRICS,
    Metric,
    check_favourable,
    get_metrics,
    oriented,
)
from fairbound.stats import GroupStats, get_method
from fairbound.stats.base import IntervalMethod, check_confidence_level, check_positive


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block (if it runs), then resume it.

    An audit of many groups makes a few objects per group (statistics, comparisons, the
    rows of the statistics table), none of them in reference cycles; the collector would
    walk all of them again and again as they are made (a second of a 100,000-group audit).
    Reference counting frees everything as usual; cycles made in the block (none of
    fairbound's) are collected once the collector runs again.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _label_setup(agg: Aggregates, spec: AggregateSpec, pos_label):
    """Decide binary vs multi-class and the classes to audit (see :mod:`fairbound.labels`)."""
    from fairbound.labels import label_setup

    return label_setup(agg.label_values, agg.prediction_values, pos_label, label=spec.label,
                       prediction=spec.prediction)


def _validate_audit(data, group, label, prediction, metrics, cost, cost_max, comparison,
                    reference, method, confidence_level, seed, sample_size):
    if data is None:
        raise FairboundError("data: got None", param="data")
    for role, col in (("label", label), ("prediction", prediction), ("cost", cost)):
        if col is not None:
            check_expression(col, role)
    groups = check_columns(group)
    if metrics is None:
        metrics = list(DEFAULT_METRICS) if (label or prediction) else []
        if cost is not None:
            metrics.append("cost")
    resolved = get_metrics(metrics)
    if not resolved:
        raise FairboundError("metrics: nothing to audit; give label= and prediction= or cost=",
                             param="metrics")
    for mm in resolved:
        for need, val in (("label", label), ("prediction", prediction), ("cost", cost)):
            if need in mm.needs and not val:
                raise FairboundError(f"{need}: a column is required for metric {mm.name!r}",
                                     param=need)
    if cost is not None and COST not in resolved:
        resolved.append(COST)
    C = 1.0 if cost_max is None else check_positive(cost_max, "cost_max")
    comparison = check_comparison(comparison)
    m = get_method(method)
    rho = check_confidence_level(confidence_level)
    check_seed(seed)
    check_int(sample_size, "sample_size", low=0)
    return groups, tuple(resolved), C, comparison, m, rho


def audit(
    data=None,
    *,
    group: str | Sequence[str] | Any,
    label: str | None = None,
    prediction: str | None = None,
    metrics: str | Iterable[str] | None = None,
    cost: str | None = None,
    cost_max: float | None = None,
    comparison: str = "pairwise",
    reference: Any = None,
    method: str = "auto",
    confidence_level: float = 0.95,
    error_control: str = "family",
    favourable: str = "positive",
    tolerance: float | None = None,
    pos_label: Any = None,
    seed: int = 0,
    engine: str = "auto",
    sample_size: int = 100_000,
    where: str | None = None,
    max_comparisons: int = MAX_COMPARISONS,
    **method_options,
) -> AuditResult:
    """Audit a classifier's predictions for group fairness, with intervals and verdicts.

    Parameters
    ----------
    data : DataFrame, Table, path or Spark DataFrame, optional
        Predictions: pandas, polars (lazy too) or pyarrow data, a dict of arrays, a CSV /
        Parquet / JSON-lines file or glob (read by DuckDB, streaming), or a Spark DataFrame.
        Leave it out to pass arrays as ``group``, ``label``, ``prediction`` (and ``cost``)
        directly, as scikit-learn and fairlearn take them (``sensitive_features``,
        ``y_true``, ``y_pred``).
    group : str or list of str, or array-like or list of array-likes without data
        Protected-attribute column(s).  Several columns give intersectional groups.  A
        missing value means "not annotated": such rows are counted and excluded.  Without
        ``data``: one array of group values (a pandas Series keeps its name) or a list of
        them (intersectional groups).
    label, prediction : str, optional
        True and predicted label columns (arrays without ``data``).  0/1 (or bool) labels
        are binary with positive class 1; two other values need ``pos_label``; more values
        are multi-class and every metric is reported per class (one-vs-rest).
    metrics : str or list of str, optional
        Names from ``fairbound.metrics.METRICS`` (default: demographic parity, equal
        opportunity, false-positive rate, predictive parity, accuracy parity).
    cost : str, optional
        A per-row cost column in ``[0, cost_max]`` (the ``cost`` metric).
    cost_max : float, optional
        The declared maximum cost ``C`` (default 1).
    comparison : {'pairwise', 'vs-rest', 'vs-reference'}
        Which pairs of groups to compare.
    reference : object, optional
        Reference group: the B side of every comparison (implies ``vs-reference`` unless
        ``comparison`` says otherwise).
    method : str
        Interval method (see ``fairbound.stats.INTERVAL_METHODS``).  The default,
        ``"auto"``, is valid for every sample size: the exact unconditional interval
        (Agresti & Min 2001) for 0/1 costs, i.e. every confusion-matrix metric
        (``"exact-union"`` where one group is at least 3,000 times the other:
        :func:`fairbound.stats.auto.union_applies`), and the betting interval
        (Waudby-Smith & Ramdas 2024) for fractional costs.
        ``"newcombe"`` is the recommended asymptotic interval for 0/1 costs, ``"welch"``
        for fractional costs, and ``"bbu"`` reproduces Ethayarajh (2020).
    confidence_level : float
        Level of the audit: with ``error_control="family"`` the probability that every
        verdict of the audit holds (no false "disadvantaged" or "no meaningful gap" claim)
        is at least this.
    error_control : {'family', 'fdr', 'none'}
        ``"family"`` (default): Bonferroni over every estimable comparison (all pairs,
        metric components and classes), so each interval shown is at
        ``1 - (1 - confidence_level) / m`` and agrees with its verdict.  ``"fdr"``:
        Benjamini-Hochberg control of the expected share of false claims, with the
        false-coverage-rate intervals of Benjamini & Yekutieli (2005).  ``"none"``: each
        comparison at ``confidence_level`` (only one metric's components are adjusted
        together).
    favourable : {'positive', 'negative'}
        Whether the positive prediction is the favourable outcome (a loan granted, hired:
        the default) or a harmful one (flagged, high risk, content removed).  It decides who
        bears the cost of a gap, hence which group a verdict names as disadvantaged: with
        ``"negative"``, a group with a higher FPR is the one wrongly flagged more often.
    tolerance : float, optional
        A band on the rate scale (e.g. 0.02): a gap whose interval lies within
        ``+/- tolerance`` gets the verdict ``"no meaningful gap"``, and ``required_n_parity``
        says how many examples would show that if the observed gap were the truth.
    pos_label : object, optional
        Positive class for binary labels that are not 0/1; for multi-class labels, audit
        only this class.
    seed : int
        Seed for randomised methods and cost samples.
    engine : {'auto', 'duckdb', 'spark'}
        Engine that reads the data.
    sample_size : int
        Per-group costs kept for order-dependent methods when costs are fractional.
    max_comparisons : int
        Refuse audits with more comparisons than this (counted before anything is
        computed; pairwise comparisons grow with the square of the number of groups).
    where : str, optional
        A SQL condition selecting the rows to audit, e.g. ``"split = 'test'"``; it is
        parsed and checked (one scalar expression over existing columns, no subqueries),
        and rows where it is not true are counted in ``excluded``.  ``label``,
        ``prediction`` and ``cost`` may likewise be checked expressions such as
        ``prediction="score >= 0.5"`` (see :mod:`fairbound.engines.expr`).
    **method_options
        Options of the interval method, e.g. ``gamma=0.5`` for BBU.

    Returns
    -------
    AuditResult
        Frozen result: ``.comparisons``, ``.to_frame()``, ``.to_json()``, ``.recompute()``.

    Notes
    -----
    The gap reported is the cost gap ``E_A[cost] - E_B[cost]`` of Ethayarajh (2020): a
    positive gap means group A bears more cost.  The verdict is "A disadvantaged" when the
    interval lies above 0, "B disadvantaged" below 0, and "not enough evidence" otherwise.

    References
    ----------
    K. Ethayarajh. "Is Your Classifier Actually Biased? Measuring Fairness under
    Uncertainty with Bernstein Bounds." ACL 2020.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
    ...                    "y": [1, 1, 0, 0] * 2, "p": [1, 1, 0, 1, 1, 0, 0, 0]})
    >>> res = audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity")
    >>> c = res.comparisons[0]
    >>> c.rate_a, c.rate_b, c.verdict
    (1.0, 0.5, 'not enough evidence')

    Arrays without a data argument (as fairlearn's ``sensitive_features``, ``y_true``,
    ``y_pred``) give the same audit:

    >>> same = audit(group=df["g"], label=df["y"].to_numpy(), prediction=list(df["p"]),
    ...              metrics="equal_opportunity")
    >>> (same.comparisons[0].low, same.comparisons[0].high) == (c.low, c.high)
    True
    """
    if data is None:
        data, group, label, prediction, cost = _arrays_frame(group, label, prediction, cost)
    if reference is not None and comparison == "pairwise":
        comparison = "vs-reference"
    if where is not None and not isinstance(where, str):
        raise FairboundError(f"where must be a SQL condition (text); got {where!r}",
                             param="where")
    groups_cols, metric_objs, C, comparison, m, rho = _validate_audit(
        data, group, label, prediction, metrics, cost, cost_max, comparison, reference,
        method, confidence_level, seed, sample_size)
    error_control = check_error_control(error_control)
    favourable = check_favourable(favourable)
    tolerance = check_tolerance(tolerance)
    needs_labels = any("label" in mm.needs for mm in metric_objs)
    needs_cost = COST in metric_objs
    keep = int(sample_size) if (needs_cost and m.needs_order) else 0
    spec = AggregateSpec(
        group=groups_cols,
        label=label if needs_labels else None,
        prediction=prediction if needs_labels else None,
        cost=cost if needs_cost else None,
        keep_cost_sample=keep, seed=int(seed), where=where,
    )
    limit = check_max_comparisons(max_comparisons)
    # the limit is checked as soon as the scan's groups are known, before the statistics
    # are assembled (at least one class: the exact count follows once the labels are read)
    gname = " & ".join(groups_cols)
    early = per_pair(metric_objs, 1)
    with _collection_paused():
        with checking_groups(lambda n: check_comparison_limit(n, comparison, early, limit,
                                                              column=gname)):
            agg = aggregate(data, spec, engine=engine)
        return audit_aggregates(agg, spec, metrics=metric_objs, cost_max=C,
                                comparison=comparison, reference=reference, method=m,
                                confidence_level=rho, pos_label=pos_label, seed=int(seed),
                                options=method_options, error_control=error_control,
                                favourable=favourable, tolerance=tolerance,
                                max_comparisons=limit)


def _is_array(x) -> bool:
    """A one-dimensional array-like of values (not text, not a mapping)."""
    return (not isinstance(x, str | bytes | dict) and hasattr(x, "__len__")
            and np.ndim(np.asarray(x, dtype=object)) == 1)


def _arrays_frame(group, label, prediction, cost):
    """``audit(group=array, label=array, prediction=array)``: the arrays as one frame.

    Returns ``(frame, group columns, label, prediction, cost)`` with the columns named after
    the parameters (a pandas Series keeps its own name; several group arrays are
    ``group_1``, ``group_2``, ...).
    """
    import pandas as pd

    if isinstance(group, str):
        raise FairboundError(f"data: got None, and group={group!r} names a column; give "
                             "the data, or pass the group values as an array", param="data")
    several = (isinstance(group, list | tuple) and len(group) > 0
               and all(_is_array(g) for g in group))
    arrays = list(group) if several else [group]
    if not all(_is_array(g) for g in arrays):
        raise FairboundError(f"group: without data give an array of group values or a list "
                             f"of arrays; got {type(group).__name__}", param="group")
    columns: dict[str, Any] = {}
    names = []
    for i, g in enumerate(arrays, 1):
        name = getattr(g, "name", None)
        name = name if isinstance(name, str) and name not in columns and name not in (
            "label", "prediction", "cost") else ("group" if len(arrays) == 1 else f"group_{i}")
        columns[name] = np.asarray(g, dtype=object) if not hasattr(g, "dtype") else (
            np.asarray(g))
        names.append(name)
    out = {}
    for param, value in (("label", label), ("prediction", prediction), ("cost", cost)):
        if value is None:
            out[param] = None
            continue
        if isinstance(value, str) or not _is_array(value):
            raise FairboundError(f"{param}: without data give an array of values; got "
                                 f"{value!r}"[:200], param=param)
        columns[param] = np.asarray(value)
        out[param] = param
    lengths = {k: len(v) for k, v in columns.items()}
    if len(set(lengths.values())) > 1:
        # the length most arrays share is the data's; the odd one out is named
        common = max(sorted(set(lengths.values())),
                     key=lambda v: sum(x == v for x in lengths.values()))
        first = next(k for k, v in lengths.items() if v == common)
        n = lengths[first]
        bad = next(k for k, v in lengths.items() if v != n)
        param = "group" if bad in names else bad
        hint = ("; if these name columns, give the data" if param == "group" and all(
            isinstance(v, str) for v in columns[bad]) else "")
        raise FairboundError(f"{param}: {lengths[bad]:,} values where {first!r} has {n:,}; "
                             f"the arrays must have one value per row{hint}", param=param)
    frame = pd.DataFrame({k: pd.Series(v) for k, v in columns.items()})
    return frame, names if several else names[0], out["label"], out["prediction"], out["cost"]


def _audited_groups(agg: Aggregates, spec: AggregateSpec, gname: str) -> list:
    """The groups to compare: at least two, or a one-line error saying why not."""
    return check_groups(agg.n_rows, agg.source, agg.groups, where=spec.where,
                        excluded=agg.excluded, gname=gname)


def _confusion_rows(mm: Metric, conf, groups: list, compared, classes, positives, *,
                    multiclass: bool, favourable: str) -> list[_StatRow]:
    """One row of two groups' counts per component, class and compared pair of a metric.

    The counts of all pairs of a component and class are taken on arrays (vs-rest: the
    rest is the total less the group).
    """
    index = {g: i for i, g in enumerate(groups)}
    rest = [gb == REST for _, gb in compared]
    ia = np.array([index[ga] for ga, _ in compared], dtype=np.intp)
    ib = np.array([0 if r else index[gb] for (_, gb), r in zip(compared, rest, strict=True)],
                  dtype=np.intp)
    rest = np.array(rest, dtype=bool)
    rows = []
    new_row = tuple.__new__
    made: dict = {}   # one GroupStats per distinct count, shared by the rows
    for comp in (oriented(c, favourable) for c in mm.components):
        for k in (positives if comp.per_class else [None]):
            n, cnt = comp.counts(conf, classes.index(k) if k is not None else 0)
            sides = _pair_counts(np.asarray(n), np.asarray(cnt), ia, ib, rest, made)
            if sides is None:   # not whole counts: the one-at-a-time rules (and errors)
                sides = _pair_counts_one_by_one(n, cnt, compared, index)
            cls = k if multiclass and comp.per_class else None
            rows += [new_row(_StatRow, (mm, comp, cls, ga, gb, a, b))
                     for (ga, gb), a, b in zip(compared, *sides, strict=True)]
    return rows


def _pair_counts(n: np.ndarray, cnt: np.ndarray, ia, ib, rest, made: dict | None = None):
    """``(A stats, B stats)`` of every pair from per-group counts, or ``None``.

    ``None`` unless the counts are whole numbers with ``0 <= count <= n`` on both sides
    (what :meth:`GroupStats.from_counts` accepts; anything else goes one by one, which
    says what is wrong).  ``made`` holds the statistics made so far, by count.
    """
    if not (np.issubdtype(n.dtype, np.integer) and np.issubdtype(cnt.dtype, np.integer)):
        return None
    n_a, c_a = n[ia], cnt[ia]
    n_b = np.where(rest, n.sum() - n_a, n[ib])
    c_b = np.where(rest, cnt.sum() - c_a, cnt[ib])
    if not all(((c >= 0) & (c <= m)).all() for m, c in ((n_a, c_a), (n_b, c_b))):
        return None
    made = {} if made is None else made
    return _stats_of_counts(n_a, c_a, made), _stats_of_counts(n_b, c_b, made)


def _pair_counts_one_by_one(n, cnt, compared, index):
    """``(A stats, B stats)`` of every pair, one :meth:`GroupStats.from_counts` each."""
    n_all, cnt_all = int(n.sum()), int(cnt.sum())  # once: vs-rest subtracts
    a_side, b_side = [], []
    for ga, gb in compared:
        na, ca = int(n[index[ga]]), int(cnt[index[ga]])
        if gb == REST:
            nb, cb = n_all - na, cnt_all - ca
        else:
            nb, cb = int(n[index[gb]]), int(cnt[index[gb]])
        a_side.append(GroupStats.from_counts(na, ca))
        b_side.append(GroupStats.from_counts(nb, cb))
    return a_side, b_side


#: :class:`GroupStats` fields and defaults, for making many without ``__init__``; only
#: while the class has nothing but its fields to set up (else ``from_counts`` one by one).
_STATS_DEFAULTS = {f.name: f.default for f in dataclasses.fields(GroupStats)}
_STATS_FAST = (not hasattr(GroupStats, "__post_init__") and "__slots__" not in vars(GroupStats)
               and {"n", "total", "total_sq", "cost_max", "binary"} <= set(_STATS_DEFAULTS)
               and all(v is not dataclasses.MISSING for k, v in _STATS_DEFAULTS.items()
                       if k not in ("n", "total", "total_sq")))


def _stats_of_counts(n: np.ndarray, k: np.ndarray, made: dict) -> list[GroupStats]:
    """``GroupStats.from_counts(n[i], k[i])`` for every ``i`` (valid whole counts).

    The same numbers ``from_counts`` stores: ``n`` as ``int(float(n))``, the cost total
    and total of squares as ``float(k) * 1.0``, binary, with ``cost_max`` 1.  Equal counts
    share one (frozen) object, kept in ``made``: vs-rest over 100,000 groups has a few
    thousand distinct ones.
    """
    if not _STATS_FAST:
        return [GroupStats.from_counts(a, b) for a, b in zip(n.tolist(), k.tolist(),
                                                             strict=True)]
    ns = n.astype(np.float64).astype(np.int64).tolist()
    totals = (k.astype(np.float64) * 1.0).tolist()
    new, put = object.__new__, object.__setattr__
    base = {**_STATS_DEFAULTS, "cost_max": 1.0, "binary": True}
    out = []
    for key in zip(ns, totals, strict=True):
        g = made.get(key)
        if g is None:
            g = made[key] = new(GroupStats)
            put(g, "__dict__", {**base, "n": key[0], "total": key[1], "total_sq": key[1]})
        out.append(g)
    return out


def _check_cost_range(cm, column: str, cost_max: float) -> None:
    """Costs must be finite numbers in ``[0, cost_max]``."""
    mins = np.asarray(cm.minimum, dtype=float)
    maxs = np.asarray(cm.maximum, dtype=float)
    lo = np.nanmin(mins) if (~np.isnan(mins)).any() else math.nan  # NaN: empty group
    hi = np.nanmax(maxs) if (~np.isnan(maxs)).any() else math.nan
    if (not math.isnan(lo) and lo < 0) or (not math.isnan(hi) and hi > cost_max):
        bad = lo if lo < 0 else hi
        if not math.isfinite(bad):
            raise FairboundError(f"cost: column {column!r} has the non-finite value "
                                 f"{bad:g}; costs must be finite numbers in "
                                 f"[0, {cost_max:g}]", param="cost")
        raise FairboundError(
            f"cost: column {column!r} has values outside [0, {cost_max:g}] "
            f"(e.g. {bad:g}); declare the maximum with cost_max / --cost-max",
            param="cost")


def _cost_stats(cm, ids: list[int], cost_max: float) -> GroupStats:
    """The pooled cost statistics of the groups ``ids`` (one group, or the rest)."""
    n = float(sum(cm.n[i] for i in ids))
    tot = float(sum(cm.total[i] for i in ids))
    tsq = float(sum(cm.total_sq[i] for i in ids))
    sample = None
    if cm.samples is not None:
        sample = np.concatenate([cm.samples[i] for i in ids])
    complete = sample is not None and all(cm.samples_complete[i] for i in ids)
    on_ends = sample is None or bool(np.all((sample == 0) | (sample == cost_max)))
    if complete:
        binary = on_ends
    else:
        # no sample, or a sample of part of the rows (groups above sample_size): the
        # moments decide, since for costs in [0, C] the sum of squares equals C * sum
        # exactly when every cost is 0 or C
        binary = bool(on_ends and np.isclose(tsq, cost_max * tot) and
                      np.isclose(tot / cost_max, round(tot / cost_max)))
    return GroupStats(n=int(n), total=tot, total_sq=tsq, cost_max=cost_max,
                      binary=binary, sample=None if binary else sample,
                      sample_complete=bool(cm.samples_complete and all(
                          cm.samples_complete[i] for i in ids)))


def _cost_rows(cm, groups: list, compared, column: str, cost_max: float) -> list[_StatRow]:
    """One row of two groups' cost statistics per compared pair."""
    _check_cost_range(cm, column, cost_max)
    index = {g: i for i, g in enumerate(groups)}
    rows = []
    for ga, gb in compared:
        ib = [i for i in range(len(groups)) if i != index[ga]] if gb == REST else [index[gb]]
        rows.append(_StatRow(COST, None, None, ga, gb, _cost_stats(cm, [index[ga]], cost_max),
                             _cost_stats(cm, ib, cost_max)))
    return rows


def audit_aggregates(
    agg: Aggregates,
    spec: AggregateSpec,
    *,
    metrics: Sequence[Metric],
    cost_max: float,
    comparison: str,
    reference: Any,
    method: str | IntervalMethod,
    confidence_level: float,
    pos_label: Any,
    seed: int,
    options: dict,
    error_control: str = "family",
    favourable: str = "positive",
    tolerance: float | None = None,
    max_comparisons: int = 10_000,
) -> AuditResult:
    """Build an :class:`AuditResult` from engine output (used by :func:`audit`)."""
    with _collection_paused():
        return _audit_aggregates(agg, spec, metrics=metrics, cost_max=cost_max,
                                 comparison=comparison, reference=reference, method=method,
                                 confidence_level=confidence_level, pos_label=pos_label,
                                 seed=seed, options=options, error_control=error_control,
                                 favourable=favourable, tolerance=tolerance,
                                 max_comparisons=max_comparisons)


def _audit_aggregates(agg, spec, *, metrics, cost_max, comparison, reference, method,
                      confidence_level, pos_label, seed, options, error_control, favourable,
                      tolerance, max_comparisons) -> AuditResult:
    from fairbound._version import __version__

    method = get_method(method)  # a name is looked up here, once; a method passes through
    gname = " & ".join(spec.group)
    groups = _audited_groups(agg, spec, gname)
    sizes = agg.group_rows()
    reference = resolve_reference(groups, reference, comparison, gname, sizes)
    task, classes, positives = "cost", (), []
    conf_metrics = [mm for mm in metrics if mm is not COST]
    conf = None
    if conf_metrics:
        setup = _label_setup(agg, spec, pos_label)
        task, classes, positives = setup.task, setup.classes, list(setup.positives)
        conf = setup.confusion(agg.confusion, list(agg.classes))
    check_comparison_limit(len(groups), comparison, per_pair(metrics, len(positives)),
                           max_comparisons, column=gname)
    compared = pairs(groups, comparison, reference)
    rows: list[_StatRow] = []
    for mm in conf_metrics:
        rows += _confusion_rows(mm, conf, groups, compared, classes, positives,
                                multiclass=task == "multiclass", favourable=favourable)
    if COST in metrics:
        rows += _cost_rows(agg.cost, groups, compared, spec.cost, cost_max)
        if task != "multiclass" and not conf_metrics:
            task = "cost"
    comps, n_tests = _build_from_stats(
        rows, method=method, confidence_level=confidence_level, seed=seed, options=options,
        error_control=error_control, tolerance=tolerance)
    small_names = set()
    for c in comps:
        a, b = c.a, c.b
        if a is not None and 0 < a.n < SMALL_GROUP:
            small_names.add(str(_jsonable(c.group_a)))
        if b is not None and 0 < b.n < SMALL_GROUP:
            small_names.add(str(_jsonable(c.group_b)))
    small = sorted(small_names)
    if small:
        warnings.warn(f"small groups (fewer than {SMALL_GROUP} rows in some denominator): "
                      f"{', '.join(small[:10])}", SmallGroupWarning, stacklevel=4)
    return AuditResult(
        comparisons=comps,
        groups=tuple(sizes.items()),
        classes=tuple(classes), positive=positives[0] if len(positives) == 1 else None,
        task=task, n_rows=agg.n_rows, excluded=dict(agg.excluded), engine=agg.engine,
        source=agg.source, metrics=tuple(mm.name for mm in metrics), comparison=comparison,
        reference=reference, method=method.name, confidence_level=confidence_level,
        seed=seed, version=__version__,
        created=_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        confusion=conf,
        columns={"group": list(spec.group), "label": spec.label,
                 "prediction": spec.prediction, "cost": spec.cost},
        error_control=error_control, n_tests=n_tests, favourable=favourable,
        tolerance=tolerance,
    )
