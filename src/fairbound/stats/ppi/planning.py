"""How many labels a prediction-powered gap needs.

The Neyman split of a label budget between two groups and the labels needed for a target half-width.

Part of :mod:`fairbound.stats.ppi`; its docstring describes the estimators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import (
    LabelPlan,
    PPICounts,
    PPIStats,
    _check_tuned,
    _count,
    _level,
    _number,
    _ratio_tables,
)
from fairbound.stats.ppi.ratios import _ratio_parts, _wcov, _wmean


# --------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class _Moments:
    var_y: float
    var_f: float
    cov: float
    rows: int      # M = labeled + unlabeled
    current: int   # labeled now


def _moments(g, param: str, metric) -> _Moments:
    if isinstance(g, PPIStats):
        if metric is not None:
            raise FairboundError("metric applies to PPICounts; PPIStats is already one mean",
                                 param="metric")
        if g.n < 2:
            raise NotEstimable(f"{param}: planning needs at least 2 labeled rows")
        vf = g.var_f_pooled
        return _Moments(g.var_y, vf if vf == vf else 0.0, g.cov_yf, g.n + g.n_unlabeled, g.n)
    if isinstance(g, PPICounts):
        num, den, _ = _ratio_tables("tpr" if metric is None else metric)
        n, N = g.n, g.n_unlabeled
        if n < 2:
            raise NotEstimable(f"{param}: planning needs at least 2 labeled rows")
        try:
            est = _ratio_parts(g, num, den, True)[0]
        except NotEstimable as exc:
            raise NotEstimable(f"{param}: {exc}") from None
        y, f, p = (x.ravel() for x in np.indices((2, 2, 2)))
        w = g.labeled.ravel()
        fu, pu = (x.ravel() for x in np.indices((2, 2)))
        wu = g.unlabeled.ravel()
        # influence function of the ratio, (U - R V) / E[V], gold and proxy versions
        ev = _wmean(den[y, p], w, n)
        if not ev > 0:
            raise NotEstimable(f"{param}: the metric's denominator is 0 on the labeled rows")
        phi = (num[y, p] - est * den[y, p]) / ev
        phih = (num[f, p] - est * den[f, p]) / ev
        phiu = (num[fu, pu] - est * den[fu, pu]) / ev
        allw = np.concatenate([w, wu])
        allv = np.concatenate([phih, phiu])
        m = n + N
        vf = _wcov(allv, allv, allw, m) * m / (m - 1)
        return _Moments(_wcov(phi, phi, w, n), vf, _wcov(phi, phih, w, n), m, n)
    raise FairboundError(f"{param} must be a PPIStats or PPICounts; got {type(g).__name__}",
                         param=param)


def _group_var(m: _Moments, n, mode: str) -> np.ndarray:
    """Predicted variance of a group's estimate with ``n`` labels (vectorised over n)."""
    n = np.asarray(n, dtype=float)
    N = m.rows - n
    labeled_only = m.var_y / n
    if mode == "classical":
        return labeled_only
    with np.errstate(divide="ignore", invalid="ignore"):
        if mode == "ppi":
            lam = np.ones_like(n)
        elif m.var_f > 0:
            lam = np.clip(m.cov * N / (m.var_f * m.rows), 0.0, 1.0)
        else:
            lam = np.zeros_like(n)
        v = (m.var_y - 2 * lam * m.cov + lam * lam * m.var_f) / n + lam * lam * m.var_f / N
    return np.where(N > 0, np.maximum(v, 0.0), labeled_only)


def _mode(tuned, proxy) -> str:
    tuned = _check_tuned(tuned)
    if not isinstance(proxy, bool | np.bool_):
        raise FairboundError(f"proxy must be True or False; got {proxy!r}", param="proxy")
    return "classical" if not proxy else ("ppi++" if tuned else "ppi")


def _bounds(m: _Moments, respect_current: bool, mode: str) -> tuple[int, int]:
    lo = m.current if respect_current else 2
    # lambda = 1 needs an unlabeled row; the other modes may label every row
    return max(lo, 2), m.rows - 1 if mode == "ppi" else m.rows


def _best_split(ma, mb, budget, mode, respect_current):
    """Integer ``n_a`` minimising the gap variance for ``budget`` labels (convex search)."""
    la, ha = _bounds(ma, respect_current, mode)
    lb, hb = _bounds(mb, respect_current, mode)
    lo, hi = max(la, budget - hb), min(ha, budget - lb)
    if lo > hi:
        return None

    def total(x):
        x = np.asarray(x)
        return _group_var(ma, x, mode) + _group_var(mb, budget - x, mode)

    while hi - lo > 64:   # the variance is convex in n_a (module docstring): ternary search
        m1 = lo + (hi - lo) // 3
        m2 = hi - (hi - lo) // 3
        if total(m1) <= total(m2):
            hi = m2
        else:
            lo = m1
    xs = np.arange(lo, hi + 1)
    vals = total(xs)
    i = int(np.argmin(vals))
    return int(xs[i]), float(vals[i])


def neyman_allocation(stats_a, stats_b, budget: int, *, tuned: bool = True,
                      proxy: bool = True, metric=None,
                      respect_current: bool = True) -> LabelPlan:
    """Split ``budget`` gold labels between two groups to minimise the gap's variance.

    The predicted variance of each group's estimate with ``n`` labels out of its ``M`` rows
    (the others unlabeled) uses the moments measured now (module docstring); the split
    minimises their sum (Neyman allocation; exact integer optimum of a convex function).

    Parameters
    ----------
    stats_a, stats_b : PPIStats or PPICounts
        Current statistics of groups A and B (PPICounts with ``metric``, default ``'tpr'``).
    budget : int
        Total gold labels in both groups, those already collected included.
    tuned, proxy : bool
        PPI++ (default), PPI with ``lambda = 1`` (``tuned=False``) or labeled-only
        (``proxy=False``).
    metric : str, optional
        The ratio metric, for PPICounts.
    respect_current : bool
        Whether each group keeps at least the labels it has (default); otherwise at least 2.

    Returns
    -------
    LabelPlan

    Raises
    ------
    FairboundError
        Naming ``budget`` when it is not a whole number or no split is feasible (below the
        labels already collected, or above the rows available).

    Examples
    --------
    >>> a = PPIStats.from_arrays([0, 1] * 50, [0, 1] * 50, [0, 1] * 2000)
    >>> b = PPIStats.from_arrays([0, 0, 0, 1] * 25, [0, 1, 0, 1] * 25, [0, 1] * 2000)
    >>> plan = neyman_allocation(a, b, 1000)
    >>> plan.n_a, plan.n_b
    (100, 900)
    """
    mode = _mode(tuned, proxy)
    if not isinstance(respect_current, bool | np.bool_):
        raise FairboundError(f"respect_current must be True or False; got {respect_current!r}",
                             param="respect_current")
    budget = _count(budget, "budget")
    ma, mb = _moments(stats_a, "stats_a", metric), _moments(stats_b, "stats_b", metric)
    best = _best_split(ma, mb, budget, mode, bool(respect_current))
    if best is None:
        lo = sum(_bounds(m, bool(respect_current), mode)[0] for m in (ma, mb))
        top = sum(_bounds(m, bool(respect_current), mode)[1] for m in (ma, mb))
        raise FairboundError(f"budget must be between {lo} and {top} (labels "
                             f"already collected, rows available); got {budget}",
                             param="budget")
    n_a, v = best
    return LabelPlan(n_a, budget - n_a, budget, math.sqrt(v))


def labels_needed(stats_a, stats_b, half_width: float, confidence_level: float = 0.95, *,
                  tuned: bool = True, proxy: bool = True, metric=None,
                  respect_current: bool = True) -> LabelPlan | None:
    """Fewest gold labels (Neyman-allocated) for a gap interval of ``half_width``.

    The smallest total ``n_a + n_b`` whose best split (:func:`neyman_allocation`) gives
    ``z * se <= half_width``, by bisection (the best variance does not increase with the
    budget).  The moments are those measured now, so it is an estimate, like every sample
    size.

    Returns
    -------
    LabelPlan or None
        ``None`` when even labeling every row would not reach ``half_width``.

    Raises
    ------
    FairboundError
        Naming ``half_width`` when it is not a positive number.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random(10000) < 0.3
    >>> f = np.where(rng.random(10000) < 0.95, y, ~y)
    >>> s = PPIStats.from_arrays(y[:300], f[:300], f[300:])
    >>> ppi = labels_needed(s, s, 0.03)
    >>> lab = labels_needed(s, s, 0.03, proxy=False)
    >>> ppi.total, lab.total
    (667, 3716)
    """
    mode = _mode(tuned, proxy)
    h = _number(half_width, "half_width")
    if h <= 0:
        raise FairboundError(f"half_width must be a positive number; got {half_width!r}",
                             param="half_width")
    if not isinstance(respect_current, bool | np.bool_):
        raise FairboundError(f"respect_current must be True or False; got {respect_current!r}",
                             param="respect_current")
    _, z = _level(confidence_level)
    target = (h / z) ** 2
    ma, mb = _moments(stats_a, "stats_a", metric), _moments(stats_b, "stats_b", metric)
    rc = bool(respect_current)
    lo = _bounds(ma, rc, mode)[0] + _bounds(mb, rc, mode)[0]
    hi = _bounds(ma, rc, mode)[1] + _bounds(mb, rc, mode)[1]
    def best(budget):
        return _best_split(ma, mb, budget, mode, rc)

    # The best variance is convex in the budget (an infimal convolution of convex
    # functions): non-increasing for PPI++ and labeled-only; with lambda = 1 it rises again
    # when few rows stay unlabeled.  Find its minimum, then the first budget at the target.
    a, top = lo, hi
    while top - a > 64:
        m1, m2 = a + (top - a) // 3, top - (top - a) // 3
        if best(m1)[1] <= best(m2)[1]:
            top = m2
        else:
            a = m1
    hi = min(range(a, top + 1), key=lambda b: best(b)[1])
    best_hi = best(hi)
    if best_hi[1] > target:
        return None
    best_lo = best(lo)
    if best_lo[1] <= target:
        hi, best_hi = lo, best_lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        b = best(mid)
        if b[1] <= target:
            hi, best_hi = mid, b
        else:
            lo = mid
    n_a, v = best_hi
    return LabelPlan(n_a, hi - n_a, hi, math.sqrt(v))
