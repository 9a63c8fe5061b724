"""The asymptotic (Wald) step every prediction-powered estimator shares.

One- and two-group intervals from (estimate, variance, lambda), the rate tables of a
ratio metric or of the error rate, and the tuned ratio; used by the means and ratios here
and by :mod:`fairbound.stats.ppi_ipw` and :mod:`fairbound.stats.ppi_score`.
"""

from __future__ import annotations

import math

import numpy as np

from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi.counts import (
    _DENOMINATOR_AT_ZERO,
    PPIInterval,
    _check_type,
    _level,
    _ratio_tables,
)


def _rate_tables(metric) -> tuple[np.ndarray, np.ndarray]:
    """``(num, den)`` of a ratio metric, or ``(error, ones)`` for ``'error'`` (a mean)."""
    if isinstance(metric, str) and metric.strip().lower() == "error":
        return np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones((2, 2))
    num, den, _ = _ratio_tables(metric)
    return num, den


def _wald(est: float, se: float, z: float, lam: tuple[float, ...],
          variance: str = "plugin") -> PPIInterval:
    """The asymptotic interval ``est +- z se``."""
    return PPIInterval(est - z * se, est + z * se, est, se, lam, variance=variance)


def _with_method(result) -> tuple:
    """(estimate, variance, lambda, variance method); a result without the method is plug-in."""
    p = tuple(result)
    return p if len(p) == 4 else (*p, "plugin")


def _each_group(a, b, part) -> list:
    """``[part(a), part(b)]``; a group that is not estimable is named (A or B) in the error."""
    out = []
    for label, g in (("A", a), ("B", b)):
        try:
            out.append(part(g))
        except NotEstimable as exc:
            raise NotEstimable(f"group {label}: {exc}") from None
    return out


def _one_group(z, part) -> PPIInterval:
    """One group's interval from ``part()`` = (estimate, variance, lambda[, variance method])."""
    est, var, lam, how = _with_method(part())
    return _wald(est, math.sqrt(var), z, (lam,), how)


def _two_groups(a, b, z, part) -> PPIInterval:
    """Gap interval from ``part(group)`` = (estimate, variance, lambda[, variance method]).

    A group that is not estimable is named (A or B) in the error.
    """
    pa, pb = (_with_method(p) for p in _each_group(a, b, part))
    how = "jackknife" if "jackknife" in (pa[3], pb[3]) else "plugin"
    return _wald(pa[0] - pb[0], math.sqrt(pa[1] + pb[1]), z, (pa[2], pb[2]), how)


def _rate_interval(counts, cls, confidence_level, metric, part) -> PPIInterval:
    """One group's interval for a rate of :func:`_rate_tables` (a ratio or ``'error'``).

    ``counts`` must be a ``cls``; ``part(counts, num, den)`` returns (estimate, variance,
    lambda) for the metric's tables.
    """
    _check_type(counts, cls, "counts")
    _, z = _level(confidence_level)
    num, den = _rate_tables(metric)
    return _one_group(z, lambda: part(counts, num, den))


def _rate_gap_interval(a, b, cls, confidence_level, metric, part) -> PPIInterval:
    """Gap interval for a rate of :func:`_rate_tables`: :func:`_rate_interval` per group."""
    _check_type(a, cls, "a")
    _check_type(b, cls, "b")
    _, z = _level(confidence_level)
    num, den = _rate_tables(metric)
    return _two_groups(a, b, z, lambda g: part(g, num, den))


def _tuned_ratio(theta, best_lambda, num, den, proxy: bool) -> tuple[float, float, float]:
    """(ratio, denominator, lambda) of ``E[num] / E[den]`` from PPI means with one ``lambda``.

    ``theta(g, lam)`` is the PPI estimate of the mean of the 2x2 table ``g[y, pred]`` at
    ``lam``; ``best_lambda(h)`` the ``lambda`` in ``[0, 1]`` that minimises the variance of
    ``theta(h, .)``.  With ``proxy``, ``lambda`` is tuned on the influence function
    ``h = num - R den`` with a pilot ``R`` from ``lambda = 1`` (0 when the pilot is not
    estimable); without, ``lambda = 0`` (labeled only).

    Raises
    ------
    NotEstimable
        When the denominator is estimated at 0 or below.
    """
    lam = 0.0
    if proxy:
        pilot_v = theta(den, 1.0)
        pilot = theta(num, 1.0) / pilot_v if pilot_v > 0 else math.nan
        lam = best_lambda(num - pilot * den) if math.isfinite(pilot) else 0.0
    tv = theta(den, lam)
    if not tv > 0:
        raise NotEstimable(_DENOMINATOR_AT_ZERO)
    return theta(num, lam) / tv, tv, lam
