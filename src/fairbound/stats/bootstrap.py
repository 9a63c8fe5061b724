"""Stratified bootstrap intervals, on sufficient statistics and on whole confusion tables.

Two entry points:

* the registered interval methods ``bootstrap-percentile`` and ``bootstrap-bca`` for one
  difference ``delta = E_A[cost] - E_B[cost]`` (stratified: each group is resampled on its
  own, so group sizes stay fixed);
* :func:`bootstrap_cells` for a whole audit: per-group confusion counts of shape
  ``(G, K, K)`` (group x label x prediction), ``B`` multinomial resamples per group drawn at
  once (shape ``(B, G, K, K)``), any set of metric functions of those counts, percentile and
  BCa intervals for every metric and comparison, and the max-|t| simultaneous band.

Why multinomial draws are exact: resampling ``n_g`` rows of group ``g`` with replacement and
counting them per cell gives a multinomial vector with the observed cell shares as
probabilities.  A metric that depends on the rows only through those counts (every
confusion-table metric does) therefore has exactly the row-bootstrap distribution, at a cost
that no longer depends on the number of rows.  Fractional costs are handled the same way on
the distinct cost values of a group.

References
----------
B. Efron and R. J. Tibshirani. *An Introduction to the Bootstrap*. Chapman & Hall, 1993
(percentile: ch. 13; BCa with several samples: ch. 14.3 and eq. 15.36).
A. C. Davison and D. V. Hinkley. *Bootstrap Methods and their Application*. CUP, 1997
(stratified resampling, sec. 3.2).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from fairbound._validate import check_choice, check_int
from fairbound.errors import FairboundError
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    register_interval,
)

#: Resamples used by the registered interval methods unless ``n_resamples=`` is given.
DEFAULT_RESAMPLES = 2000

#: A metric of confusion counts: ``f(cells) -> (denominator, cost_count)`` where ``cells``
#: has shape ``(..., G, K, K)`` and both outputs have shape ``(..., G)``.
CellMetric = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]

BootstrapKind = Literal["percentile", "bca"]
#: The bootstrap intervals on offer.
BOOTSTRAP_METHODS = ("percentile", "bca")

# Elements (resamples x values or rows) held in memory at once when resampling fractional costs.
_CHUNK_ELEMENTS = 4_000_000
# Up to this many distinct cost values a group is resampled as multinomial counts.
_MULTINOMIAL_MAX_VALUES = 64


# ----------------------------------------------------------------------------- internals


def check_n_resamples(n_resamples, param: str = "n_resamples") -> int:
    """Validate a number of bootstrap resamples (an integer of at least 2)."""
    return check_int(n_resamples, param, low=2, whole_floats=True)


def _percentile_of_score(dist: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Share of resamples below ``score``, ties counted half (scipy's ``kind='mean'``)."""
    valid = ~np.isnan(dist)
    n = valid.sum(axis=0)
    below = ((dist < score) & valid).sum(axis=0)
    at_or_below = ((dist <= score) & valid).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (below + at_or_below) / (2.0 * n)


def _acceleration(jackknife: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """BCa acceleration from per-sample jackknife values held as distinct values + weights.

    ``jackknife`` holds, for each independently resampled stratum ``j``, the leave-one-out
    statistics of its distinct rows (shape ``(U_j, J)``) and how many rows share each
    (shape ``(U_j,)``).  This is Efron & Tibshirani eq. 15.36 summed over strata, the same
    formula as ``scipy.stats.bootstrap`` with several samples, with repeated rows weighted
    instead of recomputed.
    """
    num = 0.0
    den = 0.0
    for theta_i, w in jackknife:
        n_j = float(w.sum())
        if n_j < 2:
            continue
        dot = (w[:, None] * theta_i).sum(axis=0) / n_j
        u = (n_j - 1.0) * (dot[None, :] - theta_i)
        num = num + (w[:, None] * u**3).sum(axis=0) / n_j**3
        den = den + (w[:, None] * u**2).sum(axis=0) / n_j**2
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = num / (6.0 * den**1.5)
    # No jackknife variation (e.g. every cost 0): the acceleration is 0 by convention.
    return np.where(den > 0, a, 0.0)


def _interval_levels(
    kind: BootstrapKind,
    dist: np.ndarray,
    estimate: np.ndarray,
    alpha: float,
    acceleration: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper quantile levels of the bootstrap distribution for each column."""
    from scipy.special import ndtr, ndtri

    J = dist.shape[1]
    if kind == "percentile":
        return np.full(J, alpha / 2.0), np.full(J, 1.0 - alpha / 2.0)
    z0 = ndtri(_percentile_of_score(dist, estimate[None, :]))
    a = np.zeros(J) if acceleration is None else acceleration
    z_lo, z_hi = ndtri(alpha / 2.0), ndtri(1.0 - alpha / 2.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = ndtr(z0 + (z0 + z_lo) / (1.0 - a * (z0 + z_lo)))
        hi = ndtr(z0 + (z0 + z_hi) / (1.0 - a * (z0 + z_hi)))
    return lo, hi


def _column_quantiles(dist: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """``np.nanquantile`` of each column at its own level (NaN level gives NaN)."""
    out = np.full(dist.shape[1], math.nan)
    for j, q in enumerate(levels):
        col = dist[:, j]
        col = col[~np.isnan(col)]
        if col.size and np.isfinite(q):
            out[j] = np.quantile(col, q)
    return out


# --------------------------------------------------------------- two-group interval methods


def _distinct(g: GroupStats) -> tuple[np.ndarray, np.ndarray]:
    """Distinct cost values of a group and how many examples have each."""
    if g.binary:
        k = g.count
        n = int(round(g.n))
        return np.array([0.0, g.cost_max]), np.array([n - k, k], dtype=np.int64)
    if g.sample is None or not g.sample_complete:
        raise NotEstimable(
            "the bootstrap of fractional costs needs every per-example cost of both groups "
            "(GroupStats.from_costs keeps them)"
        )
    values, counts = np.unique(np.asarray(g.sample, dtype=float), return_counts=True)
    return values, counts.astype(np.int64)


def _resample_means(
    values: np.ndarray, counts: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Means of ``n_resamples`` row bootstrap resamples.

    Few distinct values (0/1 costs, coarse scores): multinomial counts of the values, whose
    cost does not grow with the number of rows.  Many distinct values: row indices drawn
    directly, because numpy's multinomial draws one binomial per category and is then much
    slower than indexing.  Both are exactly the row bootstrap.
    """
    n = int(counts.sum())
    p = counts / n
    if values.size == 2:
        k = rng.binomial(n, p[1], size=n_resamples)
        return (values[0] * (n - k) + values[1] * k) / n
    out = np.empty(n_resamples)
    if values.size <= _MULTINOMIAL_MAX_VALUES:
        step = max(1, _CHUNK_ELEMENTS // values.size)
        for start in range(0, n_resamples, step):
            stop = min(n_resamples, start + step)
            draws = rng.multinomial(n, p, size=stop - start)
            out[start:stop] = draws @ values / n
        return out
    rows = np.repeat(values, counts)
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_resamples, step):
        stop = min(n_resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = rows[idx].mean(axis=1)
    return out


def _two_group_bootstrap(
    a: GroupStats,
    b: GroupStats,
    confidence_level: float,
    *,
    kind: BootstrapKind,
    rng: np.random.Generator,
    n_resamples=None,
) -> tuple[float, float]:
    B = check_n_resamples(DEFAULT_RESAMPLES if n_resamples is None else n_resamples)
    va, ca = _distinct(a)
    vb, cb = _distinct(b)
    dist = (_resample_means(va, ca, B, rng) - _resample_means(vb, cb, B, rng))[:, None]
    est = np.array([a.mean - b.mean])
    jack = None
    if kind == "bca":
        na, nb = float(ca.sum()), float(cb.sum())
        if na < 2 or nb < 2:
            raise NotEstimable("the BCa bootstrap needs at least two examples per group")
        loo_a = (a.total - va) / (na - 1.0) - b.mean
        loo_b = a.mean - (b.total - vb) / (nb - 1.0)
        jack = [(loo_a[:, None], ca.astype(float)), (loo_b[:, None], cb.astype(float))]
    acc = None if jack is None else _acceleration(jack)
    lo_q, hi_q = _interval_levels(kind, dist, est, 1.0 - confidence_level, acc)
    lo = _column_quantiles(dist, lo_q)[0]
    hi = _column_quantiles(dist, hi_q)[0]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise NotEstimable("the bootstrap interval is undefined for these data")
    return float(lo), float(hi)


def _register_bootstrap(kind: BootstrapKind, summary: str, reference: str,
                        aliases: tuple[str, ...]) -> None:
    """Register :func:`_two_group_bootstrap` of ``kind`` as the method ``bootstrap-<kind>``."""
    register_interval(f"bootstrap-{kind}", random=True, guarantee="resampling",
                      summary=summary, reference=reference, options=("n_resamples",),
                      aliases=aliases)(functools.partial(_two_group_bootstrap, kind=kind))


_register_bootstrap(
    "percentile",
    "Stratified percentile bootstrap (binomial/multinomial draws of each group's "
    "counts = an exact row bootstrap).",
    "Efron & Tibshirani, An Introduction to the Bootstrap (1993), ch. 13",
    ("bootstrap", "percentile"))
_register_bootstrap(
    "bca",
    "Stratified bias-corrected and accelerated (BCa) bootstrap; jackknife "
    "acceleration computed exactly from counts.",
    "Efron & Tibshirani, An Introduction to the Bootstrap (1993), ch. 14.3, eq. 15.36",
    ("bca",))


# ------------------------------------------------------------------- audit-level bootstrap


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap intervals for every metric and comparison of an audit.

    Attributes
    ----------
    metric, component, group_a, group_b : tuple of str
        One entry per column of ``distribution``.
    label : tuple
        The class ``k`` of a one-vs-rest component (``None`` for class-free components and
        for metric functions passed directly).
    estimate : numpy.ndarray
        Observed cost gap ``E_A[cost] - E_B[cost]`` per column.
    low, high : numpy.ndarray
        Per-comparison (marginal) interval of the chosen ``method``.
    standard_error : numpy.ndarray
        Standard deviation of the bootstrap distribution per column.
    simultaneous_low, simultaneous_high : numpy.ndarray
        The max-|t| band: every column covered at once with probability about
        ``confidence_level``.
    critical_value : float
        Quantile of ``max_j |t_j|`` used for the band.
    distribution : numpy.ndarray
        Bootstrap gaps, shape ``(n_resamples, n_columns)``; NaN where a resample left a
        metric undefined (empty denominator).
    n_undefined : numpy.ndarray
        Number of NaN resamples per column.
    method : str
        ``'percentile'`` or ``'bca'``.
    confidence_level : float
    n_resamples : int
    seed : int or None
    acceleration : numpy.ndarray
        BCa acceleration per column (exact jackknife), kept for :meth:`recompute`.
    """

    metric: tuple[str, ...]
    component: tuple[str, ...]
    label: tuple
    group_a: tuple[str, ...]
    group_b: tuple[str, ...]
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    standard_error: np.ndarray
    simultaneous_low: np.ndarray
    simultaneous_high: np.ndarray
    critical_value: float
    n_undefined: np.ndarray
    method: str
    confidence_level: float
    n_resamples: int
    seed: int | None
    distribution: np.ndarray = field(repr=False)
    acceleration: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))

    def recompute(
        self, *, confidence_level: float | None = None, method: BootstrapKind | None = None
    ) -> BootstrapResult:
        """The same resamples summarised at another level or with another method.

        Parameters
        ----------
        confidence_level : float, optional
            New level (default: the current one).
        method : {'percentile', 'bca'}, optional
            New marginal interval (default: the current one).

        Returns
        -------
        BootstrapResult
            Same distribution and estimates; new intervals and band.
        """
        rho = check_confidence_level(
            self.confidence_level if confidence_level is None else confidence_level
        )
        kind = check_choice(self.method if method is None else method, BOOTSTRAP_METHODS,
                            "method")
        summary = _summarise(self.distribution, self.estimate, self.acceleration, rho, kind)
        return replace(self, method=kind, confidence_level=rho, **summary)

    def to_frame(self):
        """One row per metric and comparison, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame(
            {
                "metric": list(self.metric),
                "component": list(self.component),
                "label": list(self.label),
                "group_a": list(self.group_a),
                "group_b": list(self.group_b),
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "standard_error": self.standard_error,
                "simultaneous_low": self.simultaneous_low,
                "simultaneous_high": self.simultaneous_high,
                "n_undefined": self.n_undefined,
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready summary (the resample distribution is left out)."""
        return {
            "method": self.method,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "critical_value": self.critical_value,
            "rows": self.to_frame().to_dict(orient="records"),
        }


def _check_cells(cells) -> np.ndarray:
    arr = np.asarray(cells)
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise FairboundError(
            f"cells must have shape (groups, classes, classes); got shape {arr.shape}",
            param="cells",
        )
    if arr.size == 0:
        raise FairboundError(f"cells must not be empty; got shape {arr.shape}", param="cells")
    if not np.issubdtype(arr.dtype, np.number) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise FairboundError(
            "cells must hold non-negative integer counts; got "
            f"{arr.ravel()[np.argmax((arr < 0) | (arr != np.round(arr)))]!r}",
            param="cells",
        )
    return arr.astype(np.int64)


def _comparisons(
    comparison: str, names: Sequence[str], reference
) -> list[tuple[int, int]]:
    """Index pairs ``(a, b)``; ``b == -1`` means "every other group" (vs-rest)."""
    G = len(names)
    comparison = check_choice(comparison, ("pairwise", "vs-rest", "vs-reference"), "comparison")
    if comparison == "pairwise":
        return [(i, j) for i in range(G) for j in range(i + 1, G)]
    if comparison == "vs-rest":
        return [(i, -1) for i in range(G)]
    if reference is None:
        raise FairboundError(
            "reference must name a group when comparison='vs-reference'; got None",
            param="reference",
        )
    r = list(names).index(check_choice(reference, names, "reference"))
    return [(i, r) for i in range(G) if i != r]


def _metric_items(metrics, K: int, classes, favourable: str = "positive"
                  ) -> list[tuple[str, str, object, CellMetric]]:
    """Expand registry names and callables into ``(metric, component, class, f)`` items."""
    from functools import partial

    from fairbound.metrics import get_metric, oriented

    if isinstance(metrics, str) or not isinstance(metrics, Mapping | Sequence):
        metrics = [metrics]
    if classes is None:
        ks = [1] if K == 2 else list(range(K))
    else:
        ks = [int(k) for k in np.atleast_1d(classes)]
        bad = [k for k in ks if not 0 <= k < K]
        if bad:
            raise FairboundError(
                f"classes must be indices in 0..{K - 1}; got {bad[0]!r}", param="classes"
            )
    pairs = list(metrics.items()) if isinstance(metrics, Mapping) else [(m, m) for m in metrics]
    items: list[tuple[str, str, object, CellMetric]] = []
    for key, f in pairs:
        if callable(f):
            items.append((str(key), str(key), None, f))
            continue
        if not isinstance(f, str):
            raise FairboundError(
                "metrics must hold registered metric names or functions of counts; "
                f"got {f!r}",
                param="metrics",
            )
        metric = get_metric(f)
        if not metric.components:
            raise FairboundError(
                f"metric {metric.name!r} is not a function of confusion counts; "
                f"got {f!r}",
                param="metrics",
            )
        for comp in (oriented(c, favourable) for c in metric.components):
            for k in ks if comp.per_class else [None]:
                func = partial(comp.counts, k=0 if k is None else k)
                items.append((metric.name, comp.name, k, func))
    if not items:
        raise FairboundError("metrics must name at least one metric; got none", param="metrics")
    return items


def _validate_bootstrap_cells(
    cells, metrics, groups, comparison, reference, n_resamples, confidence_level, method,
    classes,
):
    arr = _check_cells(cells)
    G = arr.shape[0]
    if groups is None:
        names = [str(g) for g in range(G)]
    else:
        names = [str(g) for g in groups]
        if len(names) != G:
            raise FairboundError(
                f"groups must name the {G} groups of cells; got {len(names)} names",
                param="groups",
            )
    items = _metric_items(metrics, arr.shape[1], classes)
    ref = None if reference is None else str(reference)
    pairs = _comparisons(str(comparison), names, ref)
    if not pairs:
        raise FairboundError(
            f"cells must hold at least two groups to compare; got {G}", param="cells"
        )
    B = check_n_resamples(n_resamples)
    rho = check_confidence_level(confidence_level)
    check_choice(method, BOOTSTRAP_METHODS, "method")
    return arr, names, items, pairs, B, rho


def _gaps(cells: np.ndarray, items, pairs) -> np.ndarray:
    """Cost gaps of every metric and comparison: shape ``cells.shape[:-3] + (J,)``."""
    need_rest = any(b < 0 for _, b in pairs)
    rest = cells.sum(axis=-3, keepdims=True) - cells if need_rest else None
    cols = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for *_, f in items:
            den, num = f(cells)
            rate = np.asarray(num, dtype=float) / np.asarray(den, dtype=float)
            if need_rest:
                rden, rnum = f(rest)
                rrate = np.asarray(rnum, dtype=float) / np.asarray(rden, dtype=float)
            for a, b in pairs:
                other = rrate[..., a] if b < 0 else rate[..., b]
                cols.append(rate[..., a] - other)
    return np.stack(cols, axis=-1)


def resample_cells(
    cells, *, n_resamples: int = 1000, seed: int | np.random.Generator | None = 0
) -> np.ndarray:
    """Stratified bootstrap resamples of per-group confusion counts.

    Parameters
    ----------
    cells : array_like of int, shape (G, K, K)
        Counts per group, true label and prediction.
    n_resamples : int
        Number of resamples ``B``.
    seed : int or numpy.random.Generator, optional
        Seed; the same seed gives the same resamples.

    Returns
    -------
    numpy.ndarray of int64, shape (B, G, K, K)
        Each group's counts redrawn as ``Multinomial(n_g, cells[g] / n_g)``, which is the
        distribution of the counts of ``n_g`` rows drawn with replacement from the group.

    Examples
    --------
    >>> boot = resample_cells([[[50, 10], [5, 35]], [[30, 5], [10, 55]]], n_resamples=3)
    >>> boot.shape, boot.sum(axis=(2, 3)).tolist()
    ((3, 2, 2, 2), [[100, 100], [100, 100], [100, 100]])
    """
    arr = _check_cells(cells)
    B = check_n_resamples(n_resamples)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return _resample(arr, B, rng)


def _resample(arr: np.ndarray, B: int, rng: np.random.Generator) -> np.ndarray:
    G, K, _ = arr.shape
    out = np.zeros((B, G, K, K), dtype=np.int64)
    flat = arr.reshape(G, K * K)
    for g in range(G):
        n_g = int(flat[g].sum())
        if n_g == 0:
            continue
        out[:, g] = rng.multinomial(n_g, flat[g] / n_g, size=B).reshape(B, K, K)
    return out


def _jackknife(arr: np.ndarray, items, pairs) -> list[tuple[np.ndarray, np.ndarray]]:
    """Leave-one-row-out gaps for every occupied cell, grouped by stratum (group)."""
    G, K, _ = arr.shape
    out = []
    for g in range(G):
        occupied = np.argwhere(arr[g] > 0)
        if occupied.size == 0:
            continue
        loo = np.repeat(arr[None], len(occupied), axis=0)
        loo[np.arange(len(occupied)), g, occupied[:, 0], occupied[:, 1]] -= 1
        theta = _gaps(loo, items, pairs)
        w = arr[g][occupied[:, 0], occupied[:, 1]].astype(float)
        # A leave-one-out statistic can be undefined (last row of a denominator); it then
        # carries no information about skewness and is left out.
        ok = np.all(np.isfinite(theta), axis=1)
        out.append((theta[ok], w[ok]))
    return out


def bootstrap_cells(
    cells,
    *,
    metrics: Mapping[str, CellMetric] | Sequence[str] | str,
    groups: Sequence | None = None,
    classes: Sequence[int] | int | None = None,
    comparison: str = "pairwise",
    reference=None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: BootstrapKind = "percentile",
    seed: int | None = 0,
) -> BootstrapResult:
    """Vectorised stratified bootstrap of every metric and comparison of an audit.

    Parameters
    ----------
    cells : array_like of int, shape (G, K, K)
        Confusion counts per group (group x true label x prediction).
    metrics : str, sequence of str, or mapping of str to callable
        Registered metric names (see :mod:`fairbound.metrics`; every component of each is
        bootstrapped) or functions ``f(cells) -> (denominator, cost_count)`` vectorised over
        leading axes: given counts of shape ``(..., G, K, K)`` they return two arrays of
        shape ``(..., G)``.  The cost rate of a group is ``cost_count / denominator``.
    groups : sequence, optional
        Names of the ``G`` groups (default ``'0'``, ``'1'``, ...).
    classes : int or sequence of int, optional
        Class indices ``k`` for the one-vs-rest components of registered metrics (default:
        ``1`` for two classes, every class otherwise).
    comparison : {'pairwise', 'vs-rest', 'vs-reference'}
        Which gaps to report: every pair ``(A, B)`` with A before B, each group against all
        others pooled, or each group against ``reference``.
    reference : optional
        The reference group for ``comparison='vs-reference'``.
    n_resamples : int
        Number of resamples ``B``.
    confidence_level : float
        In (0, 1).
    method : {'percentile', 'bca'}
        Marginal interval per column.
    seed : int, optional
        Seed; the same seed gives the same output.

    Returns
    -------
    BootstrapResult
        Estimates, marginal intervals, the max-|t| simultaneous band and the bootstrap
        distribution.

    Notes
    -----
    Each group's counts are redrawn as ``Multinomial(n_g, cells[g] / n_g)``, which is the
    exact distribution of a row bootstrap stratified by group, so the cost does not grow
    with the number of rows.  Percentile intervals use the ``(1 -/+ confidence_level)/2``
    quantiles of the resampled gaps; BCa (Efron & Tibshirani 1993, eq. 15.36) adds the bias
    correction ``z0`` (ties counted half) and an acceleration from the exact jackknife, each
    left-out row being one of the ``G K^2`` cells.  The simultaneous band is
    ``estimate +/- q * se`` with ``se`` the bootstrap standard deviation of each column and
    ``q`` the ``confidence_level`` quantile of ``max_j |gap*_j - estimate_j| / se_j``
    (Davison & Hinkley 1997, sec. 4.2.5); it covers all columns at once asymptotically.

    None of these intervals is a finite-sample guarantee: with small groups or rare costs
    their coverage falls below nominal (the bootstrap of a proportion of 0 is a point).
    A resample that leaves a denominator empty gives NaN for that column; it is dropped
    from the quantiles and counted in ``n_undefined``.

    References
    ----------
    B. Efron and R. J. Tibshirani. *An Introduction to the Bootstrap*. Chapman & Hall, 1993.
    A. C. Davison and D. V. Hinkley. *Bootstrap Methods and their Application*. CUP, 1997.

    Examples
    --------
    >>> import numpy as np
    >>> cells = np.array([[[500, 100], [50, 350]], [[300, 50], [100, 550]]])
    >>> def selection_rate(c):  # P(prediction = 1), cost = predicted positive
    ...     return c.sum(axis=(-2, -1)), c[..., :, 1].sum(axis=-1)
    >>> res = bootstrap_cells(cells, metrics={"dp": selection_rate}, groups=["a", "b"],
    ...                       n_resamples=500, seed=1)
    >>> round(float(res.estimate[0]), 3)
    -0.15
    >>> bool(res.low[0] < -0.15 < res.high[0])
    True
    """
    arr, names, items, pairs, B, rho = _validate_bootstrap_cells(
        cells, metrics, groups, comparison, reference, n_resamples, confidence_level, method,
        classes,
    )
    return _run(arr, names, items, pairs, B, rho, method, seed)


def _summarise(dist, est, acceleration, rho, method):
    """Marginal intervals, standard errors and the max-|t| band of a bootstrap distribution."""
    lo_q, hi_q = _interval_levels(method, dist, est, 1.0 - rho, acceleration)
    low = _column_quantiles(dist, lo_q)
    high = _column_quantiles(dist, hi_q)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        # a column with fewer than two defined resamples has no standard error (NaN)
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(dist, axis=0, ddof=1)
        t = np.abs(dist - est[None, :]) / se[None, :]
    usable = np.isfinite(se) & (se > 0)
    if usable.any():
        tmax = np.nanmax(np.where(np.isfinite(t[:, usable]), t[:, usable], np.nan), axis=1)
        tmax = tmax[np.isfinite(tmax)]
        q = float(np.quantile(tmax, rho)) if tmax.size else math.nan
    else:
        q = 0.0
    # A column with no bootstrap spread (e.g. every cost 0) has a zero-width band.
    sim_half = np.where(usable, q * np.nan_to_num(se), 0.0)
    return dict(low=low, high=high, standard_error=se, critical_value=q,
                simultaneous_low=est - sim_half, simultaneous_high=est + sim_half)


def _run(arr, names, items, pairs, B, rho, method, seed) -> BootstrapResult:
    rng = np.random.default_rng(seed)
    est = _gaps(arr, items, pairs)
    dist = _gaps(_resample(arr, B, rng), items, pairs)
    # The exact jackknife costs one evaluation per occupied cell; kept so that
    # BootstrapResult.recompute can switch to BCa without the data.
    acc = _acceleration(_jackknife(arr, items, pairs))
    summary = _summarise(dist, est, acc, rho, method)
    labels_a, labels_b, labels_m, labels_c, labels_k = [], [], [], [], []
    for name, comp, k, _ in items:
        for a, b in pairs:
            labels_m.append(name)
            labels_c.append(comp)
            labels_k.append(k)
            labels_a.append(names[a])
            labels_b.append("rest" if b < 0 else names[b])
    return BootstrapResult(
        metric=tuple(labels_m),
        component=tuple(labels_c),
        label=tuple(labels_k),
        group_a=tuple(labels_a),
        group_b=tuple(labels_b),
        estimate=est,
        n_undefined=np.isnan(dist).sum(axis=0),
        method=method,
        confidence_level=rho,
        n_resamples=B,
        seed=seed if not isinstance(seed, np.random.Generator) else None,
        distribution=dist,
        acceleration=acc,
        **summary,
    )
