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
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import numpy as np

from fairbound._docs import fill
from fairbound._validate import check_seed
from fairbound._words import SMALL_GROUP
from fairbound.audits.control import controlled
from fairbound.audits.verdicts import (
    A_DISADVANTAGED,
    B_DISADVANTAGED,
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


#: The fields of :class:`Comparison`, in order.
_FIELDS = tuple(f.name for f in fields(Comparison))


def _new(values: dict) -> Comparison:
    """A :class:`Comparison` of ``values`` (every field, in field order) without ``__init__``.

    The same object the frozen dataclass's ``__init__`` makes (it only stores the fields),
    in a fraction of the time: audits make one per comparison, 100,000 for vs-rest over
    100,000 groups.
    """
    c = object.__new__(Comparison)
    object.__setattr__(c, "__dict__", values)
    return c


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
             pre=None, resolved=None) -> Comparison:
    requested = get_method(method)
    common = dict(metric=metric, component=component, rate=rate, cls=cls, group_a=ga,
                  group_b=gb, a=a, b=b, confidence_level=family_level,
                  interval_level=interval_level, method=requested.name,
                  guarantee=requested.guarantee, rate_is_cost=rate_is_cost, seed=seed,
                  options=tuple(sorted(options.items())), tolerance=tolerance)
    notes = []
    # a metric's own caveat (equalized_odds_cost: which reading of the paper) rides along
    metric_note = _metric_note(metric)
    for name, s in ((ga, a), (gb, b)):
        if s.n <= 0:
            notes.append(f"group {_jsonable(name)!r} has no rows in this metric's denominator")
    if notes:
        return _made(common, estimate=math.nan, low=math.nan, high=math.nan,
                     verdict=NOT_ESTIMABLE, required_n=math.nan,
                     note="; ".join(notes + metric_note))
    # 'auto' -> the method that runs (``resolved``: already resolved for these groups)
    m = resolve_method(requested, a, b) if resolved is None else resolved
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
            return _made(common, estimate=a.mean - b.mean, low=math.nan, high=math.nan,
                         verdict=NOT_ESTIMABLE, required_n=math.nan,
                         note="; ".join([str(exc)] + metric_note))
        need = required_total_n(a, b, method=m, confidence_level=interval_level,
                                seed=seed, options=options)
    v = verdict(lo, hi, tolerance, a.cost_max)
    if v in (NO_EVIDENCE, NO_GAP) and math.isfinite(need) and need <= a.n + b.n:
        # the planner approximates: never claim that fewer examples than are already
        # there would settle it; say the gap is at the edge of what the method resolves
        small.append(_EDGE)
        need = math.nan
    parity = math.nan
    if tolerance is not None:
        parity = required_parity_n(a, b, method=m, confidence_level=interval_level,
                                   tolerance=tolerance, seed=seed, options=options)
        if v == NO_GAP and math.isfinite(parity):
            parity = float(min(parity, a.n + b.n))
    return _made(common, estimate=a.mean - b.mean, low=lo, high=hi, verdict=v,
                 required_n=need, note="; ".join(small + metric_note),
                 required_n_parity=parity)


#: The note of a gap whose planned n is not above the current n.
_EDGE = ("the planned n is not above the current n (the observed gap is at the edge of "
         "what these data resolve)")


def _metric_note(metric: str) -> list[str]:
    """``[note]`` of a registered metric with a caveat, else ``[]``."""
    return [METRICS[metric].note] if metric in METRICS and METRICS[metric].note else []


def _made(common: dict, **values) -> Comparison:
    """``Comparison(**common, **values)`` (``required_n_parity`` NaN unless given)."""
    values.setdefault("required_n_parity", math.nan)
    every = {**common, **values}
    return _new({f: every[f] for f in _FIELDS})


#: Comparisons of one closed-form method and level from which intervals and plans are
#: computed on arrays (:mod:`fairbound.stats.vectorised`) rather than one at a time.
VECTOR_MIN = 64


class _StatRow(NamedTuple):
    """Two groups' statistics on one metric component and class (a row to compare)."""

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


def _all_parts(rows: list) -> list[tuple[str, str, str, bool]]:
    """:func:`_row_parts` of every row (worked out once per metric and component)."""
    memo: dict = {}
    out = []
    for r in rows:
        if type(r) is _StatRow:
            key = (id(r.metric), id(r.component))
            p = memo.get(key)
            if p is None:
                p = memo[key] = _row_parts(r)
        else:
            p = _row_parts(r)
        out.append(p)
    return out


def _shown(g):
    """:func:`_jsonable` of a group (text as it is)."""
    return g if type(g) is str else _jsonable(g)


class _Items:
    """The rows of an audit in build order (family by family), as columns.

    A family is the rows of one metric, class and pair of groups (the components adjusted
    together).  ``a`` and ``b`` keep the rows' own statistics; the arrays hold their
    moments for the computations on arrays.
    """

    def __init__(self, rows: list, requested: IntervalMethod):
        parts = _all_parts(rows)
        fams: dict[tuple, list[int]] = {}
        for i, (r, p) in enumerate(zip(rows, parts, strict=True)):
            fams.setdefault((p[0], r.cls, _shown(r.group_a), _shown(r.group_b)), []).append(i)
        self.families = [len(f) for f in fams.values()]
        if len(fams) == len(rows):   # families of one row each: the rows' own order
            self.rows, self.parts, self.size = rows, parts, [1] * len(rows)
        else:
            order = [i for f in fams.values() for i in f]
            self.rows = [rows[i] for i in order]
            self.parts = [parts[i] for i in order]
            self.size = [k for k in self.families for _ in range(k)]  # each one's family
        self.a = [r.a for r in self.rows]
        self.b = [r.b for r in self.rows]
        self.na = np.array([s.n for s in self.a], dtype=float)
        self.nb = np.array([s.n for s in self.b], dtype=float)
        self.estimable = (self.na > 0) & (self.nb > 0)
        # what each comparison runs ('auto' resolved for its groups), once for every build
        # and once per pair of statistics objects (rows of equal counts share them)
        resolved: dict[tuple[int, int], IntervalMethod] = {}
        self.method = []
        for a, b, ok in zip(self.a, self.b, self.estimable.tolist(), strict=True):
            m = None
            if ok:
                m = resolved.get((id(a), id(b)))
                if m is None:
                    m = resolved[id(a), id(b)] = resolve_method(requested, a, b)
            self.method.append(m)

    def __len__(self) -> int:
        return len(self.rows)

    def moments(self, side: str, keys: np.ndarray):
        """:class:`StatsArrays` of side ``"a"`` or ``"b"`` of the items ``keys``."""
        stats = self.a if side == "a" else self.b
        n = self.na if side == "a" else self.nb
        pick = [stats[k] for k in keys.tolist()]
        return StatsArrays(
            n=n[keys], total=np.array([s.total for s in pick], dtype=float),
            total_sq=np.array([s.total_sq for s in pick], dtype=float),
            cost_max=np.array([s.cost_max for s in pick], dtype=float),
            binary=all(s.binary for s in pick))


def _vectorised(items: _Items, levels: list[float],
                options: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(done, low, high, required_n)`` per item, for methods with an array form.

    Only methods with a vectorised form (and an array planner where the method has its own
    planner, as ``exact`` has) and no options, and only batches (one method and
    level) of at least :data:`VECTOR_MIN` comparisons, are computed here (each entry equals
    the one-at-a-time value; ``tests/stats/test_vectorised.py``); a comparison the method
    cannot estimate is left to the one-at-a-time path (``done`` False), which says why.
    """
    k = len(items)
    done = np.zeros(k, dtype=bool)
    lo, hi, need = np.full(k, np.nan), np.full(k, np.nan), np.full(k, np.nan)
    if options or k < VECTOR_MIN:
        return done, lo, hi, need
    batches: dict[tuple[str, float], list[int]] = {}
    found: dict[str, IntervalMethod] = {}
    for i, m in enumerate(items.method):
        if m is None or m.vectorised is None:
            continue
        if m.required_n is not None and getattr(m.vectorised, "required_n_many", None) is None:
            continue        # its planner has no array form: one at a time
        if m.binary_only and not (items.a[i].binary and items.b[i].binary):
            continue
        found[m.name] = m
        batches.setdefault((m.name, levels[i]), []).append(i)
    for (name, level), keys in batches.items():
        if len(keys) < VECTOR_MIN:
            continue
        idx = np.array(keys, dtype=np.intp)
        a, b = items.moments("a", idx), items.moments("b", idx)
        lo_k, hi_k = intervals_many(found[name], a, b, level)
        need_k = required_n_many(found[name], a, b, level)
        ok = np.isfinite(lo_k) & np.isfinite(hi_k)
        done[idx[ok]] = True
        lo[idx[ok]], hi[idx[ok]], need[idx[ok]] = lo_k[ok], hi_k[ok], need_k[ok]
    return done, lo, hi, need


class _Built:
    """One build of an audit's comparisons: verdicts now, :class:`Comparison` s on demand.

    Comparisons computed one at a time are made as they are computed; those computed on
    arrays are made by :meth:`comparisons`, so that the builds the error control discards
    (``fdr`` tries several levels) make none.
    """

    def __init__(self, items: _Items, verdicts: list, made: dict, columns: dict):
        self.items = items
        self.verdicts = verdicts
        self.made = made
        self.columns = columns

    def discoveries(self) -> int:
        """How many verdicts claim a gap."""
        return sum(1 for v in self.verdicts if v in DISADVANTAGED)

    def comparisons(self) -> list[list[Comparison]]:
        """The comparisons, family by family."""
        it, col = self.items, self.columns
        out: list[Comparison | None] = [self.made.get(k) for k in range(len(it))]
        level, seed, options = col["confidence_level"], col["seed"], col["options"]
        tolerance, levels = col["tolerance"], col["levels"]
        for k, est, lo, hi, need, note, parity in zip(
                col["keys"], col["estimate"], col["low"], col["high"], col["need"],
                col["note"], col["parity"], strict=True):
            r = it.rows[k]
            metric, name, rate, ric = it.parts[k]
            m = it.method[k]
            out[k] = _new({
                "metric": metric, "component": name, "rate": rate, "cls": r.cls,
                "group_a": r.group_a, "group_b": r.group_b, "a": r.a, "b": r.b,
                "estimate": est, "low": lo, "high": hi, "confidence_level": level,
                "interval_level": levels[k], "method": m.name, "guarantee": m.guarantee,
                "verdict": self.verdicts[k], "required_n": need, "note": note,
                "rate_is_cost": ric, "seed": seed, "options": options,
                "tolerance": tolerance, "required_n_parity": parity,
            })
        fams, start = [], 0
        for size in it.families:
            fams.append(out[start:start + size])
            start += size
        return fams


def _finish_arrays(items: _Items, keys: np.ndarray, lo, hi, need, levels, *,
                   confidence_level, seed, options, tolerance) -> tuple[list, dict]:
    """Verdicts, plans and notes of the items ``keys`` whose intervals came on arrays.

    What :func:`_compare` does with a ``pre`` computed interval, on arrays (the same
    operations on the same doubles) and with the notes, parity plans and rounding of
    :func:`_compare` where a comparison needs them.
    """
    na, nb = items.na[keys], items.nb[keys]
    a_side = [items.a[k] for k in keys.tolist()]
    b_side = [items.b[k] for k in keys.tolist()]
    cost_max = np.array([s.cost_max for s in a_side], dtype=float)
    total_a = np.array([s.total for s in a_side], dtype=float)
    total_b = np.array([s.total for s in b_side], dtype=float)
    is_a, is_b = lo > 0, hi < 0
    is_b &= ~is_a
    verdicts = np.full(len(keys), NO_EVIDENCE, dtype=object)
    if tolerance is not None:
        verdicts[~is_a & ~is_b & (-tolerance * cost_max < lo)
                 & (hi < tolerance * cost_max)] = NO_GAP
    verdicts[is_a] = A_DISADVANTAGED
    verdicts[is_b] = B_DISADVANTAGED
    edge = ~(is_a | is_b) & np.isfinite(need) & (need <= na + nb)
    need = np.where(edge, np.nan, need)
    small_a, small_b = na < SMALL_GROUP, nb < SMALL_GROUP
    notes = []
    plain = {}
    for j, k in enumerate(keys.tolist()):
        metric = items.parts[k][0]
        if metric not in plain:
            plain[metric] = "; ".join(_metric_note(metric))
        if small_a[j] or small_b[j] or edge[j]:
            r = items.rows[k]
            said = [f"small group {_jsonable(g)!r} (n={s.n:g})"
                    for g, s, is_small in ((r.group_a, a_side[j], small_a[j]),
                                           (r.group_b, b_side[j], small_b[j])) if is_small]
            if edge[j]:
                said.append(_EDGE)
            notes.append("; ".join(said + _metric_note(metric)))
        else:
            notes.append(plain[metric])
    verdicts = verdicts.tolist()
    parity = [math.nan] * len(keys)
    if tolerance is not None:
        for j, k in enumerate(keys.tolist()):
            a, b = a_side[j], b_side[j]
            p = required_parity_n(a, b, method=items.method[k], confidence_level=levels[k],
                                  tolerance=tolerance, seed=seed, options=options)
            if verdicts[j] == NO_GAP and math.isfinite(p):
                p = float(min(p, a.n + b.n))
            parity[j] = p
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = total_a / na - total_b / nb
    columns = {
        "keys": keys.tolist(), "estimate": estimate.tolist(), "low": lo.tolist(),
        "high": hi.tolist(), "need": need.tolist(), "note": notes, "parity": parity,
        "levels": levels, "confidence_level": confidence_level, "seed": seed,
        "options": tuple(sorted(options.items())), "tolerance": tolerance,
    }
    return verdicts, columns


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

    Many comparisons of a closed-form method (vs-rest over thousands of groups) are
    computed on arrays, verdicts and notes too, and their :class:`Comparison` s made once,
    for the build the error control keeps.
    """
    # one interval cache for the whole audit (every build the error control asks for, and
    # the plans): the caller's when one is active (``with using(cache):``), else the
    # audit's own, so that audits do not read or grow each other's entries
    cache = active()
    if cache is None:
        cache = IntervalCache()
    requested = get_method(method)
    items = _Items(list(rows), requested)
    m = int(items.estimable.sum())

    def build(level_of) -> _Built:
        by_size = {k: level_of(k) for k in set(items.size)}
        levels = [by_size[k] for k in items.size]
        # methods that can batch (the exact interval at large counts) compute every
        # interval of this audit in one vectorised pass; the loop below then reads them
        prefetch_intervals(list(zip(items.a, items.b, levels, strict=True)), requested,
                           cache=cache)
        verdicts: list = [None] * len(items)
        made: dict[int, Comparison] = {}
        with using(cache):
            # methods with an array form over many comparisons (vs-rest over thousands of
            # groups): intervals and plans on arrays (exact ones read the cache)
            done, lo, hi, need = _vectorised(items, levels, options)
            keys = np.flatnonzero(done)
            for k in np.flatnonzero(~done).tolist():
                r = items.rows[k]
                metric, name, rate, ric = items.parts[k]
                c = _compare(metric, name, rate, ric, r.cls, r.group_a, r.group_b, r.a, r.b,
                             method=requested, family_level=confidence_level,
                             interval_level=levels[k], seed=seed, options=options,
                             tolerance=tolerance, resolved=items.method[k])
                made[k] = c
                verdicts[k] = c.verdict
            found, columns = _finish_arrays(
                items, keys, lo[keys], hi[keys], need[keys], levels,
                confidence_level=confidence_level, seed=seed, options=options,
                tolerance=tolerance)
        for k, v in zip(columns["keys"], found, strict=True):
            verdicts[k] = v
        return _Built(items, verdicts, made, columns)

    built = controlled(
        build, error_control=error_control, confidence_level=confidence_level, m=m,
        discoveries=lambda b: b.discoveries())
    out: list[Comparison] = []
    for parts in built.comparisons():
        out.extend(parts)
        if len(parts) > 1:
            out.append(worst(parts))
    return tuple(out), m
