"""Simultaneous intervals for many groups: every pairwise gap and the max-minus-min gap.

With ``G`` groups there are ``G (G - 1) / 2`` pairwise gaps and one headline number, the
range ``R = max_g mu_g - min_g mu_g`` of the groups' mean costs.  Intervals that hold one at
a time do not hold together, and the plug-in range is biased upward (the largest of several
noisy means overshoots), so its percentile bootstrap interval is not valid.  This module
gives intervals that hold jointly:

* :func:`simultaneous_intervals` - an interval for each group's mean at level
  ``1 - alpha / G`` (betting by default; finite-sample valid).  By the union bound all ``G``
  cover at once with probability at least ``1 - alpha``, and on that event every pairwise
  difference and the range lie in the intervals derived from them.
* :func:`pairwise_intervals` - Bonferroni over a few pre-specified pairs with any
  registered two-group method (``method="betting"`` for blocked pairs, ``"wald"`` for
  Bonferroni-Wald), or the max-|t| bootstrap band (``method="max-t"``).
* :func:`percentile_bootstrap_range` - the naive percentile bootstrap of the range, kept
  only to show (and test) that it is not valid.

See ``docs/many_groups.md`` for which to use when.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from fairbound._validate import check_choice
from fairbound.errors import FairboundError
from fairbound.stats.base import (
    GroupStats,
    NotEstimable,
    check_confidence_level,
    difference_interval,
    get_method,
)

GROUP_METHODS = ("betting", "clopper-pearson", "hoeffding")


@dataclass(frozen=True)
class SimultaneousResult:
    """Jointly valid intervals for a family of group means, pairwise gaps and the range.

    Attributes
    ----------
    groups : tuple of str
        Group names.
    n : numpy.ndarray
        Annotated examples per group.
    means : numpy.ndarray
        Mean cost per group.
    group_low, group_high : numpy.ndarray
        Per-group intervals (NaN for :func:`pairwise_intervals`, which has none).
    pair_a, pair_b : tuple of str
        The pairs; the gap is ``mean_a - mean_b``.
    pair_estimate, pair_low, pair_high : numpy.ndarray
        Gaps and their simultaneous intervals.
    range_estimate, range_low, range_high : float
        Plug-in ``max - min`` of the means and its interval (NaN when the pairs do not cover
        every pair of groups).
    method : str
        How the intervals were built.
    guarantee : str
        ``'finite-sample'``, ``'asymptotic'`` or ``'resampling'``.
    confidence_level : float
        Joint level of the whole family.
    label : str
        What the means are (e.g. ``'equal_opportunity[k=1]'`` for an audit), or empty.
    """

    groups: tuple[str, ...]
    n: np.ndarray
    means: np.ndarray
    group_low: np.ndarray
    group_high: np.ndarray
    pair_a: tuple[str, ...]
    pair_b: tuple[str, ...]
    pair_estimate: np.ndarray
    pair_low: np.ndarray
    pair_high: np.ndarray
    range_estimate: float
    range_low: float
    range_high: float
    method: str
    guarantee: str
    confidence_level: float
    label: str = ""

    def to_frame(self):
        """Pairwise gaps with their simultaneous intervals, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame(
            {
                "group_a": list(self.pair_a),
                "group_b": list(self.pair_b),
                "estimate": self.pair_estimate,
                "low": self.pair_low,
                "high": self.pair_high,
                "excludes_zero": (self.pair_low > 0) | (self.pair_high < 0),
            }
        )

    def groups_frame(self):
        """Per-group means and intervals, as a :class:`pandas.DataFrame`."""
        import pandas as pd

        return pd.DataFrame(
            {"group": list(self.groups), "n": self.n, "mean": self.means,
             "low": self.group_low, "high": self.group_high}
        )

    def to_dict(self) -> dict:
        """JSON-ready summary."""

        def clean(x):
            x = float(x)
            return x if math.isfinite(x) else None

        return {
            "method": self.method,
            "guarantee": self.guarantee,
            "confidence_level": self.confidence_level,
            "range": {"estimate": clean(self.range_estimate), "low": clean(self.range_low),
                      "high": clean(self.range_high)},
            "groups": [
                {"group": g, "n": float(n), "mean": clean(m), "low": clean(lo),
                 "high": clean(hi)}
                for g, n, m, lo, hi in zip(self.groups, self.n, self.means, self.group_low,
                                           self.group_high, strict=True)
            ],
            "pairs": [
                {"group_a": a, "group_b": b, "estimate": clean(e), "low": clean(lo),
                 "high": clean(hi)}
                for a, b, e, lo, hi in zip(self.pair_a, self.pair_b, self.pair_estimate,
                                           self.pair_low, self.pair_high, strict=True)
            ],
        }


# ----------------------------------------------------------------------------- internals


def _check_groups(groups) -> tuple[list[str], list[GroupStats]]:
    if isinstance(groups, Mapping):
        names = [str(k) for k in groups]
        stats = list(groups.values())
    elif isinstance(groups, Sequence) and not isinstance(groups, str):
        stats = list(groups)
        names = [str(i) for i in range(len(stats))]
    else:
        raise FairboundError(
            "groups must be a mapping of name -> GroupStats or a sequence of GroupStats; "
            f"got {type(groups).__name__}",
            param="groups",
        )
    if len(stats) < 2:
        raise FairboundError(f"groups must hold at least two groups; got {len(stats)}",
                             param="groups")
    for name, s in zip(names, stats, strict=True):
        if not isinstance(s, GroupStats):
            raise FairboundError(
                f"groups[{name!r}] must be a GroupStats; got {type(s).__name__}",
                param="groups",
            )
        if s.n <= 0:
            raise NotEstimable(f"group {name!r} has no annotated examples")
    if len({s.cost_max for s in stats}) > 1:
        raise FairboundError(
            "groups must share cost_max; got "
            f"{sorted({s.cost_max for s in stats})}",
            param="groups",
        )
    return names, stats


def _rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def clopper_pearson(count: int, n: int, confidence_level: float) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion, finite-sample valid.

    The bounds are Beta quantiles, ``B(alpha/2; k, n - k + 1)`` and
    ``B(1 - alpha/2; k + 1, n - k)`` (0 and 1 at the edges); this is what
    ``scipy.stats.binomtest(...).proportion_ci(method='exact')`` and R's ``binom.test``
    report, computed directly because it is called once per group in simulations.

    Examples
    --------
    >>> lo, hi = clopper_pearson(3, 50, 0.95)
    >>> round(lo, 4), round(hi, 4)
    (0.0125, 0.1655)
    """
    a = 1.0 - confidence_level
    k, n = int(count), int(n)
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a / 2.0))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1.0 - a / 2.0))
    return lo, hi


def _hoeffding_group(s: GroupStats, confidence_level: float) -> tuple[float, float]:
    """Hoeffding interval for one mean cost in ``[0, C]``."""
    half = s.cost_max * math.sqrt(math.log(2.0 / (1.0 - confidence_level)) / (2.0 * s.n))
    return max(0.0, s.mean - half), min(s.cost_max, s.mean + half)


def group_interval(
    s: GroupStats, *, method: str, confidence_level: float, rng: np.random.Generator
) -> tuple[float, float]:
    """Finite-sample interval for one group's mean cost by ``method``."""
    if method == "betting":
        from fairbound.stats.betting import group_mean_interval

        return group_mean_interval(s, confidence_level=confidence_level, rng=rng)
    if method == "clopper-pearson":
        if not s.binary:
            raise NotEstimable("the Clopper-Pearson interval needs 0/1 costs")
        lo, hi = clopper_pearson(s.count, int(round(s.n)), confidence_level)
        return lo * s.cost_max, hi * s.cost_max
    return _hoeffding_group(s, confidence_level)


def _pairs_of(names: list[str], pairs) -> list[tuple[int, int]]:
    if pairs is None:
        return list(itertools.combinations(range(len(names)), 2))
    out = []
    for p in pairs:
        try:
            a, b = p
        except (TypeError, ValueError):
            raise FairboundError(f"pairs must hold (group_a, group_b) pairs; got {p!r}",
                                 param="pairs") from None
        for g in (a, b):
            if str(g) not in names:
                raise FairboundError(f"pairs must name groups among {names}; got {g!r}",
                                     param="pairs")
        if str(a) == str(b):
            raise FairboundError(f"pairs must compare two different groups; got {p!r}",
                                 param="pairs")
        out.append((names.index(str(a)), names.index(str(b))))
    if not out:
        raise FairboundError("pairs must hold at least one pair; got none", param="pairs")
    return out


def _range_from_pairs(
    pairs: list[tuple[int, int]], G: int, low: np.ndarray, high: np.ndarray
) -> tuple[float, float]:
    """Interval for ``max - min`` from simultaneous intervals on all pairwise gaps.

    ``R = max over ordered pairs (i, j) of mu_i - mu_j``; the gap of ``(j, i)`` has interval
    ``[-high, -low]``.  If every pair is covered, ``R`` lies between the largest lower bound
    (and 0) and the largest upper bound over both orientations.
    """
    if len({frozenset(p) for p in pairs}) < G * (G - 1) // 2:
        return math.nan, math.nan
    lo = max(0.0, float(np.max(np.maximum(low, -high))))
    hi = float(np.max(np.maximum(high, -low)))
    return lo, hi


# ---------------------------------------------------------------------- public functions


def _validate_simultaneous(groups, method, confidence_level):
    names, stats = _check_groups(groups)
    m = check_choice(method, GROUP_METHODS, "method", fold=True)
    return names, stats, m, check_confidence_level(confidence_level)


def simultaneous_intervals(
    groups: Mapping[str, GroupStats] | Sequence[GroupStats],
    *,
    method: str = "betting",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = 0,
) -> SimultaneousResult:
    """Per-group intervals at ``alpha / G`` covering every gap and the range at once.

    Parameters
    ----------
    groups : mapping of str to GroupStats, or sequence of GroupStats
        One entry per group (the same metric and cost in each).
    method : {'betting', 'clopper-pearson', 'hoeffding'}
        Per-group finite-sample interval: the hedged-capital betting interval
        (:func:`fairbound.stats.betting.group_mean_interval`, any costs in ``[0, C]``),
        Clopper-Pearson (0/1 costs) or Hoeffding (any costs; the widest).
    confidence_level : float
        Joint level of the whole family.
    rng : numpy.random.Generator or int, optional
        Seed of the random order used by betting.

    Returns
    -------
    SimultaneousResult
        Per-group intervals, every pairwise gap and the max-minus-min range.

    Notes
    -----
    Each group's interval ``[l_g, u_g]`` has level ``1 - alpha / G``; by the union bound all
    of them hold at once with probability at least ``1 - alpha``.  On that event, for every
    pair, ``mu_i - mu_j`` lies in ``[l_i - u_j, u_i - l_j]``, and the range
    ``R = max mu - min mu`` lies in ``[max(0, max_g l_g - min_g u_g), max_g u_g - min_g l_g]``
    (``R >= mu_i - mu_j >= l_i - u_j`` for every ``i, j``; ``R <= max u - min l``).  So every
    statement holds jointly with probability at least ``confidence_level``, for any group
    sizes, with no variance or normality assumption.  The price is width: each group pays
    for ``log(2 G / alpha)`` instead of ``log(2 / alpha)``, and differences of two
    one-group intervals are wider than a direct two-group interval.  For a few
    pre-specified pairs :func:`pairwise_intervals` is tighter.

    References
    ----------
    I. Waudby-Smith and A. Ramdas. JRSS-B 86 (2024) 1-27 (betting intervals).
    C. J. Clopper and E. S. Pearson. Biometrika 26 (1934) 404-413.
    W. Hoeffding. JASA 58 (1963) 13-30.

    Examples
    --------
    >>> from fairbound.stats import GroupStats
    >>> groups = {"a": GroupStats.from_counts(400, 80), "b": GroupStats.from_counts(500, 50),
    ...           "c": GroupStats.from_counts(300, 45)}
    >>> res = simultaneous_intervals(groups, method="clopper-pearson")
    >>> round(res.range_estimate, 3), round(res.range_low, 3), round(res.range_high, 3)
    (0.1, 0.018, 0.182)
    """
    names, stats, m, rho = _validate_simultaneous(groups, method, confidence_level)
    G = len(stats)
    level = 1.0 - (1.0 - rho) / G
    gen = _rng(rng)
    bounds = np.array(
        [group_interval(s, method=m, confidence_level=level, rng=gen) for s in stats]
    )
    lo, hi = bounds[:, 0], bounds[:, 1]
    means = np.array([s.mean for s in stats])
    pairs = list(itertools.combinations(range(G), 2))
    r_lo = max(0.0, float(lo.max() - hi.min()))
    r_hi = float(hi.max() - lo.min())
    return SimultaneousResult(
        groups=tuple(names),
        n=np.array([s.n for s in stats], dtype=float),
        means=means,
        group_low=lo,
        group_high=hi,
        pair_a=tuple(names[i] for i, _ in pairs),
        pair_b=tuple(names[j] for _, j in pairs),
        pair_estimate=np.array([means[i] - means[j] for i, j in pairs]),
        pair_low=np.array([lo[i] - hi[j] for i, j in pairs]),
        pair_high=np.array([hi[i] - lo[j] for i, j in pairs]),
        range_estimate=float(means.max() - means.min()),
        range_low=r_lo,
        range_high=r_hi,
        method=f"per-group {m} at alpha/{G}",
        guarantee="finite-sample",
        confidence_level=rho,
    )


def _validate_pairwise(groups, pairs, method, confidence_level, n_resamples):
    names, stats = _check_groups(groups)
    idx = _pairs_of(names, pairs)
    m = str(method).strip().lower()
    if m != "max-t":
        m = get_method(m).name
    rho = check_confidence_level(confidence_level)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) \
            or n_resamples < 2:
        raise FairboundError(f"n_resamples must be an integer >= 2; got {n_resamples!r}",
                             param="n_resamples")
    return names, stats, idx, m, rho


def pairwise_intervals(
    groups: Mapping[str, GroupStats] | Sequence[GroupStats],
    *,
    pairs: Sequence[tuple] | None = None,
    method: str = "betting",
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = 0,
    n_resamples: int = 2000,
) -> SimultaneousResult:
    """Simultaneous intervals for chosen pairwise gaps: Bonferroni or max-|t| bootstrap.

    Parameters
    ----------
    groups : mapping of str to GroupStats, or sequence of GroupStats
        One entry per group.
    pairs : sequence of (group_a, group_b), optional
        The gaps ``mean_a - mean_b`` to cover, fixed before looking at the data; default
        every pair.
    method : str
        A registered two-group method (see ``fairbound.stats.INTERVAL_METHODS``), each pair
        at level ``1 - alpha / P`` for ``P`` pairs (Bonferroni): ``'betting'`` (blocked
        pairs, finite-sample), ``'wald'`` (Bonferroni-Wald, asymptotic), ...  Or
        ``'max-t'``: the max-|t| band of a stratified bootstrap of the groups' counts
        (0/1 costs; asymptotic).
    confidence_level : float
        Joint level over the pairs.
    rng : numpy.random.Generator or int, optional
        Seed for methods that randomise.
    n_resamples : int
        Resamples for ``method='max-t'``.

    Returns
    -------
    SimultaneousResult
        No per-group intervals (NaN); the range interval when every pair is covered.

    Notes
    -----
    Bonferroni is valid under any dependence between the pairs' intervals, so with a
    finite-sample method the family holds in finite samples; with ``'wald'`` it holds
    asymptotically.  For ``P`` pairs out of ``G (G - 1) / 2`` it beats
    :func:`simultaneous_intervals` when ``P`` is small: each interval pays
    ``log(2 P / alpha)`` and uses both groups' data directly.  When every pair is covered,
    the range ``max - min`` gets the interval ``[max(0, max l), max u]`` over both
    orientations of every pair.  ``'max-t'`` calibrates one critical value for all pairs
    from the bootstrap distribution of ``max_pairs |gap* - gap| / se``; it is tighter than
    Bonferroni-Wald when gaps are correlated (pairs sharing a group), and asymptotic.

    References
    ----------
    O. J. Dunn. "Multiple comparisons among means." JASA 56 (1961) 52-64.
    A. C. Davison and D. V. Hinkley. *Bootstrap Methods and their Application* (1997),
    sec. 4.2.5.

    Examples
    --------
    >>> from fairbound.stats import GroupStats
    >>> groups = {"a": GroupStats.from_counts(400, 80), "b": GroupStats.from_counts(500, 50)}
    >>> res = pairwise_intervals(groups, method="wald")
    >>> round(float(res.pair_low[0]), 3), round(float(res.pair_high[0]), 3)
    (0.053, 0.147)
    """
    names, stats, idx, m, rho = _validate_pairwise(groups, pairs, method, confidence_level,
                                                   n_resamples)
    gen = _rng(rng)
    G, P = len(stats), len(idx)
    means = np.array([s.mean for s in stats])
    est = np.array([means[i] - means[j] for i, j in idx])
    if m == "max-t":
        low, high, guarantee, label = _max_t(stats, idx, rho, gen, n_resamples)
    else:
        level = 1.0 - (1.0 - rho) / P
        bounds = np.array(
            [difference_interval(stats[i], stats[j], method=m, confidence_level=level,
                                 rng=gen) for i, j in idx]
        )
        low, high = bounds[:, 0], bounds[:, 1]
        guarantee = get_method(m).guarantee
        label = f"Bonferroni {m} over {P} pairs"
    r_lo, r_hi = _range_from_pairs(idx, G, low, high)
    return SimultaneousResult(
        groups=tuple(names),
        n=np.array([s.n for s in stats], dtype=float),
        means=means,
        group_low=np.full(G, math.nan),
        group_high=np.full(G, math.nan),
        pair_a=tuple(names[i] for i, _ in idx),
        pair_b=tuple(names[j] for _, j in idx),
        pair_estimate=est,
        pair_low=low,
        pair_high=high,
        range_estimate=float(means.max() - means.min()),
        range_low=r_lo,
        range_high=r_hi,
        method=label,
        guarantee=guarantee,
        confidence_level=rho,
    )


def _group_cells(stats: list[GroupStats]) -> np.ndarray:
    """Encode binary groups as ``(G, 2, 2)`` cells: ``[1, 1]`` holds the cost-C count."""
    cells = np.zeros((len(stats), 2, 2), dtype=np.int64)
    for g, s in enumerate(stats):
        if not s.binary:
            raise NotEstimable("the max-|t| bootstrap of groups needs 0/1 costs")
        cells[g, 1, 1] = s.count
        cells[g, 0, 0] = int(round(s.n)) - s.count
    return cells


def _cost_share(cells: np.ndarray):
    return cells.sum(axis=(-2, -1)), cells[..., 1, 1]


def _max_t(stats, idx, rho, gen, n_resamples):
    from fairbound.stats.bootstrap import _gaps, _resample

    cells = _group_cells(stats)
    items = [("cost", "cost", None, _cost_share)]
    C = stats[0].cost_max
    est = _gaps(cells, items, idx)
    dist = _gaps(_resample(cells, int(n_resamples), gen), items, idx)
    se = dist.std(axis=0, ddof=1)
    usable = se > 0
    if usable.any():
        t = np.abs(dist[:, usable] - est[usable]) / se[usable]
        q = float(np.quantile(t.max(axis=1), rho))
    else:
        q = 0.0
    half = np.where(usable, q * se, 0.0)
    return (est - half) * C, (est + half) * C, "resampling", "max-|t| bootstrap band"


def percentile_bootstrap_range(
    groups: Mapping[str, GroupStats] | Sequence[GroupStats],
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: np.random.Generator | int | None = 0,
) -> tuple[float, float]:
    """Naive percentile bootstrap interval of ``max - min`` (NOT valid; for comparison).

    Parameters
    ----------
    groups : mapping of str to GroupStats, or sequence of GroupStats
        One entry per group (0/1 costs).
    confidence_level : float
        Nominal level.
    n_resamples : int
        Bootstrap resamples.
    rng : numpy.random.Generator or int, optional
        Seed.

    Returns
    -------
    (float, float)
        The ``(1 -/+ confidence_level) / 2`` quantiles of the resampled range.

    Notes
    -----
    The plug-in range of ``G`` noisy means is biased upward, most of all when the true
    means are equal: then ``E[max - min] > 0 = R``.  Each bootstrap resample adds the same
    kind of noise again around the already-inflated estimate, so the resampled ranges sit
    above the estimate and the percentile interval lies above 0 on null data far more often
    than ``1 - confidence_level`` (``tests/stats/test_simultaneous.py`` measures it).  The
    range is not a smooth function of the means at ties, which is exactly where the
    bootstrap fails.  Use :func:`simultaneous_intervals` instead.

    Examples
    --------
    >>> from fairbound.stats import GroupStats
    >>> same = [GroupStats.from_counts(200, 20) for _ in range(4)]
    >>> lo, hi = percentile_bootstrap_range(same, rng=0)
    >>> lo > 0  # excludes the true range 0
    True
    """
    names, stats = _check_groups(groups)
    rho = check_confidence_level(confidence_level)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int | np.integer) \
            or n_resamples < 2:
        raise FairboundError(f"n_resamples must be an integer >= 2; got {n_resamples!r}",
                             param="n_resamples")
    from fairbound.stats.bootstrap import _resample

    cells = _group_cells(stats)
    boot = _resample(cells, int(n_resamples), _rng(rng))
    rates = boot[..., 1, 1] / boot.sum(axis=(-2, -1)) * stats[0].cost_max
    ranges = rates.max(axis=1) - rates.min(axis=1)
    a = 1.0 - rho
    return float(np.quantile(ranges, a / 2)), float(np.quantile(ranges, 1 - a / 2))
