"""Prediction-powered intervals for ratio metrics of a 0/1 classifier.

TPR, FPR, precision, ... from cell counts, and the gaps between two groups (delta method).

Part of :mod:`fairbound.stats.ppi`; its docstring describes the estimators.
"""

from __future__ import annotations

import math

import numpy as np

from fairbound._docs import fill
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import (
    _DENOMINATOR_AT_ZERO,
    PPICounts,
    PPIInterval,
    _check_tuned,
    _check_type,
    _level,
    _ratio_tables,
)
from fairbound.stats.ppi.means import (
    _check_variance,
    _jackknife_term,
)
from fairbound.stats.ppi.wald import (
    _one_group,
    _two_groups,
)


# --------------------------------------------------------------------------- ratios
def _wmean(x, w, tot):
    return float(x @ w) / tot


def _wcov(x, y, w, tot):
    mx, my = _wmean(x, w, tot), _wmean(y, w, tot)
    return float(((x - mx) * (y - my)) @ w) / tot


_LAB_CELLS = tuple(g.ravel() for g in np.indices((2, 2, 2)))   # y, f, pred
_UNL_CELLS = tuple(g.ravel() for g in np.indices((2, 2)))      # f, pred


def _ratio_core(w, wu, num, den, mode: str):
    """Estimates, plug-in variances and lambdas of ``E[num] / E[den]``, vectorised.

    ``w``: labeled counts, shape ``(B, 8)`` over cells ``[y, f, pred]``; ``wu``: unlabeled
    counts ``(B, 4)`` over ``[f, pred]``; ``mode``: 'tuned', 'one' (lambda = 1) or 'zero'
    (labeled only).  Every quantity is a polynomial in the cell means of a few products of
    ``U = num``, ``V = den`` (gold label) and ``U~, V~`` (proxy label), computed by one
    matrix product.  Returns three arrays of length ``B`` (estimate NaN where the
    denominator is estimated at 0 or below).
    """
    w, wu = np.atleast_2d(w).astype(float), np.atleast_2d(wu).astype(float)
    n, N = w.sum(1), wu.sum(1)
    Ns = np.where(N > 0, N, 1.0)
    y, f, p = _LAB_CELLS
    u, v, uh, vh = num[y, p], den[y, p], num[f, p], den[f, p]
    fu, pu = _UNL_CELLS
    a, b = num[fu, pu], den[fu, pu]
    L = (w @ np.column_stack([u, v, uh, vh, u * u, v * v, uh * uh, vh * vh, u * v, u * uh,
                              u * vh, v * uh, v * vh, uh * vh])) / n[:, None]
    (Lu, Lv, Luh, Lvh, Luu, Lvv, Luhuh, Lvhvh, Luv, Luuh, Luvh, Lvuh, Lvvh, Luhvh) = L.T
    U = (wu @ np.column_stack([a, b, a * a, b * b, a * b])) / Ns[:, None]
    Ua, Ub, Uaa, Ubb, Uab = U.T

    if mode == "zero":
        lam = np.zeros_like(n)
    elif mode == "one":
        lam = np.ones_like(n)
    else:
        tu, tv = Lu - Luh + Ua, Lv - Lvh + Ub       # pilot (lambda = 1), as ppi_py
        bad = ~(tv > 0)
        tu, tv = np.where(bad, Lu, tu), np.where(bad, Lv, tv)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(tv > 0, tu / tv, 0.0)
            # influence function phi = U - r V and its proxy version phi~ = U~ - r V~
            cov = (Luuh - r * (Luvh + Lvuh) + r * r * Lvvh) - (Lu - r * Lv) * (Luh - r * Lvh)
            m = n + N
            s1 = n * (Luh - r * Lvh) + N * (Ua - r * Ub)
            s2 = (n * (Luhuh - 2 * r * Luhvh + r * r * Lvhvh)
                  + N * (Uaa - 2 * r * Uab + r * r * Ubb))
            vp = np.maximum(s2 - s1 * s1 / m, 0.0) / np.maximum(m - 1, 1)
            lam = np.where((vp > 1e-15) & (N > 0), cov / ((1 + n / Ns) * vp), 0.0)
        lam = np.clip(lam, 0.0, 1.0)
    lam = np.where(N > 0, lam, 0.0)
    tu = Lu - lam * Luh + lam * Ua
    tv = Lv - lam * Lvh + lam * Ub
    # covariance of the rectifiers (U - lam U~, V - lam V~) on the labeled rows, and of the
    # proxy's (U~, V~) on the unlabeled rows
    mu_u, mu_v = Lu - lam * Luh, Lv - lam * Lvh
    s_uu = np.maximum(Luu - 2 * lam * Luuh + lam * lam * Luhuh - mu_u * mu_u, 0.0) / n
    s_vv = np.maximum(Lvv - 2 * lam * Lvvh + lam * lam * Lvhvh - mu_v * mu_v, 0.0) / n
    s_uv = (Luv - lam * (Luvh + Lvuh) + lam * lam * Luhvh - mu_u * mu_v) / n
    l2 = lam * lam / Ns
    s_uu = s_uu + l2 * np.maximum(Uaa - Ua * Ua, 0.0)
    s_vv = s_vv + l2 * np.maximum(Ubb - Ub * Ub, 0.0)
    s_uv = s_uv + l2 * (Uab - Ua * Ub)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = tv > 0
        g0 = np.where(ok, 1.0 / tv, np.nan)
        g1 = np.where(ok, -tu / (tv * tv), np.nan)
        var = np.maximum(g0 * g0 * s_uu + 2 * g0 * g1 * s_uv + g1 * g1 * s_vv, 0.0)
        est = np.where(ok, tu / tv, np.nan)
    return est, var, lam


def _ratio_parts(c: PPICounts, num, den, tuned: bool, proxy: bool = True,
                 variance: str = "plugin"):
    """(estimate, variance, lambda, variance method) of one group's ratio.

    The jackknife evaluates the full sample and every leave-one-out sample (one per
    non-empty cell, labeled and unlabeled) in one vectorised call.
    """
    if c.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    mode = "zero" if not proxy else ("tuned" if tuned else "one")
    if mode == "one" and c.n_unlabeled == 0:
        raise NotEstimable("PPI with lambda = 1 needs unlabeled rows (tuned=True falls "
                           "back to the labeled rows alone)")
    w, wu = c.labeled.ravel(), c.unlabeled.ravel()
    jack = mode == "tuned" and variance in ("auto", "jackknife")
    W, WU = [w[None, :]], [wu[None, :]]
    if jack:
        lab_cells, unl_cells = np.flatnonzero(w), np.flatnonzero(wu)
        drop = np.tile(w, (lab_cells.size, 1))
        drop[np.arange(lab_cells.size), lab_cells] -= 1
        drop_u = np.tile(wu, (unl_cells.size, 1))
        drop_u[np.arange(unl_cells.size), unl_cells] -= 1
        W += [drop, np.tile(w, (unl_cells.size, 1))]
        WU += [np.tile(wu, (lab_cells.size, 1)), drop_u]
    ests, vars_, lams = _ratio_core(np.vstack(W), np.vstack(WU), num, den, mode)
    est, var, lam = float(ests[0]), float(vars_[0]), float(lams[0])
    if not math.isfinite(est):
        raise NotEstimable(_DENOMINATOR_AT_ZERO)
    if not jack or not np.all(np.isfinite(ests)):
        return est, var, lam, "plugin"
    total, first = 0.0, 1
    for counts, cells in ((w, lab_cells), (wu, unl_cells)):
        loo = ests[first:first + cells.size]
        first += cells.size
        size = float(counts.sum())
        if size < 2:
            continue
        total += _jackknife_term(loo, counts[cells].astype(float), size)
    return est, total, lam, "jackknife"


@fill
def ppi_ratio_interval(counts: PPICounts, confidence_level: float = 0.95, *,
                       metric="tpr", tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for one group's ratio metric (TPR, FPR, precision...).

    Parameters
    ----------
    counts : PPICounts
        The group's counts.
    confidence_level : float
        In (0, 1).
    metric : str or (array_like, array_like)
        A name in :data:`RATIO_METRICS` (``'tpr'``, ``'fpr'``, ``'precision'``, ...) or a
        pair of 2x2 tables ``(num[y, pred], den[y, pred])``.
    tuned : bool
        PPI++ power tuning (default); ``False``: ``lambda = 1``.
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of the tuned ratio: the delta method at the estimated ``lambda``
        (``'plugin'``) or the two-sample jackknife over the count cells, re-tuning
        ``lambda`` each time (``'auto'``, the default, and ``'jackknife'``; the plug-in is
        used when a leave-one-out estimate is not estimable, and ``variance`` of the
        result says which).

    {{ppi_ratio_raises}}

    Examples
    --------
    >>> c = PPICounts(labeled=[[[40, 5], [4, 1]], [[2, 3], [6, 39]]],
    ...               unlabeled=[[400, 60], [70, 470]])
    >>> r = ppi_ratio_interval(c, metric="tpr")
    >>> round(r.estimate, 4), round(r.low, 4), round(r.high, 4)
    (0.8902, 0.8181, 0.9624)
    """
    _check_type(counts, PPICounts, "counts")
    _, z = _level(confidence_level)
    num, den, _ = _ratio_tables(metric)
    return _one_group(z, lambda: _ratio_parts(counts, num, den, _check_tuned(tuned), True,
                                              _check_variance(variance)))


def _ratio_gap(a, b, confidence_level, metric, tuned, proxy, variance):
    _check_type(a, PPICounts, "a")
    _check_type(b, PPICounts, "b")
    _, z = _level(confidence_level)
    num, den, _ = _ratio_tables(metric)
    tuned = _check_tuned(tuned)
    variance = _check_variance(variance)
    return _two_groups(a, b, z, lambda g: _ratio_parts(g, num, den, tuned, proxy, variance))


def ppi_ratio_gap_interval(a: PPICounts, b: PPICounts, confidence_level: float = 0.95, *,
                           metric="tpr", tuned: bool = True,
                           variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for the gap of a ratio metric between two groups.

    Per group, numerator and denominator are PPI means with one ``lambda`` (PPI++-tuned on
    the ratio's influence function unless ``tuned=False``); the ratio's variance is the
    delta method with their joint covariance (module docstring); the groups' variances
    add.  ``metric='tpr'`` gives the equal-opportunity gap; ``variance`` as in
    :func:`ppi_ratio_interval`.

    Raises
    ------
    NotEstimable
        When a group has fewer than 2 labeled rows or a denominator estimated at 0.

    Examples
    --------
    >>> a = PPICounts(labeled=[[[40, 5], [4, 1]], [[2, 3], [6, 39]]],
    ...               unlabeled=[[400, 60], [70, 470]])
    >>> b = PPICounts(labeled=[[[45, 2], [3, 0]], [[3, 7], [5, 35]]],
    ...               unlabeled=[[420, 30], [90, 460]])
    >>> r = ppi_ratio_gap_interval(a, b, 0.95, metric="tpr")
    >>> lab = classical_ratio_gap_interval(a, b, 0.95, metric="tpr")
    >>> round(r.estimate, 4), round(r.width / lab.width, 2)
    (0.0415, 0.71)
    """
    return _ratio_gap(a, b, confidence_level, metric, tuned, True, variance)


def classical_ratio_gap_interval(a: PPICounts, b: PPICounts, confidence_level: float = 0.95,
                                 *, metric="tpr") -> PPIInterval:
    """Labeled-only delta-method (Wald) interval for the gap of a ratio metric.

    The comparison for :func:`ppi_ratio_gap_interval` (``lambda = 0``): per group the
    ratio of the labeled means with the delta-method variance.
    """
    return _ratio_gap(a, b, confidence_level, metric, True, False, "plugin")
