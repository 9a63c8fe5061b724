"""The default interval method: the tightest guaranteed method for the costs at hand.

``method="auto"`` is what :func:`fairbound.audit` uses unless told otherwise.  It resolves,
from the kind of costs and the two group sizes (never from the counts or the costs'
values), to

* ``"exact"`` for 0/1 costs (every confusion-matrix metric): the exact unconditional
  interval of Agresti & Min (2001), computed from the counts, deterministic, with coverage
  at least the nominal level for every sample size (see :mod:`fairbound.stats.exact`);
* ``"exact-union"`` for 0/1 costs when one group is at least :data:`UNION_RATIO` (3,000)
  times the other (a group against the rest of a large table): the Clopper-Pearson
  interval of each group joined by a union bound (see :mod:`fairbound.stats.exact.union`),
  computed on arrays for every group at once;
* ``"betting"`` for fractional costs in ``[0, C]``: the betting interval with its capital
  averaged over several arrangements of the sample (see :mod:`fairbound.stats.betting`).

All three are finite-sample valid, and since the choice depends on the sizes only, each
one's coverage holds conditionally on the sizes, so it holds for ``auto`` as well.
``UNION_RATIO`` comes from the width study ``benchmarks/exact_union_widths.py``
(``benchmarks/results/exact_union_widths.txt``): from a size ratio of 3,000 on,
``exact-union`` is at most 5% wider than ``exact`` anywhere on its grid (at most 1.048,
groups of 10; never wider from groups of 30 on), and narrower in 229 of its 240 cells
there (median width ratio 0.867).  Results record the method that actually ran.
"""

from __future__ import annotations

from fairbound.stats.base import (
    INTERVAL_METHODS,
    GroupStats,
    IntervalMethod,
    get_method,
    register_interval,
)

AUTO = "auto"

#: ``auto`` runs ``exact-union`` for 0/1 costs when the larger group has at least this many
#: times the examples of the smaller (from ``benchmarks/exact_union_widths.py``).
UNION_RATIO = 3000


def union_applies(n_a: float, n_b: float) -> bool:
    """Whether ``auto`` runs ``exact-union`` for 0/1 costs on groups of these sizes.

    ``max(n_A, n_B) >= UNION_RATIO * min(n_A, n_B)``, with both groups non-empty: the
    sizes only, never the counts.

    Examples
    --------
    >>> union_applies(10, 30_000), union_applies(30_000, 10), union_applies(10_000, 9_990_000)
    (True, True, False)
    """
    small, large = min(n_a, n_b), max(n_a, n_b)
    return small > 0 and large >= UNION_RATIO * small


def _for_costs(a: GroupStats, b: GroupStats) -> IntervalMethod:
    """What ``auto`` runs for these costs and sizes: the registry's entries, no lookup."""
    if not (a.binary and b.binary):
        return INTERVAL_METHODS["betting"]
    if a.cost_max == b.cost_max and union_applies(a.n, b.n):
        return INTERVAL_METHODS["exact-union"]
    return INTERVAL_METHODS["exact"]


def resolve_method(method: str | IntervalMethod, a: GroupStats,
                   b: GroupStats) -> IntervalMethod:
    """The registered method that ``method`` means for these two groups' costs.

    ``method`` is a name or an :class:`IntervalMethod` already looked up (then nothing is
    looked up by name again).

    Examples
    --------
    >>> resolve_method("auto", GroupStats.from_counts(10, 2), GroupStats.from_counts(9, 1)).name
    'exact'
    >>> rest = GroupStats.from_counts(10_000_000, 2_000_000)
    >>> resolve_method("auto", GroupStats.from_counts(100, 30), rest).name
    'exact-union'
    >>> x = GroupStats.from_costs([0.2, 0.5, 1.0])
    >>> resolve_method("auto", x, x).name
    'betting'
    """
    m = get_method(method)
    return m if m.name != AUTO else _for_costs(a, b)


def prefetch_intervals(items, method: str | IntervalMethod, *, cache=None):
    """Compute the intervals of many comparisons at once, where the method can batch.

    ``items`` is a sequence of ``(a, b, confidence_level)``; ``method`` may be ``"auto"``.
    Only methods registered with a ``batch`` function do anything; results are unchanged
    (each later call returns what it would have returned alone), only faster.

    ``cache`` (a :class:`fairbound.stats.exact.IntervalCache`) receives the intervals;
    default: the active cache (``with fairbound.stats.exact.using(cache):``) or the
    process-wide one.  Returns the cache filled, so that an audit can read from it::

        cache = prefetch_intervals(items, "auto", cache=IntervalCache())
        with using(cache):
            ...  # every exact interval of the audit reads this cache
    """
    from fairbound.stats.exact.cache import current

    cache = current() if cache is None else cache
    requested = get_method(method)
    by_method: dict[str, tuple[IntervalMethod, list]] = {}
    for a, b, rho in items:
        if a.n <= 0 or b.n <= 0:
            continue
        m = resolve_method(requested, a, b)
        if m.batch is not None:
            by_method.setdefault(m.name, (m, []))[1].append((a, b, rho))
    for m, todo in by_method.values():
        m.batch(todo, cache=cache)
    return cache


def _auto(a, b, rho, *, rng):
    m = _for_costs(a, b)
    return m.func(a, b, rho, rng=rng)


def _auto_required_n(a, b, confidence_level):
    m = _for_costs(a, b)
    if m.name == "exact-union":  # its planner works on arrays
        from fairbound.stats.exact.union import union_required_n_many
        from fairbound.stats.vectorised import StatsArrays

        return float(union_required_n_many(StatsArrays.from_stats([a]),
                                           StatsArrays.from_stats([b]), confidence_level)[0])
    if m.required_n is None:
        return float("nan")
    return m.required_n(a, b, confidence_level)


register_interval(
    AUTO, guarantee="finite-sample", needs_order=True, required_n=_auto_required_n, random=True,
    summary="default: 'exact' for 0/1 costs, 'betting' for fractional costs",
    reference="Agresti & Min (2001); Waudby-Smith & Ramdas (2024); Chugg et al. (2023)",
    aliases=("default", "guaranteed"),
)(_auto)
