"""Prediction-powered intervals for means and for the gap between two groups' means.

PPI++ with a tuned ``lambda``, the labeled-only intervals, and the test of a shifted
proxy.

Part of :mod:`fairbound.stats.ppi`; its docstring describes the estimators.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from fairbound._docs import fill
from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import (
    PPIInterval,
    PPIStats,
    _check_tuned,
    _check_type,
    _level,
)
from fairbound.stats.ppi.wald import (
    _one_group,
    _two_groups,
    _wald,
)


# --------------------------------------------------------------------------- means
def _lambda(n, sy, sf, syf, sff, N, su, suu) -> float:
    """PPI++ ``lambda`` from raw sums (``ppi_py``'s plug-in, clipped to [0, 1])."""
    m = n + N
    if N == 0 or n == 0 or m < 2:
        return 0.0
    vp = max((sff + suu) / m - ((sf + su) / m) ** 2, 0.0) * m / (m - 1)
    if not vp > 0:
        return 0.0
    cov = syf / n - (sy / n) * (sf / n)
    return float(min(max(cov / ((1.0 + n / N) * vp), 0.0), 1.0))


def ppi_lambda(stats: PPIStats) -> float:
    """PPI++'s power-tuning ``lambda`` for a mean, clipped to ``[0, 1]``.

    ``Cov(Y, f) / ((1 + n / N) Var(f))`` with the covariance over the labeled rows
    (``ddof=0``) and the proxy's variance over all rows (``ddof=1``), exactly as
    ``ppi_py.ppi_mean_ci(..., lam=None)``.  0 when there are no unlabeled rows or the proxy
    is constant.

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> round(ppi_lambda(s), 4)
    0.2133
    """
    _check_type(stats, PPIStats, "stats")
    if stats.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    s = stats
    return _lambda(s.n, s.sum_y, s.sum_f, s.sum_yf, s.sum_f_sq, s.n_unlabeled,
                   s.sum_f_unlabeled, s.sum_f_unlabeled_sq)


def _mean_core(raw, tuned: bool) -> tuple[float, float, float]:
    """(estimate, plug-in variance, lambda) from ``(n, sy, syy, sf, sff, syf, N, su, suu)``."""
    n, sy, syy, sf, sff, syf, N, su, suu = raw
    lam = _lambda(n, sy, sf, syf, sff, N, su, suu) if tuned else 1.0
    my, mf = sy / n, sf / n
    vy, vf = max(syy / n - my * my, 0.0), max(sff / n - mf * mf, 0.0)
    cov = syf / n - my * mf
    est = my - lam * mf
    var = max(vy - 2 * lam * cov + lam * lam * vf, 0.0) / n
    if lam:
        mu = su / N
        est += lam * mu
        var += lam * lam * max(suu / N - mu * mu, 0.0) / N
    return est, var, lam


def _jackknife_term(loo: np.ndarray, ks: np.ndarray, size: float) -> float:
    """One part's term of the two-sample jackknife variance.

    ``(m - 1) / m`` times the sum of squares of the leave-one-out estimates ``loo`` about
    their mean, each counted ``ks`` times (the rows of its cell) out of ``m = size``.
    """
    m = float(loo @ ks) / size
    return (size - 1) / size * float(((loo - m) ** 2) @ ks)


def _mean_jackknife(raw, C: float) -> float:
    """Two-sample jackknife variance of the PPI++ mean, 0/1 costs (``lambda`` re-tuned)."""
    n, sy, syy, sf, sff, syf, N, su, suu = raw
    n11 = round(syf / (C * C))
    n10, n01 = round(sy / C) - n11, round(sf / C) - n11
    lab = {(C, C): n11, (C, 0.0): n10, (0.0, C): n01, (0.0, 0.0): n - n11 - n10 - n01}
    k1 = round(su / C)
    unl = {C: k1, 0.0: N - k1}
    total = 0.0
    for size, leave in (
        (n, [((n - 1, sy - y, syy - y * y, sf - f, sff - f * f, syf - y * f, N, su, suu), k)
             for (y, f), k in lab.items() if k > 0]),
        (N, [((n, sy, syy, sf, sff, syf, N - 1, su - f, suu - f * f), k)
             for f, k in unl.items() if k > 0]),
    ):
        if size < 2:
            continue
        ests = np.array([_mean_core(r, True)[0] for r, _ in leave])
        w = np.array([k for _, k in leave], dtype=float)
        total += _jackknife_term(ests, w, size)
    return total


_VARIANCES = ("auto", "jackknife", "plugin")


def _check_variance(variance) -> str:
    return check_choice(variance, _VARIANCES, "variance", fold=True)


def _mean_parts(stats: PPIStats, tuned: bool, variance: str = "plugin"):
    """(estimate, variance, lambda, variance method) of the PPI(++) mean."""
    if stats.n < 2:
        raise NotEstimable("PPI needs at least 2 labeled rows")
    if not tuned and stats.n_unlabeled == 0:
        raise NotEstimable("PPI with lambda = 1 needs unlabeled rows (tuned=True falls "
                           "back to the labeled rows alone)")
    s = stats
    raw = (s.n, s.sum_y, s.sum_y_sq, s.sum_f, s.sum_f_sq, s.sum_yf, s.n_unlabeled,
           s.sum_f_unlabeled, s.sum_f_unlabeled_sq)
    est, var, lam = _mean_core(raw, tuned)
    if variance == "jackknife" and not s.binary:
        raise FairboundError("variance='jackknife' needs 0/1 costs (the rows' values); use "
                             "'plugin' or 'auto'", param="variance")
    if tuned and variance in ("auto", "jackknife") and s.binary:
        return est, _mean_jackknife(raw, s.cost_max), lam, "jackknife"
    return est, var, lam, "plugin"


@fill
def ppi_mean_interval(stats: PPIStats, confidence_level: float = 0.95, *,
                      tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for one group's mean cost ``E[Y]``.

    Parameters
    ----------
    {{ppi_stats_level}}
    tuned : bool
        PPI++ power tuning (default); ``False`` is the original PPI (``lambda = 1``).
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of the tuned estimate: ``'plugin'`` is PPI++'s (and ``ppi_py``'s)
        plug-in variance at the estimated ``lambda``; ``'jackknife'`` the two-sample
        jackknife, which re-tunes ``lambda`` on every leave-one-out sample and so counts
        the noise of the estimated ``lambda`` (computable from the statistics of 0/1 costs
        only); ``'auto'`` (default) is the jackknife for 0/1 costs, the plug-in otherwise.
        With ``tuned=False`` it is always the plug-in (nothing is estimated).

    Returns
    -------
    PPIInterval
        Asymptotic.  With ``variance='plugin'`` it agrees with ``ppi_py.ppi_mean_ci``
        (``alpha = 1 - confidence_level``, ``lam=None`` when tuned, ``lam=1`` otherwise) to
        rounding; the estimate always does.

    Raises
    ------
    NotEstimable
        With fewer than 2 labeled rows (or no unlabeled rows and ``tuned=False``).

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> r = ppi_mean_interval(s, 0.9, variance="plugin")
    >>> round(r.estimate, 4), round(r.low, 4), round(r.high, 4)
    (0.536, 0.1987, 0.8733)
    >>> r = ppi_mean_interval(s, 0.9)  # 0/1 costs: jackknife standard error
    >>> r.variance, round(r.low, 4), round(r.high, 4)
    ('jackknife', 0.0941, 0.9779)
    """
    _check_type(stats, PPIStats, "stats")
    _, z = _level(confidence_level)
    return _one_group(z, lambda: _mean_parts(stats, _check_tuned(tuned),
                                             _check_variance(variance)))


def classical_mean_interval(stats: PPIStats, confidence_level: float = 0.95) -> PPIInterval:
    """Labeled-only Wald interval for ``E[Y]`` (plug-in ``ddof=0`` variance, as ``ppi_py``).

    Examples
    --------
    >>> s = PPIStats.from_arrays([0, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 1, 1, 0])
    >>> r = classical_mean_interval(s, 0.9)
    >>> round(r.low, 4), round(r.high, 4)
    (0.2396, 0.9604)
    """
    _check_type(stats, PPIStats, "stats")
    _, z = _level(confidence_level)
    if stats.n < 2:
        raise NotEstimable("the labeled-only interval needs at least 2 labeled rows")
    return _wald(stats.mean_y, math.sqrt(stats.var_y / stats.n), z, (0.0,))


def ppi_gap_interval(a: PPIStats, b: PPIStats, confidence_level: float = 0.95, *,
                     tuned: bool = True, variance: str = "auto") -> PPIInterval:
    """Prediction-powered CLT interval for ``E_A[Y] - E_B[Y]`` (independent groups).

    Each group's PPI(++) estimate with its own ``lambda``; the variances add.

    Parameters
    ----------
    a, b : PPIStats
        Statistics of groups A and B.
    confidence_level : float
        In (0, 1).
    tuned : bool
        PPI++ power tuning per group (default); ``False``: ``lambda = 1``.
    variance : {'auto', 'jackknife', 'plugin'}
        Standard error of each group's tuned estimate, as in :func:`ppi_mean_interval`
        (``'auto'``, the default: the jackknife for 0/1 costs, the plug-in otherwise).

    Raises
    ------
    NotEstimable
        When a group has fewer than 2 labeled rows.

    Examples
    --------
    >>> a = PPIStats.from_arrays([1, 1, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0, 1])
    >>> b = PPIStats.from_arrays([0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0, 0])
    >>> r = ppi_gap_interval(a, b)
    >>> round(r.estimate, 4), [round(x, 4) for x in r.lam]
    (0.6667, [0.2778, 0.2778])
    """
    _check_type(a, PPIStats, "a")
    _check_type(b, PPIStats, "b")
    _, z = _level(confidence_level)
    tuned = _check_tuned(tuned)
    variance = _check_variance(variance)
    return _two_groups(a, b, z, lambda g: _mean_parts(g, tuned, variance))

def classical_gap_interval(a: PPIStats, b: PPIStats,
                           confidence_level: float = 0.95) -> PPIInterval:
    """Labeled-only Wald interval for ``E_A[Y] - E_B[Y]`` (``ddof=0`` variances).

    The comparison for :func:`ppi_gap_interval`: the same conventions without the proxy.

    Examples
    --------
    >>> a = PPIStats.from_arrays([1, 1, 0, 1], [1, 1, 0, 0], [1, 1, 1, 0, 1])
    >>> b = PPIStats.from_arrays([0, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0, 0])
    >>> lo, hi = classical_gap_interval(a, b)
    >>> round(lo, 4), round(hi, 4)
    (-0.1001, 1.1001)
    """
    ra = classical_mean_interval(_check_type(a, PPIStats, "a"), confidence_level)
    rb = classical_mean_interval(_check_type(b, PPIStats, "b"), confidence_level)
    _, z = _level(confidence_level)
    return _wald(ra.estimate - rb.estimate, math.hypot(ra.std_error, rb.std_error), z,
                 (0.0, 0.0))


def proxy_shift_pvalue(stats: PPIStats) -> float:
    """Two-sided p-value that the proxy has the same mean on labeled and unlabeled rows.

    A check of the assumption that gold labels are a random sample of the group: if they
    are, the proxy's distribution is the same on both sides, and a small p-value says they
    are not (a z-test of the two means with ``ddof=1`` variances).  A large p-value does not
    prove random sampling.  NaN when either side has fewer than 2 rows.

    Examples
    --------
    >>> s = PPIStats.from_arrays([1, 0] * 50, [1, 0] * 50, [1, 1, 1, 0] * 100)
    >>> proxy_shift_pvalue(s) < 0.001
    True
    """
    _check_type(stats, PPIStats, "stats")
    n, N = stats.n, stats.n_unlabeled
    if n < 2 or N < 2:
        return math.nan
    v = stats.var_f * n / (n - 1) / n + stats.var_f_unlabeled * N / (N - 1) / N
    d = stats.mean_f - stats.mean_f_unlabeled
    if v <= 0:
        return 1.0 if d == 0 else 0.0
    return float(2 * _st.norm.sf(abs(d) / math.sqrt(v)))
