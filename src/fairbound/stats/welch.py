"""Welch's unequal-variance t interval for a difference of mean costs.

``delta_hat +- t_{nu, (1 + rho)/2} sqrt(s_A^2 / n_A + s_B^2 / n_B)`` with ``ddof=1``
variances and Welch-Satterthwaite degrees of freedom
``nu = (s_A^2/n_A + s_B^2/n_B)^2 / ((s_A^2/n_A)^2/(n_A-1) + (s_B^2/n_B)^2/(n_B-1))``.
Asymptotic for bounded costs (exact only for normal costs); it is the textbook choice for
fractional costs and matches ``scipy.stats.ttest_ind(equal_var=False).confidence_interval``.

References
----------
B. L. Welch. "The generalization of 'Student's' problem when several different population
variances are involved." Biometrika 34 (1947) 28-35.
"""

from __future__ import annotations

import math

import numpy as np

from fairbound.errors import FairboundError
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    register_interval,
)


def welch_interval(
    a: GroupStats, b: GroupStats, *, confidence_level: float = 0.95
) -> tuple[float, float]:
    """Welch t interval for ``E_A[cost] - E_B[cost]`` from sufficient statistics.

    Parameters
    ----------
    a, b : GroupStats
        Statistics of groups A and B, at least 2 examples each.
    confidence_level : float, default 0.95
        In (0, 1).

    Returns
    -------
    (float, float)
        Lower and upper bound; both equal the estimate when both variances are 0.

    Notes
    -----
    Asymptotic guarantee only: for 0/1 costs with rare errors and small groups the coverage
    falls well below nominal (see ``docs/methods.md``).

    References
    ----------
    B. L. Welch, Biometrika 34 (1947) 28-35.

    Examples
    --------
    >>> a = GroupStats.from_costs([0.1, 0.4, 0.3, 0.2, 0.5])
    >>> b = GroupStats.from_costs([0.0, 0.1, 0.2, 0.1])
    >>> lo, hi = welch_interval(a, b)
    >>> round(lo, 4), round(hi, 4)
    (0.0017, 0.3983)
    """
    for label, g in (("a", a), ("b", b)):
        if not isinstance(g, GroupStats):
            raise FairboundError(f"{label} must be a GroupStats; got {type(g).__name__}",
                                 param=label)
    rho = check_confidence_level(confidence_level)
    if a.n < 2 or b.n < 2:
        raise NotEstimable("the Welch interval needs at least 2 examples per group")
    d = a.mean - b.mean
    va, vb = a.var_unbiased / a.n, b.var_unbiased / b.n
    se2 = va + vb
    if se2 <= 0.0:
        return d, d
    nu = se2 * se2 / (va * va / (a.n - 1) + vb * vb / (b.n - 1))
    from scipy import special

    half = float(special.stdtrit(nu, 0.5 + rho / 2.0)) * math.sqrt(se2)
    return d - half, d + half


def _welch_many(a, b, rho):
    # welch_interval on StatsArrays (fairbound.stats.vectorised); NaN below 2 examples
    d = a.mean - b.mean
    va, vb = a.var_unbiased / a.n, b.var_unbiased / b.n
    se2 = va + vb
    nu = se2 * se2 / (va * va / (a.n - 1) + vb * vb / (b.n - 1))
    from scipy import special

    half = special.stdtrit(nu, 0.5 + rho / 2.0) * np.sqrt(se2)
    half = np.where(se2 > 0, half, 0.0)
    small = (a.n < 2) | (b.n < 2)
    return np.where(small, np.nan, d - half), np.where(small, np.nan, d + half)


@register_interval(
    "welch",
    guarantee="asymptotic",
    summary="Welch's unequal-variance t interval (Welch-Satterthwaite degrees of freedom).",
    reference="Welch, Biometrika 34 (1947) 28-35",
    aliases=("welch-t", "t"),
    vectorised=_welch_many,
)
def _welch(a, b, rho, *, rng=None):
    return welch_interval(a, b, confidence_level=rho)
