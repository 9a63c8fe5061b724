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
