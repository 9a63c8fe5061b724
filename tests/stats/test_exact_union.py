"""``exact-union``: coverage by enumeration, the reference Clopper-Pearson, arrays."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fairbound.stats import GroupStats, difference_interval
from fairbound.stats.exact import union_interval_many, union_split
from fairbound.stats.vectorised import StatsArrays, intervals_many


def _min_coverage(na: int, nb: int, rho: float, rates) -> float:
    """Smallest exact coverage over the true rates ``rates x rates`` (every table summed)."""
    x, y = np.meshgrid(np.arange(na + 1), np.arange(nb + 1), indexing="ij")
    lo, hi = union_interval_many(x, na, y, nb, rho)
    worst = 1.0
    for pa in rates:
        fa = stats.binom.pmf(np.arange(na + 1), na, pa)
        for pb in rates:
            fb = stats.binom.pmf(np.arange(nb + 1), nb, pb)
            d = pa - pb
            cover = (lo <= d) & (d <= hi)
            worst = min(worst, float(fa @ cover.astype(float) @ fb))
    return worst


RATES = (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)


@pytest.mark.parametrize("na,nb", [(1, 1), (4, 9), (7, 60), (12, 400)])
@pytest.mark.parametrize("rho", [0.9, 0.95, 0.99])
def test_union_covers_by_enumeration(na, nb, rho):
    assert _min_coverage(na, nb, rho, RATES) >= rho


@pytest.mark.slow
@pytest.mark.parametrize("na,nb", [(30, 30), (25, 2500), (60, 6000), (100, 20000)])
@pytest.mark.parametrize("rho", [0.9, 0.95, 0.99, 1 - 0.05 / 1000])
def test_union_covers_by_enumeration_larger(na, nb, rho):
    rates = tuple(np.r_[RATES, np.linspace(0.02, 0.98, 25)])
    assert _min_coverage(na, nb, rho, rates) >= rho


def test_union_is_clopper_pearson_joined_by_the_union_bound():
    # reference: scipy's binomtest(...).proportion_ci(method="exact") (Clopper-Pearson)
    for ka, na, kb, nb, rho in [(3, 10, 40, 200, 0.95), (0, 17, 9, 90, 0.9),
                                (25, 25, 1, 3000, 0.99), (30, 100, 250_000, 1_000_000, 0.95)]:
        s = float(union_split(na, nb))
        alpha = 1 - rho
        ca = stats.binomtest(ka, na).proportion_ci(1 - alpha * (1 - s), method="exact")
        cb = stats.binomtest(kb, nb).proportion_ci(1 - alpha * s, method="exact")
        lo, hi = difference_interval(GroupStats.from_counts(na, ka),
                                     GroupStats.from_counts(nb, kb), method="exact-union",
                                     confidence_level=rho)
        assert lo == pytest.approx(ca.low - cb.high, abs=1e-12)
        assert hi == pytest.approx(ca.high - cb.low, abs=1e-12)


def test_split_depends_on_sizes_only_and_is_symmetric():
    n = np.array([1, 10, 100, 10_000, 10**7])
    s = union_split(n[:, None], n[None, :])
    np.testing.assert_allclose(s + s.T, 1.0)
    assert s.min() >= 0.01 and s.max() <= 0.99
    # swapping the groups mirrors the interval
    lo, hi = union_interval_many(3, 10, 40, 200, 0.95)
    lo2, hi2 = union_interval_many(40, 200, 3, 10, 0.95)
    assert lo == pytest.approx(-hi2, abs=1e-15) and hi == pytest.approx(-lo2, abs=1e-15)


def test_many_groups_on_arrays_equal_one_at_a_time_and_scale_by_cost():
    rng = np.random.default_rng(3)
    n = rng.integers(1, 5000, 200)
    k = rng.binomial(n, 0.3)
    a = [GroupStats.from_counts(int(m), int(j), cost_max=2.0) for m, j in zip(n, k, strict=True)]
    rest = GroupStats.from_counts(10**7, 3 * 10**6, cost_max=2.0)
    lo, hi = intervals_many("exact-union", StatsArrays.from_stats(a),
                            StatsArrays.from_stats([rest] * len(a)), 1 - 0.05 / 200)
    for i in range(0, 200, 17):
        want = difference_interval(a[i], rest, method="exact-union",
                                   confidence_level=1 - 0.05 / 200)
        assert (lo[i], hi[i]) == pytest.approx(want, abs=1e-15)
    assert np.all(lo <= 2 * (k / n - 0.3) + 1e-12) and np.all(hi >= 2 * (k / n - 0.3) - 1e-12)


# --- at the boundary of ``auto``'s rule (fairbound.stats.auto.UNION_RATIO): one group
# 3,000 times the other, where ``auto`` starts to run ``exact-union``.  Each of group A's
# counts ``x`` is covered by a run of group B's counts ``y`` (``U_B`` and ``L_B`` increase
# with ``y``), so the coverage is a sum over ``x`` of binomial probabilities of a run:
# the same enumeration of every table as ``_min_coverage``, in O(n_A log n_B) per rate pair.
def _min_coverage_by_runs(na: int, nb: int, rho: float, rates) -> float:
    from fairbound.stats.exact.union import _clopper_pearson_many

    share = float(union_split(na, nb))
    alpha = 1.0 - rho
    x, y = np.arange(na + 1), np.arange(nb + 1)
    la, ua = _clopper_pearson_many(x, na, alpha * (1.0 - share))
    lb, ub = _clopper_pearson_many(y, nb, alpha * share)
    assert np.all(np.diff(ub) >= 0) and np.all(np.diff(lb) >= 0)
    worst = 1.0
    for pa in rates:
        fa = stats.binom.pmf(x, na, pa)
        for pb in rates:
            d = pa - pb
            first = np.searchsorted(ub, la - d, side="left")      # la - ub[y] <= d
            last = np.searchsorted(lb, ua - d, side="right") - 1  # ua - lb[y] >= d
            run = np.where(last >= first, stats.binom.cdf(last, nb, pb)
                           - stats.binom.cdf(first - 1, nb, pb), 0.0)
            worst = min(worst, float(fa @ run))
    return worst


BOUNDARY_RATES = tuple(np.r_[RATES, np.linspace(0.02, 0.98, 13)])


@pytest.mark.parametrize("na,nb,rho", [(4, 9, 0.95), (7, 60, 0.9), (12, 400, 0.99),
                                       (3, 9000, 1 - 0.05 / 30)])
def test_coverage_by_runs_equals_the_full_enumeration(na, nb, rho):
    assert _min_coverage_by_runs(na, nb, rho, RATES) == pytest.approx(
        _min_coverage(na, nb, rho, RATES), abs=1e-9)


@pytest.mark.parametrize("na", [1, 3])
@pytest.mark.parametrize("rho", [0.95, 1 - 0.05 / 1000])
def test_union_covers_by_enumeration_at_autos_boundary(na, rho):
    from fairbound.stats.auto import UNION_RATIO

    k = UNION_RATIO
    # at the ratio where auto switches and one example either side (the mirror, the large
    # group first, is the same table read backwards: test_split_depends_on_sizes_only...)
    for a, b in ((na, k * na), (na, k * na - 1), (na, k * na + 1)):
        assert _min_coverage_by_runs(a, b, rho, BOUNDARY_RATES) >= rho, (a, b)


@pytest.mark.slow
@pytest.mark.parametrize("na", [10, 30, 100])
@pytest.mark.parametrize("rho", [0.9, 0.95, 0.99, 1 - 0.05 / 30, 1 - 0.05 / 1000])
def test_union_covers_by_enumeration_at_autos_boundary_larger(na, rho):
    from fairbound.stats.auto import UNION_RATIO

    rates = tuple(np.r_[BOUNDARY_RATES, np.linspace(0.001, 0.05, 8)])
    assert _min_coverage_by_runs(na, UNION_RATIO * na, rho, rates) >= rho
