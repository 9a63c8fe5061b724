"""Bernstein-bounded unfairness (BBU), Ethayarajh (2020), and its corrected form.

The amortized disparity of example ``i`` is ``c_i f(x_i) / Pr[f(x) = f(x_i)]`` with
``f = +1`` for group A and ``-1`` for group B; its mean is the plug-in gap
``delta_bar = mean_A - mean_B``.  With ``gamma`` a lower bound on both groups' population
shares the amortized variables lie in ``[-C/gamma, C/gamma]`` and Bernstein's inequality

    P(|delta_bar - delta| > t) <= 2 exp(-n t^2 / (2 sigma^2 + (2 M / 3) t))

gives the half-width ``t`` for confidence ``rho`` in closed form.  The paper uses the
range constant ``M = C / gamma`` and plugs in the sample variance (``method="bbu"``).
Bernstein needs ``|d - delta| <= M``; with ``d`` in ``[-C/gamma, C/gamma]`` and ``|delta| <= C``
the safe constant is ``M = C/gamma + C``, and a guarantee needs an *upper bound* on
``sigma^2`` rather than its estimate (``method="bbu-corrected"``, worst case ``(C/gamma)^2``).

References
----------
K. Ethayarajh. "Is Your Classifier Actually Biased? Measuring Fairness under Uncertainty
with Bernstein Bounds." ACL 2020.
"""

from __future__ import annotations

import math

from fairbound._validate import check_float
from fairbound.errors import FairboundError
from fairbound.stats.base import GroupStats, check_confidence_level


def _log_term(confidence_level: float) -> float:
    """``-log((1 - rho) / 2)``, positive."""
    return -math.log((1.0 - confidence_level) / 2.0)


def check_gamma(gamma, param: str = "gamma") -> float:
    """Validate a group-share lower bound in ``(0, 0.5]``."""
    return check_float(gamma, param, low=0.0, high=0.5, low_open=True)


def range_constant(cost_max: float, gamma: float, *, corrected: bool) -> float:
    """The Bernstein range constant ``M``: ``C/gamma`` (paper) or ``C/gamma + C``."""
    return cost_max / gamma + (cost_max if corrected else 0.0)


def worst_case_variance(cost_max: float, gamma: float) -> float:
    """``(C / gamma)^2``, the largest variance of a variable in ``[-C/gamma, C/gamma]``."""
    return (cost_max / gamma) ** 2


def half_width(n: float, *, variance: float, M: float, confidence_level: float) -> float:
    """Bernstein half-width ``t`` for ``n`` examples.

    ``t = (B + sqrt(B^2 - 8 n sigma^2 log((1-rho)/2))) / (2 n)`` with
    ``B = -(2 M / 3) log((1-rho)/2)``.

    Examples
    --------
    >>> round(half_width(3160, variance=4.0, M=2.0, confidence_level=0.95), 5)
    0.09742
    """
    L = _log_term(confidence_level)
    B = (2.0 * M / 3.0) * L
    return (B + math.sqrt(B * B + 8.0 * n * variance * L)) / (2.0 * n)


def required_n(bias: float, *, variance: float, M: float, confidence_level: float) -> float:
    """Smallest ``n`` (real-valued) whose half-width is ``bias``.

    ``n = (2 sigma^2 + (2M/3) bias) (-log((1-rho)/2)) / bias^2``; claim bias when ``n`` is
    larger than this.

    Examples
    --------
    >>> round(required_n(0.05, variance=4.0, M=2.0, confidence_level=0.95), 1)
    11902.8
    """
    L = _log_term(confidence_level)
    return (2.0 * variance + (2.0 * M / 3.0) * bias) * L / (bias * bias)


def achieved_confidence(n: float, bias: float, *, variance: float, M: float) -> float:
    """Confidence ``rho`` at which the half-width for ``n`` examples equals ``bias``."""
    tail = 2.0 * math.exp(-n * bias * bias / (2.0 * variance + (2.0 * M / 3.0) * bias))
    return max(0.0, 1.0 - tail)


def tail_bound(n: float, t: float, *, variance: float, M: float) -> float:
    """Bernstein's two-sided tail bound ``2 exp(-n t^2 / (2 sigma^2 + (2M/3) t))``."""
    return 2.0 * math.exp(-n * t * t / (2.0 * variance + (2.0 * M / 3.0) * t))


def amortized_moments(a: GroupStats, b: GroupStats) -> tuple[float, float, float]:
    """``(n, delta_bar, sigma^2)`` of the amortized disparity over the ``n = n_A + n_B`` rows.

    Group shares are estimated by ``n_g / n``; ``sigma^2`` is the plug-in variance.
    """
    n = a.n + b.n
    delta = a.mean - b.mean
    second = n * (a.total_sq / a.n**2 + b.total_sq / b.n**2)
    return n, delta, max(second - delta * delta, 0.0)


def observed_gamma(a: GroupStats, b: GroupStats) -> float:
    """The smaller group's share of the compared rows, capped at 0.5."""
    return min(a.n, b.n) / (a.n + b.n)


def bbu_half_width(
    a: GroupStats,
    b: GroupStats,
    confidence_level: float,
    *,
    gamma: float | None = None,
    variance: float | None = None,
    corrected: bool = False,
) -> float:
    """BBU half-width for two groups (paper version or corrected)."""
    check_confidence_level(confidence_level)
    C = max(a.cost_max, b.cost_max)
    g = check_gamma(gamma) if gamma is not None else observed_gamma(a, b)
    n, _, s2 = amortized_moments(a, b)
    if variance is not None:
        s2 = float(variance)
        if not s2 >= 0:
            raise FairboundError(f"variance must be >= 0; got {variance!r}", param="variance")
    elif corrected:
        s2 = worst_case_variance(C, g)
    M = range_constant(C, g, corrected=corrected)
    return half_width(n, variance=s2, M=M, confidence_level=confidence_level)
