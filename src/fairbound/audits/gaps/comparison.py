"""One gap between two groups: :class:`Comparison`, and how the comparisons are computed.

:func:`_compare` turns two groups' sufficient statistics into one :class:`Comparison` (its
interval, verdict and the n that would settle it: :func:`required_total_n`,
:func:`required_parity_n`); :func:`_build_from_stats` computes many of them, on arrays from
:data:`VECTOR_MIN` comparisons up.  Both the builder (:mod:`fairbound.audits.gaps.build`,
after its scan) and :meth:`Comparison.recompute` / :meth:`AuditResult.recompute` (without
the data) use them, so the results do not import the builder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairbound._docs import fill
from fairbound._validate import check_seed
from fairbound._words import SMALL_GROUP
from fairbound.audits.control import controlled
from fairbound.audits.verdicts import (
    DISADVANTAGED,
    NO_EVIDENCE,
    NO_GAP,
    NOT_ESTIMABLE,
    disadvantaged,
    verdict,
    worst,
)
from fairbound.errors import FairboundError
from fairbound.metrics import (
    METRICS,
    Component,
    Metric,
    get_metric,
)
from fairbound.stats import (
    ConfidenceInterval,
    GroupStats,
    NotEstimable,
    difference_interval,
    get_method,
)
from fairbound.stats.auto import prefetch_intervals, resolve_method
from fairbound.stats.base import IntervalMethod, check_confidence_level
from fairbound.stats.exact.cache import IntervalCache, active, using
from fairbound.stats.vectorised import StatsArrays, intervals_many, required_n_many


def _jsonable(v):
    if isinstance(v, tuple):
        return " & ".join(map(str, v))
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@dataclass(frozen=True)
class Comparison:
    """One gap between two groups on one metric component, with its interval and verdict.

    The estimate is the cost gap ``delta = E_A[cost] - E_B[cost]`` (Ethayarajh 2020): a
    positive value means group A bears more cost.  ``rate_*`` give the same gap on the
    familiar rate scale (TPR, selection rate, ...).

    Attributes
    ----------
    metric, component : str
        Metric name and component (``"tpr"``, ``"fpr"``, ``"max"`` ...).
    rate : str
        Name of the rate (``"TPR"``).
    cls : object
        The class ``k`` for one-vs-rest components (``None`` for accuracy and costs).
    group_a, group_b : object
        The groups compared (``group_b`` may be ``"rest"`` for each-vs-rest).
    a, b : GroupStats or None
        Sufficient statistics behind the numbers (``None`` for the ``max`` component).
    estimate, low, high : float
        Cost gap and its interval (NaN when not estimable).
    confidence_level : float
        The requested (family-wise) level.
    interval_level : float
        The level of this interval itself (higher for simultaneous components).
    method, guarantee : str
        Interval method and what it promises.
    verdict : str
        ``"A disadvantaged"``, ``"B disadvantaged"``, ``"not enough evidence"``,
        ``"no meaningful gap"`` (the interval lies within ``+/- tolerance``), ``"unequal"``
        (``max`` component) or ``"not estimable"``.
    required_n : float
        Total annotated examples (A + B, at the current group shares) the method would need
        to show a gap if the observed gap were the true one (``inf`` for a zero gap, NaN if
        unknown).  Never below the examples already there when there is no verdict.
    note : str
        Why a value is not estimable, small-group warnings, and similar.
    tolerance : float or None
        The band (on the rate scale) within which a gap counts as no meaningful gap.
    required_n_parity : float
        With a tolerance: total examples needed to show that the gap lies within the band
        if the observed gap were the true one (``inf`` when the observed gap is outside the
        band: no sample size can show parity then).
    """

    metric: str
    component: str
    rate: str
    cls: Any
    group_a: Any
    group_b: Any
    a: GroupStats | None
    b: GroupStats | None
    estimate: float
    low: float
    high: float
    confidence_level: float
    interval_level: float
    method: str
    guarantee: str
    verdict: str
    required_n: float
    note: str = ""
    rate_is_cost: bool = False
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    tolerance: float | None = None
    required_n_parity: float = math.nan

    @fill
    def confidence_interval(self, confidence_level: float | None = None
                            ) -> ConfidenceInterval:
        """The interval for the cost gap: the one shown, or at another level.

        {{row_interval_sections}}
        """
        if confidence_level is None:
            return ConfidenceInterval(self.low, self.high)
        c = self.recompute(confidence_level=confidence_level)
        return ConfidenceInterval(c.low, c.high)

    def __repr__(self) -> str:
        from fairbound._render import fmt_level, fmt_num

        return (f"Comparison({self.label} {_jsonable(self.group_a)} vs "
                f"{_jsonable(self.group_b)}: gap {fmt_num(self.estimate)} "
                f"[{fmt_num(self.low)}, {fmt_num(self.high)}] at "
                f"{fmt_level(self.interval_level)}, {self.verdict})")

    @property
    def estimable(self) -> bool:
        """Whether the gap could be estimated."""
        return self.verdict != NOT_ESTIMABLE

    def _rate(self, s: GroupStats | None) -> float:
        if s is None or s.n <= 0:
            return math.nan
        m = s.mean / s.cost_max
        return m if self.rate_is_cost else 1.0 - m

    @property
    def rate_a(self) -> float:
        """Group A's rate (TPR, selection rate, ...)."""
        return self._rate(self.a)

    @property
    def rate_b(self) -> float:
        """Group B's rate."""
        return self._rate(self.b)

    @property
    def rate_gap(self) -> tuple[float, float, float]:
        """``(rate_A - rate_B, low, high)`` on the rate scale."""
        if self.component == "max" or self.a is None:
            return (math.nan, math.nan, math.nan)
        C = self.a.cost_max
        if self.rate_is_cost:
            return (self.estimate / C, self.low / C, self.high / C)
        return (-self.estimate / C, -self.high / C, -self.low / C)

    @property
    def disadvantaged(self) -> Any:
        """The disadvantaged group, or ``None`` without a verdict."""
        return disadvantaged(self.verdict, self.group_a, self.group_b)

    @property
    def label(self) -> str:
        """Short label such as ``equal_opportunity[tpr, k=1]``."""
        try:
            several = get_metric(self.metric).simultaneous
        except FairboundError:
            several = False
        parts = [self.component] if several else []
        if self.cls is not None:
            parts.append(f"k={self.cls}")
        return f"{self.metric}[{', '.join(parts)}]" if parts else self.metric

    def summary(self) -> str:
        """A plain-language sentence about this comparison (the report's wording)."""
        from fairbound.report.audit_report import comparison_sentence

        return comparison_sentence(self.to_dict())

    def recompute(
        self, *, confidence_level: float | None = None, method: str | None = None,
        seed: int | None = None, **options
    ) -> Comparison:
        """The same comparison with another method, level or seed, from the stored statistics.

        Parameters
        ----------
        confidence_level : float, optional
            New level (the interval's own level; no multiplicity adjustment is applied).
        method : str, optional
            New interval method.
        seed : int, optional
            New seed for randomised methods.
        **options
            Method options (replace the stored ones).

        Returns
        -------
        Comparison
        """
        if self.component == "max" or self.a is None:
            raise FairboundError("recompute: the 'max' component is derived from its "
                                 "components; recompute those instead", param="component")
        rho = check_confidence_level(self.interval_level if confidence_level is None
                                     else confidence_level)
        m = get_method(self.method if method is None else method)
        opts = options if (options or method) else dict(self.options)
        return _compare(
            self.metric, self.component, self.rate, self.rate_is_cost, self.cls,
            self.group_a, self.group_b, self.a, self.b, method=m,
            family_level=rho, interval_level=rho,
            seed=self.seed if seed is None else check_seed(seed), options=opts,
            tolerance=self.tolerance,
        )

    def plot(self, *, confidence_level: float | None = None):
        """Draw both groups' rates and the gap with their intervals (needs matplotlib).

        Parameters
        ----------
        confidence_level : float, optional
            Level of the per-group Wilson intervals (default: this comparison's level).

        Returns
        -------
        matplotlib.figure.Figure
        """
        from fairbound.viz.audit import plot_comparison

        return plot_comparison(self, confidence_level=confidence_level)

    def to_dict(self) -> dict:
        """Plain dictionary (JSON-ready) of every field and the rate view."""
        g, glo, ghi = self.rate_gap
        return {
            "metric": self.metric, "component": self.component, "rate": self.rate,
            "class": _jsonable(self.cls), "group_a": _jsonable(self.group_a),
            "group_b": _jsonable(self.group_b),
            "n_a": None if self.a is None else _jsonable(self.a.n),
            "n_b": None if self.b is None else _jsonable(self.b.n),
            "cost_sum_a": None if self.a is None else _jsonable(self.a.total),
            "cost_sum_b": None if self.b is None else _jsonable(self.b.total),
            "rate_a": _jsonable(self.rate_a), "rate_b": _jsonable(self.rate_b),
            "rate_gap": _jsonable(g), "rate_gap_low": _jsonable(glo),
            "rate_gap_high": _jsonable(ghi),
            "estimate": _jsonable(self.estimate), "low": _jsonable(self.low),
            "high": _jsonable(self.high), "verdict": self.verdict,
            "disadvantaged": _jsonable(self.disadvantaged),
            "required_n": _jsonable(self.required_n), "method": self.method,
            "guarantee": self.guarantee, "confidence_level": self.confidence_level,
            "interval_level": self.interval_level, "note": self.note,
            "tolerance": self.tolerance,
            "required_n_parity": _jsonable(self.required_n_parity),
        }


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
    # a metric's own caveat (equalized_odds_cost: which reading of the paper) rides along
    metric_note = [METRICS[metric].note] if metric in METRICS and METRICS[metric].note else []
    for name, s in ((ga, a), (gb, b)):
        if s.n <= 0:
            notes.append(f"group {_jsonable(name)!r} has no rows in this metric's denominator")
    if notes:
        return Comparison(estimate=math.nan, low=math.nan, high=math.nan, verdict=NOT_ESTIMABLE,
                          required_n=math.nan, note="; ".join(notes + metric_note), **common)
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
                              verdict=NOT_ESTIMABLE, required_n=math.nan,
                              note="; ".join([str(exc)] + metric_note), **common)
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
                      required_n=need, note="; ".join(small + metric_note),
                      required_n_parity=parity,
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

    Exact intervals go through one :class:`~fairbound.stats.exact.IntervalCache` for the
    whole audit: the one the caller made active (``with fairbound.stats.exact.using(c):``),
    else a new one, filled by the batched search and read by the loop.
    """
    # one interval cache for the whole audit (every build the error control asks for, and
    # the plans): the caller's when one is active (``with using(cache):``), else the
    # audit's own, so that audits do not read or grow each other's entries
    cache = active()
    if cache is None:
        cache = IntervalCache()
    families: dict[tuple, list] = {}
    for r in rows:
        key = (_row_parts(r)[0], r.cls, _jsonable(r.group_a), _jsonable(r.group_b))
        families.setdefault(key, []).append(r)
    m = sum(1 for r in rows if r.a.n > 0 and r.b.n > 0)

    def build(level_of) -> list[list[Comparison]]:
        # methods that can batch (the exact interval at large counts) compute every
        # interval of this audit in one vectorised pass; the loop below then reads them
        items = [(r, level_of(len(fam))) for fam in families.values() for r in fam]
        prefetch_intervals([(r.a, r.b, level) for r, level in items], method, cache=cache)
        # closed-form methods over many comparisons (vs-rest over thousands of groups):
        # intervals and plans on arrays
        pre = _vectorised(items, method, options) if len(items) >= VECTOR_MIN else {}
        out = []
        k = 0
        with using(cache):
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
