"""Closed-form interval methods for a difference of mean costs.

Each method is one small function of two :class:`~fairbound.stats.base.GroupStats` and a
confidence level, registered by name.  Guarantees:

* ``bbu`` - Ethayarajh (2020) exactly as published: Bernstein with the sample variance
  plugged in and range ``C/gamma``.  Not a guarantee (the variance is estimated).
* ``bbu-corrected`` - Bernstein with the safe range ``C/gamma + C`` and a variance *bound*
  (worst case ``(C/gamma)^2`` unless ``variance=`` is given): finite-sample valid when
  ``gamma`` truly bounds both groups' shares.
* ``hoeffding`` - Hoeffding on the same amortized variables (range ``2C/gamma``):
  finite-sample valid under the same condition.
* ``wald`` - normal approximation, asymptotic.
* ``agresti-caffo`` - Wald after adding one cost-0 and one cost-C pseudo-example per group
  (Agresti & Caffo 2000); asymptotic, good small-sample coverage for 0/1 costs.
* ``newcombe`` - Newcombe's hybrid score interval from two Wilson intervals (0/1 costs).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from fairbound.stats import bernstein
from fairbound.stats.base import GroupStats, Guarantee, register_interval


@functools.lru_cache(maxsize=64)
def _z(confidence_level: float) -> float:
    # cached: planning evaluates intervals many times at one level
    from scipy import special

    return float(special.ndtri(0.5 + confidence_level / 2.0))


def _centred(a: GroupStats, b: GroupStats, half_width: float) -> tuple[float, float]:
    """The interval ``mean_A - mean_B +- half_width``."""
    d = a.mean - b.mean
    return d - half_width, d + half_width


def _bbu(a: GroupStats, b: GroupStats, rho: float, *, corrected: bool, rng=None, gamma=None,
         variance=None):
    return _centred(a, b, bernstein.bbu_half_width(a, b, rho, gamma=gamma, variance=variance,
                                                   corrected=corrected))


def _register_bbu(name: str, corrected: bool, guarantee: Guarantee, summary: str,
                  reference: str) -> None:
    """Register :func:`_bbu` as published or ``corrected`` as the method ``name``."""
    register_interval(name, guarantee=guarantee, summary=summary, reference=reference,
                      options=("gamma", "variance"))(functools.partial(_bbu, corrected=corrected))


_register_bbu("bbu", False, "asymptotic",
              "Bernstein-bounded unfairness as published (plug-in variance, range C/gamma).",
              "Ethayarajh, ACL 2020")
_register_bbu("bbu-corrected", True, "finite-sample",
              "Bernstein with range C/gamma + C and a variance upper bound (worst case by "
              "default).",
              "Ethayarajh, ACL 2020; Bernstein's inequality with a bounded-deviation constant")


def hoeffding_half_width(n: float, *, cost_max: float, gamma: float, confidence_level: float):
    """Hoeffding half-width for ``n`` amortized variables in ``[-C/gamma, C/gamma]``."""
    width = 2.0 * cost_max / gamma
    return width * math.sqrt(math.log(2.0 / (1.0 - confidence_level)) / (2.0 * n))


@register_interval(
    "hoeffding",
    guarantee="finite-sample",
    summary="Hoeffding on the amortized disparity (range 2C/gamma).",
    reference="Hoeffding, JASA 1963",
    options=("gamma",),
)
def _hoeffding(a, b, rho, *, rng=None, gamma=None):
    g = bernstein.check_gamma(gamma) if gamma is not None else bernstein.observed_gamma(a, b)
    C = max(a.cost_max, b.cost_max)
    return _centred(a, b, hoeffding_half_width(a.n + b.n, cost_max=C, gamma=g,
                                               confidence_level=rho))


# Each formula below serves one comparison (GroupStats, math.sqrt) and many at once
# (StatsArrays of fairbound.stats.vectorised, np.sqrt): the same arithmetic either way.


def _wald(a: GroupStats, b: GroupStats, rho: float, sqrt=math.sqrt) -> tuple[float, float]:
    d = a.mean - b.mean
    se = sqrt(a.var / a.n + b.var / b.n)
    z = _z(rho)
    return d - z * se, d + z * se


def _wald_many(a, b, rho):
    return _wald(a, b, rho, np.sqrt)


def _newcombe_bounds(a, b, rho, sqrt, maximum):
    C = maximum(a.cost_max, b.cost_max)
    p1, p2 = a.total / C / a.n, b.total / C / b.n
    l1, u1 = _wilson(a.total / C, a.n, rho, sqrt)
    l2, u2 = _wilson(b.total / C, b.n, rho, sqrt)
    d = p1 - p2
    lo = d - sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return lo * C, hi * C


def _newcombe_many(a, b, rho):
    return _newcombe_bounds(a, b, rho, np.sqrt, np.maximum)


def _wilson(count, n, confidence_level, sqrt):
    z = _z(confidence_level)
    p = count / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


@register_interval(
    "wald",
    guarantee="asymptotic",
    summary="Normal approximation with plug-in variances.",
    reference="e.g. Agresti, Categorical Data Analysis, 3rd ed., sec. 3.1",
    vectorised=_wald_many,
)
def _wald_method(a, b, rho, *, rng=None):
    return _wald(a, b, rho)


@register_interval(
    "agresti-caffo",
    guarantee="asymptotic",
    summary="Wald after adding a cost-0 and a cost-C pseudo-example to each group.",
    reference="Agresti & Caffo, The American Statistician 54 (2000) 280-288",
    aliases=("ac", "add2", "add-2"),
    vectorised=lambda a, b, rho: _wald_many(a.add_pseudo(1.0), b.add_pseudo(1.0), rho),
)
def _agresti_caffo(a, b, rho, *, rng=None):
    return _wald(a.add_pseudo(1.0), b.add_pseudo(1.0), rho)


def wilson(count: float, n: float, confidence_level: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``count / n``."""
    return _wilson(count, n, confidence_level, math.sqrt)


@register_interval(
    "newcombe",
    guarantee="asymptotic",
    summary="Newcombe's hybrid score interval (two Wilson intervals), 0/1 costs.",
    reference="Newcombe, Statistics in Medicine 17 (1998) 873-890, method 10",
    binary_only=True,
    aliases=("newcomb", "score"),
    vectorised=_newcombe_many,
)
def _newcombe(a, b, rho, *, rng=None):
    return _newcombe_bounds(a, b, rho, math.sqrt, max)
