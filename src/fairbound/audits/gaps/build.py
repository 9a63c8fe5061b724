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

import datetime as _dt
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairbound._validate import check_columns, check_int, check_seed

# SMALL_GROUP: groups with fewer rows in a denominator get a note and a warning
from fairbound._words import SMALL_GROUP
from fairbound.audits.control import controlled
from fairbound.audits.gaps.result import AuditResult, Comparison, _jsonable
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
    DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    check_error_control,
    check_tolerance,
    verdict,
    worst,
)
from fairbound.engines import Aggregates, AggregateSpec, aggregate
from fairbound.engines.assemble import checking_groups
from fairbound.errors import FairboundError, SmallGroupWarning
from fairbound.metrics import (
    COST,
    DEFAULT_METRICS,
    Component,
    Metric,
    check_favourable,
    get_metrics,
    oriented,
)
from fairbound.stats import GroupStats, NotEstimable, difference_interval, get_method
from fairbound.stats.auto import prefetch_intervals, resolve_method
from fairbound.stats.base import IntervalMethod, check_confidence_level, check_positive
from fairbound.stats.vectorised import StatsArrays, intervals_many, required_n_many


def required_total_n(
    a: GroupStats, b: GroupStats, *, method: str | IntervalMethod, confidence_level: float,
    seed: int = 0,
    options: dict | None = None,
) -> float:
    """Total annotated n (A + B, same shares) at which the interval would exclude 0.

    Uses the method's own planner when it has one; otherwise the moments are scaled (same
    means, variances and group shares) and the scale found by bisection, which is exact for
    every closed-form method.  Order-dependent methods without a planner give NaN.
    """
    m = get_method(method)
    options = options or {}
    d = a.mean - b.mean
    if not math.isfinite(d):
        return math.nan
    if d == 0:
        return math.inf
    if m.required_n is not None:
        need = float(m.required_n(a, b, confidence_level, **options))
        return float(math.ceil(need)) if math.isfinite(need) else need
    if m.needs_order:
        return math.nan

    def excludes(s: float) -> bool:
        try:
            lo, hi = difference_interval(a.scaled(s), b.scaled(s), method=m,
                                         confidence_level=confidence_level, rng=seed, **options)
        except NotEstimable:
            return False
        return lo > 0 if d > 0 else hi < 0

    lo_s, hi_s = 1e-6, 1.0
    while not excludes(hi_s):
        hi_s *= 10.0
        if hi_s > 1e12:
            return math.inf
    for _ in range(80):
        mid = math.sqrt(lo_s * hi_s)
        if excludes(mid):
            hi_s = mid
        else:
            lo_s = mid
        if hi_s / lo_s < 1 + 1e-9:
            break
    return math.ceil(hi_s * (a.n + b.n))


def _scaled(g: GroupStats, factor: float) -> GroupStats:
    """``g`` at ``factor`` times its size with the same moments (whole counts for 0/1)."""
    if g.binary:
        n = max(int(round(g.n * factor)), 1)
        return GroupStats.from_counts(n, min(int(round(g.count * factor)), n),
                                      cost_max=g.cost_max)
    return g.scaled(factor)


def required_parity_n(
    a: GroupStats, b: GroupStats, *, method: str | IntervalMethod, confidence_level: float,
    tolerance: float,
    seed: int = 0, options: dict | None = None,
) -> float:
    """Total annotated n (A + B, same shares) at which the interval would lie in the band.

    The band is ``(-tolerance, tolerance)`` on the rate scale; the observed rates are taken
    as the truth.  ``inf`` when the observed gap is not inside the band (no sample size can
    show parity then); found by bisection on the scale of the sample.
    """
    m = get_method(method)
    options = options or {}
    C = a.cost_max
    d = (a.mean - b.mean) / C
    if not math.isfinite(d):
        return math.nan
    if abs(d) >= tolerance:
        return math.inf
    if m.needs_order and m.required_n is None:
        return math.nan

    def inside(f: float) -> bool:
        try:
            lo, hi = difference_interval(_scaled(a, f), _scaled(b, f), method=m,
                                         confidence_level=confidence_level, rng=seed,
                                         **options)
        except NotEstimable:
            return False
        return -tolerance * C < lo and hi < tolerance * C

    lo_s, hi_s = 1.0 / max(a.n + b.n, 1.0), 1.0
    while not inside(hi_s):
        hi_s *= 4.0
        if hi_s * (a.n + b.n) > 1e13:
            return math.inf
    for _ in range(60):
        if (hi_s - lo_s) * (a.n + b.n) < 1.0:
            break
        mid = math.sqrt(lo_s * hi_s)
        if inside(mid):
            hi_s = mid
        else:
            lo_s = mid
    return float(math.ceil(hi_s * (a.n + b.n)))


def _compare(metric, component, rate, rate_is_cost, cls, ga, gb, a, b, *, method,
             family_level, interval_level, seed, options, tolerance=None,
             pre=None) -> Comparison:
    requested = get_method(method)
    common = dict(metric=metric, component=component, rate=rate, cls=cls, group_a=ga,
                  group_b=gb, a=a, b=b, confidence_level=family_level,
                  interval_level=interval_level, method=requested.name,
                  guarantee=requested.guarantee, rate_is_cost=rate_is_cost, seed=seed,
                  options=tuple(sorted(options.items())), tolerance=tolerance)
    notes = []
    for name, s in ((ga, a), (gb, b)):
        if s.n <= 0:
            notes.append(f"group {_jsonable(name)!r} has no rows in this metric's denominator")
    if notes:
        return Comparison(estimate=math.nan, low=math.nan, high=math.nan, verdict=NOT_ESTIMABLE,
                          required_n=math.nan, note="; ".join(notes), **common)
    m = resolve_method(requested, a, b)  # 'auto' -> the method that runs
    common.update(method=m.name, guarantee=m.guarantee)
    small = [f"small group {_jsonable(n)!r} (n={s.n:g})" for n, s in ((ga, a), (gb, b))
             if s.n < SMALL_GROUP]
    if pre is not None:          # computed on arrays with the others (_vectorised)
        lo, hi, need = pre
    else:
        try:
            lo, hi = difference_interval(a, b, method=m, confidence_level=interval_level,
                                         rng=seed, **options)
        except NotEstimable as exc:
            return Comparison(estimate=a.mean - b.mean, low=math.nan, high=math.nan,
                              verdict=NOT_ESTIMABLE, required_n=math.nan, note=str(exc),
                              **common)
        need = required_total_n(a, b, method=m, confidence_level=interval_level,
                                seed=seed, options=options)
    v = verdict(lo, hi, tolerance, a.cost_max)
    if v in (NO_EVIDENCE, NO_GAP) and math.isfinite(need) and need <= a.n + b.n:
        # the planner approximates: never claim that fewer examples than are already
        # there would settle it; say the gap is at the edge of what the method resolves
        small.append("the planned n is not above the current n (the observed gap is at the "
                     "edge of what these data resolve)")
        need = math.nan
    parity = math.nan
    if tolerance is not None:
        parity = required_parity_n(a, b, method=m, confidence_level=interval_level,
                                   tolerance=tolerance, seed=seed, options=options)
        if v == NO_GAP and math.isfinite(parity):
            parity = float(min(parity, a.n + b.n))
    return Comparison(estimate=a.mean - b.mean, low=lo, high=hi, verdict=v,
                      required_n=need, note="; ".join(small), required_n_parity=parity,
                      **common)


#: Comparisons of one closed-form method and level from which intervals and plans are
#: computed on arrays (:mod:`fairbound.stats.vectorised`) rather than one at a time.
VECTOR_MIN = 64


def _vectorised(items, method: str | IntervalMethod,
                options: dict) -> dict[int, tuple[float, float, float]]:
    """``(low, high, required_n)`` by item index, for closed-form methods, on arrays.

    ``items`` are ``(row, interval_level)``.  Only methods with a vectorised form and no
    options, and only batches of at least :data:`VECTOR_MIN` comparisons, are computed
    here (each entry equals the one-at-a-time value; ``tests/stats/test_vectorised.py``);
    a comparison the method cannot estimate is left to the one-at-a-time path, which
    says why.
    """
    if options:
        return {}
    batches: dict[tuple[str, float], list[int]] = {}
    found: dict[str, IntervalMethod] = {}
    for k, (r, level) in enumerate(items):
        if r.a.n <= 0 or r.b.n <= 0:
            continue
        m = resolve_method(method, r.a, r.b)
        if (m.vectorised is None or m.required_n is not None
                or (m.binary_only and not (r.a.binary and r.b.binary))):
            continue
        found[m.name] = m
        batches.setdefault((m.name, level), []).append(k)
    out: dict[int, tuple[float, float, float]] = {}
    for (name, level), keys in batches.items():
        if len(keys) < VECTOR_MIN:
            continue
        a = StatsArrays.from_stats([items[k][0].a for k in keys])
        b = StatsArrays.from_stats([items[k][0].b for k in keys])
        lo, hi = intervals_many(found[name], a, b, level)
        need = required_n_many(found[name], a, b, level)
        for k, lo_k, hi_k, n_k in zip(keys, lo.tolist(), hi.tolist(), need.tolist(),
                                      strict=True):
            if math.isfinite(lo_k) and math.isfinite(hi_k):
                out[k] = (lo_k, hi_k, n_k)
    return out


@dataclass(frozen=True)
class _StatRow:
    metric: Metric
    component: Component | None
    cls: Any
    group_a: Any
    group_b: Any
    a: GroupStats
    b: GroupStats


def _row_parts(r) -> tuple[str, str, str, bool]:
    """(metric, component name, rate, rate_is_cost) of a stats row or a comparison."""
    metric = r.metric if isinstance(r.metric, str) else r.metric.name
    if isinstance(r, Comparison):
        return metric, r.component, r.rate, r.rate_is_cost
    if r.component is None:
        return metric, "cost", "mean cost", True
    return metric, r.component.name, r.component.rate, r.component.rate_is_cost


def _build_from_stats(rows, *, method, confidence_level, seed, options,
                      error_control="family", tolerance=None) -> tuple[tuple, int]:
    """Comparisons from (metric, component, class, groups, stats) rows, in order.

    Returns the comparisons and the number of estimable ones the error control covers.
    ``family``: every interval at ``1 - alpha / m`` (Bonferroni over the ``m`` estimable
    comparisons: the verdicts hold jointly with probability ``>= confidence_level``, and each
    verdict agrees with the interval shown).  ``fdr``: Benjamini-Hochberg's number of
    discoveries ``R`` is found from the intervals themselves, and every interval is shown at
    ``1 - R alpha / m`` (the false-coverage-rate intervals of Benjamini & Yekutieli 2005).
    ``none``: each comparison at ``confidence_level``; only the components of one metric
    (e.g. equalized odds' TPR and FPR) are adjusted together.
    """
    families: dict[tuple, list] = {}
    for r in rows:
        key = (_row_parts(r)[0], r.cls, _jsonable(r.group_a), _jsonable(r.group_b))
        families.setdefault(key, []).append(r)
    m = sum(1 for r in rows if r.a.n > 0 and r.b.n > 0)

    def build(level_of) -> list[list[Comparison]]:
        # methods that can batch (the exact interval at large counts) compute every
        # interval of this audit in one vectorised pass; the loop below then reads them
        items = [(r, level_of(len(fam))) for fam in families.values() for r in fam]
        prefetch_intervals([(r.a, r.b, level) for r, level in items], method)
        # closed-form methods over many comparisons (vs-rest over thousands of groups):
        # intervals and plans on arrays
        pre = _vectorised(items, method, options) if len(items) >= VECTOR_MIN else {}
        out = []
        k = 0
        for fam in families.values():
            parts = []
            for r in fam:
                metric, name, rate, ric = _row_parts(r)
                parts.append(_compare(
                    metric, name, rate, ric, r.cls, r.group_a, r.group_b, r.a, r.b,
                    method=method, family_level=confidence_level,
                    interval_level=items[k][1], seed=seed, options=options,
                    tolerance=tolerance, pre=pre.get(k)))
                k += 1
            out.append(parts)
        return out

    built = controlled(
        build, error_control=error_control, confidence_level=confidence_level, m=m,
        discoveries=lambda b: sum(1 for parts in b for c in parts
                                  if c.verdict in DISADVANTAGED))
    out: list[Comparison] = []
    for parts in built:
        out.extend(parts)
        if len(parts) > 1:
            out.append(worst(parts))
    return tuple(out), m


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
        if col is not None and not (isinstance(col, str) and col.strip()):
            raise FairboundError(f"{role} must be a column name or a SQL expression (text); "
                                 f"got {type(col).__name__} {col!r:.60}", param=role)
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
    data,
    *,
    group: str | Sequence[str],
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
    data : DataFrame, Table, path or Spark DataFrame
        Predictions: pandas, polars (lazy too) or pyarrow data, a dict of arrays, a CSV /
        Parquet / JSON-lines file or glob (read by DuckDB, streaming), or a Spark DataFrame.
    group : str or list of str
        Protected-attribute column(s).  Several columns give intersectional groups.  A
        missing value means "not annotated": such rows are counted and excluded.
    label, prediction : str, optional
        True and predicted label columns.  0/1 (or bool) labels are binary with positive
        class 1; two other values need ``pos_label``; more values are multi-class and every
        metric is reported per class (one-vs-rest).
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
        (Agresti & Min 2001) for 0/1 costs, i.e. every confusion-matrix metric, and the
        betting interval (Waudby-Smith & Ramdas 2024) for fractional costs.
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
    """
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
    with checking_groups(lambda n: check_comparison_limit(n, comparison, early, limit,
                                                          column=gname)):
        agg = aggregate(data, spec, engine=engine)
    return audit_aggregates(agg, spec, metrics=metric_objs, cost_max=C,
                            comparison=comparison, reference=reference, method=m,
                            confidence_level=rho, pos_label=pos_label, seed=int(seed),
                            options=method_options, error_control=error_control,
                            favourable=favourable, tolerance=tolerance,
                            max_comparisons=limit)


def _audited_groups(agg: Aggregates, spec: AggregateSpec, gname: str) -> list:
    """The groups to compare: at least two, or a one-line error saying why not."""
    return check_groups(agg.n_rows, agg.source, agg.groups, where=spec.where,
                        excluded=agg.excluded, gname=gname)


def _confusion_rows(mm: Metric, conf, groups: list, compared, classes, positives, *,
                    multiclass: bool, favourable: str) -> list[_StatRow]:
    """One row of two groups' counts per component, class and compared pair of a metric."""
    index = {g: i for i, g in enumerate(groups)}
    rows = []
    for comp in (oriented(c, favourable) for c in mm.components):
        for k in (positives if comp.per_class else [None]):
            n, cnt = comp.counts(conf, classes.index(k) if k is not None else 0)
            n_all, cnt_all = int(n.sum()), int(cnt.sum())  # once: vs-rest subtracts
            for ga, gb in compared:
                na, ca = int(n[index[ga]]), int(cnt[index[ga]])
                if gb == REST:
                    nb, cb = n_all - na, cnt_all - ca
                else:
                    nb, cb = int(n[index[gb]]), int(cnt[index[gb]])
                rows.append(_StatRow(
                    mm, comp, k if multiclass and comp.per_class else None, ga, gb,
                    GroupStats.from_counts(na, ca), GroupStats.from_counts(nb, cb)))
    return rows


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
    binary = bool(sample is not None and np.all((sample == 0) | (sample == cost_max))
                  and all(cm.samples_complete[i] for i in ids))
    if not binary and sample is None:
        # moments alone: binary iff sum of squares equals C * sum
        binary = bool(np.isclose(tsq, cost_max * tot) and
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
    from fairbound._version import __version__

    method = get_method(method)  # a name is looked up here, once; a method passes through
    gname = " & ".join(spec.group)
    groups = _audited_groups(agg, spec, gname)
    reference = resolve_reference(groups, reference, comparison, gname, agg.group_rows())
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
    small = sorted({str(_jsonable(g)) for c in comps for g, s in ((c.group_a, c.a),
                                                                    (c.group_b, c.b))
                    if s is not None and 0 < s.n < SMALL_GROUP})
    if small:
        warnings.warn(f"small groups (fewer than {SMALL_GROUP} rows in some denominator): "
                      f"{', '.join(small[:10])}", SmallGroupWarning, stacklevel=3)
    return AuditResult(
        comparisons=comps,
        groups=tuple((g, n) for g, n in agg.group_rows().items()),
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
