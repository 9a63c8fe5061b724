"""Closed-form intervals and sample-size plans for many comparisons at once.

An audit of many groups (``comparison="vs-rest"`` over 100,000 groups) asks for one interval
and one "n needed" per group.  Called one comparison at a time, the Python overhead of
:func:`~fairbound.stats.base.difference_interval` (validation, two ``GroupStats`` per
call) dominates, and the planner's bisection multiplies it by about 40.  Here the same
formulas run on arrays: :class:`StatsArrays` holds the sufficient statistics of many
groups, a closed-form method registered with ``vectorised=`` computes every interval in one
pass, and :func:`required_n_many` runs the planner's bisection on all comparisons together.

Guarantee: the same as each method's own (every entry equals what the one-at-a-time call
returns, up to floating-point rounding; ``tests/stats/test_vectorised.py`` checks every
method that has a vectorised form against it).  Methods without a vectorised form
(order-dependent, exact or Bayesian ones) are not available here.

Examples
--------
>>> import numpy as np
>>> from fairbound.stats.base import GroupStats
>>> a = StatsArrays.from_stats([GroupStats.from_counts(100, 30), GroupStats.from_counts(50, 5)])
>>> b = StatsArrays.from_stats([GroupStats.from_counts(100, 20), GroupStats.from_counts(60, 6)])
>>> lo, hi = intervals_many("newcombe", a, b, 0.95)
>>> np.round(lo, 4), np.round(hi, 4)
(array([-0.0202, -0.1162]), array([0.2167, 0.1255]))
>>> required_n_many("wald", a, b, 0.95)
array([285.,  inf])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairbound.errors import FairboundError
from fairbound.stats.base import GroupStats, check_confidence_level, get_method


@dataclass(frozen=True)
class StatsArrays:
    """Sufficient statistics of many groups: one array entry per group.

    Attributes
    ----------
    n, total, total_sq : numpy.ndarray
        Examples, sum of costs and sum of squared costs.
    cost_max : numpy.ndarray
        The declared maximum cost ``C`` of each group.
    binary : bool
        Whether every group's costs are 0 or ``C``.
    """

    n: np.ndarray
    total: np.ndarray
    total_sq: np.ndarray
    cost_max: np.ndarray
    binary: bool

    @classmethod
    def from_stats(cls, stats: Sequence[GroupStats]) -> StatsArrays:
        """Stack ``GroupStats`` (samples are dropped: closed-form methods need moments)."""
        stats = list(stats)
        for i, g in enumerate(stats):
            if not isinstance(g, GroupStats):
                raise FairboundError(f"stats[{i}] must be a GroupStats; got "
                                     f"{type(g).__name__}", param="stats")
        return cls(
            n=np.array([g.n for g in stats], float),
            total=np.array([g.total for g in stats], float),
            total_sq=np.array([g.total_sq for g in stats], float),
            cost_max=np.array([g.cost_max for g in stats], float),
            binary=all(g.binary for g in stats),
        )

    def scaled(self, factor) -> StatsArrays:
        """Every group ``factor`` times larger with the same moments (as ``GroupStats``)."""
        return StatsArrays(self.n * factor, self.total * factor, self.total_sq * factor,
                           self.cost_max, self.binary)

    def add_pseudo(self, k: float = 1.0) -> StatsArrays:
        """``k`` pseudo-examples of cost 0 and ``k`` of cost ``C`` per group."""
        return StatsArrays(self.n + 2 * k, self.total + k * self.cost_max,
                           self.total_sq + k * self.cost_max**2, self.cost_max, self.binary)

    @property
    def mean(self) -> np.ndarray:
        """Mean costs (NaN for empty groups)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n > 0, self.total / self.n, np.nan)

    @property
    def var(self) -> np.ndarray:
        """Plug-in (``ddof=0``) variances."""
        with np.errstate(divide="ignore", invalid="ignore"):
            m = self.total / self.n
            return np.where(self.n > 0, np.maximum(self.total_sq / self.n - m * m, 0.0),
                            np.nan)

    @property
    def var_unbiased(self) -> np.ndarray:
        """Sample variances with ``ddof=1`` (NaN below two examples)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n >= 2, self.var * self.n / (self.n - 1), np.nan)


def _method(method):
    m = get_method(method)
    if m.vectorised is None:
        have = sorted(k for k, v in _registry().items() if v.vectorised is not None)
        raise FairboundError(f"method {m.name!r} has no vectorised form; one of "
                             f"{', '.join(have)} has", param="method")
    return m


def _registry():
    from fairbound.stats.base import INTERVAL_METHODS

    return INTERVAL_METHODS


def intervals_many(method: str, a: StatsArrays, b: StatsArrays,
                   confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Intervals for ``mean_A - mean_B`` of every pair ``(a[i], b[i])``.

    NaN where the method cannot estimate (an empty group, too few examples), where the
    one-at-a-time call raises ``NotEstimable``.

    Parameters
    ----------
    method : str
        A registered method with a vectorised form (``wald``, ``agresti-caffo``,
        ``newcombe``, ``welch``).
    a, b : StatsArrays
        Statistics of the A and B sides, the same length.
    confidence_level : float
        In (0, 1).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends.
    """
    m = _method(method)
    rho = check_confidence_level(confidence_level)
    _check_pairs(m, a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = m.vectorised(a, b, rho)
    bad = (a.n <= 0) | (b.n <= 0)
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def required_n_many(method: str, a: StatsArrays, b: StatsArrays,
                    confidence_level: float = 0.95) -> np.ndarray:
    """Total n (A + B, same shares and moments) at which each interval would exclude 0.

    The planner of :func:`fairbound.audits.required_total_n` for closed-form methods, run
    on all comparisons together: the moments are scaled and the scale found by the same
    geometric bisection (to a relative 1e-9), so each entry equals the one-at-a-time
    value (up to rounding at the ceiling).  ``inf`` for a zero gap or when no scale up to
    ``1e12`` excludes 0; NaN where not estimable.  A method whose vectorised form carries
    its own planner (``vectorised.required_n_many``, as ``exact-union``'s does) uses that
    one: the same plans, to the same precision, in fewer evaluations.
    """
    m = _method(method)
    rho = check_confidence_level(confidence_level)
    own = getattr(m.vectorised, "required_n_many", None)  # a method's own array planner
    if own is not None:
        _check_pairs(m, a, b)
        return own(a, b, rho)
    d = a.mean - b.mean
    size = a.n + b.n
    out = np.full(d.shape, np.nan)
    out[np.isfinite(d) & (d == 0)] = math.inf
    todo = np.flatnonzero(np.isfinite(d) & (d != 0))

    def excludes(rows, s):
        lo, hi = intervals_many(m.name, _take(a, rows).scaled(s), _take(b, rows).scaled(s),
                                rho)
        return np.where(d[rows] > 0, lo > 0, hi < 0)   # NaN compares False: not excluded

    lo_s = np.full(todo.size, 1e-6)
    hi_s = np.ones(todo.size)
    grow = np.arange(todo.size)
    while grow.size:
        ok = excludes(todo[grow], hi_s[grow])
        grow = grow[~ok]
        hi_s[grow] *= 10.0
        over = hi_s[grow] > 1e12
        out[todo[grow[over]]] = math.inf
        grow = grow[~over]
    live = np.flatnonzero(np.isnan(out[todo]))
    for _ in range(80):
        if not live.size:
            break
        mid = np.sqrt(lo_s[live] * hi_s[live])
        ok = excludes(todo[live], mid)
        hi_s[live] = np.where(ok, mid, hi_s[live])
        lo_s[live] = np.where(ok, lo_s[live], mid)
        live = live[~(hi_s[live] / lo_s[live] < 1 + 1e-9)]
    done = np.isnan(out[todo])
    out[todo[done]] = np.ceil(hi_s[done] * size[todo[done]])
    return out


def _check_pairs(m, a: StatsArrays, b: StatsArrays) -> None:
    """One-line errors for sides of different lengths or costs the method cannot take."""
    if a.n.shape != b.n.shape:
        raise FairboundError(f"a and b must have the same length; got {a.n.size} and "
                             f"{b.n.size}", param="b")
    if m.binary_only and not (a.binary and b.binary):
        raise FairboundError(f"method {m.name!r} needs 0/1 costs", param="method")


def _take(s: StatsArrays, rows) -> StatsArrays:
    return StatsArrays(s.n[rows], s.total[rows], s.total_sq[rows], s.cost_max[rows], s.binary)
