"""The exact unconditional interval (method ``exact``) against references and by enumeration.

Coverage is computed exactly: every table of the two groups, its interval, and the sum of
the probabilities of the tables whose interval covers the true difference (no simulation).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fairbound.errors import FairboundError
from fairbound.stats import INTERVAL_METHODS, GroupStats, NotEstimable, difference_interval
from fairbound.stats import exact as E
from fairbound.stats.exact import inversion

RATES = (0.0, 0.001, 0.01, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0)


# --------------------------------------------------------------------------- helpers
def _all_intervals(na, nb, level=0.95):
    lo = np.zeros((na + 1, nb + 1))
    hi = np.zeros((na + 1, nb + 1))
    for x in range(na + 1):
        for y in range(nb + 1):
            lo[x, y], hi[x, y] = E.exact_interval(x, na, y, nb, level)
    return lo, hi


def _min_coverage(na, nb, lo, hi, rates):
    worst = (2.0, None)
    for pa in rates:
        fa = stats.binom.pmf(np.arange(na + 1), na, pa)
        for pb in rates:
            fb = stats.binom.pmf(np.arange(nb + 1), nb, pb)
            d = pa - pb
            cover = (lo <= d + 1e-12) & (hi >= d - 1e-12)
            c = float(fa @ cover @ fb)
            if c < worst[0]:
                worst = (c, (pa, pb))
    return worst


def _wald(ka, na, kb, nb, z=1.959963984540054):
    a, b = ka / na, kb / nb
    h = z * np.sqrt(a * (1 - a) / na + b * (1 - b) / nb)
    return a - b - h, a - b + h


# --------------------------------------------------------------------------- statistic
def test_restricted_mle_maximises_the_constrained_likelihood():
    rng = np.random.default_rng(1)
    for _ in range(200):
        na, nb = (int(v) for v in rng.integers(1, 60, 2))
        x, y = int(rng.integers(0, na + 1)), int(rng.integers(0, nb + 1))
        d = float(rng.uniform(-0.99, 0.99))
        pa, pb = E.restricted_mle(x, y, na, nb, d)
        grid = np.linspace(max(0.0, -d), min(1.0, 1.0 - d), 200_001)[1:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = (x * np.log(grid + d) + (na - x) * np.log1p(-grid - d)
                  + y * np.log(grid) + (nb - y) * np.log1p(-grid))
        assert abs(float(pb) - grid[np.nanargmax(ll)]) < 2e-5
        assert float(pa) - float(pb) == pytest.approx(d, abs=1e-12)


def test_score_statistic_at_zero_is_the_pooled_z():
    x, y, na, nb = 7, 12, 15, 18
    p = (x + y) / (na + nb)
    z = (x / na - y / nb) / np.sqrt(p * (1 - p) * (1 / na + 1 / nb))
    assert float(E.score_statistic(x, y, na, nb, 0.0)) == pytest.approx(z, rel=1e-12)


@pytest.mark.parametrize("na,nb", [(7, 13), (20, 20), (35, 12)])
def test_statistic_is_monotone_in_each_count(na, nb):
    # the accepted tables of a column form one run only because of this
    xs = np.arange(na + 1.0)[:, None]
    ys = np.arange(nb + 1.0)[None, :]
    for d in np.linspace(-0.98, 0.98, 99):
        t = E.score_statistic(xs, ys, na, nb, d)
        assert np.all(np.diff(t, axis=1) <= 1e-12)
        assert np.all(np.diff(t, axis=0) >= -1e-12)


def test_accepted_runs_match_a_dense_table():
    rng = np.random.default_rng(3)
    for _ in range(30):
        na, nb = (int(v) for v in rng.choice([3, 20, 60, 150, 400], 2))
        ka, kb = int(rng.integers(0, na + 1)), int(rng.integers(0, nb + 1))
        tab = E._Table(ka, na, kb, nb, 0.001)
        d = np.clip(tab.d_hat + rng.normal(0, 2, 6) * np.sqrt(0.25 / na + 0.25 / nb),
                    -0.99, 0.99)
        thr = np.abs(E.score_statistic(float(ka), float(kb), na, nb, d)) * (1 - E._TIE)
        lo, hi = tab.nuisance(d)
        keep = (thr > 0) & (lo <= hi)
        if not keep.any():
            continue
        batch = E._ExactBatch(na, nb, d[keep], thr[keep], lo[keep], hi[keep])
        runs = batch._runs()
        t = E.score_statistic(batch.xs[None, :, None], batch.ys[None, None, :], na, nb,
                              d[keep][:, None, None])
        th = thr[keep][:, None, None]
        np.testing.assert_array_equal(runs[0], (t >= th).sum(axis=-1))
        np.testing.assert_array_equal(runs[1], (t > -th).sum(axis=-1) - 1)


# --------------------------------------------------------------------------- p-values
# Barnard's test with the pooled statistic is this test at d = 0 over every nuisance value.
# Tables with equal group sizes can have exactly tied statistics that scipy's floating
# point separates (7/15 vs 12/15: scipy drops the tied tables 3/15 vs 8/15 and 8/15 vs
# 3/15 and reports 0.068153 instead of 0.068218), so most tables here have unequal sizes.
@pytest.mark.parametrize("table", [(2, 7, 6, 13), (3, 25, 0, 25), (30, 100, 20, 100),
                                   (2, 10, 9, 12), (17, 40, 9, 35), (0, 7, 13, 13),
                                   (5, 9, 1, 14)])
def test_pvalue_at_zero_is_barnards_test(table):
    ka, na, kb, nb = table
    ours = E.exact_pvalue(ka, na, kb, nb, 0.0, gamma=0)
    ref = stats.barnard_exact([[ka, kb], [na - ka, nb - kb]], alternative="two-sided",
                              pooled=True, n=400).pvalue
    assert ours == pytest.approx(ref, abs=1e-6, rel=1e-6)


def test_pvalue_vectorises_and_handles_the_edges():
    p = E.exact_pvalue(3, 10, 7, 12, [-1.0, -0.3, 0.0, 1.0], gamma=0.001)
    assert p.shape == (4,)
    assert p[0] == pytest.approx(0.001) and p[3] == pytest.approx(0.001)
    assert E.exact_pvalue(0, 5, 6, 6, -1.0) == 1.0      # the only possible table there
    assert E.exact_pvalue(3, 10, 7, 12, 3 / 10 - 7 / 12) == 1.0   # at the estimate


def test_berger_boos_pvalue_is_at_least_gamma_and_close_to_the_full_one():
    full = E.exact_pvalue(12, 40, 5, 38, 0.0, gamma=0)
    bb = E.exact_pvalue(12, 40, 5, 38, 0.0, gamma=0.001)
    assert bb >= 0.001
    assert abs(bb - full) < 0.01


def test_published_statxact_values():
    # StatXact 11, "invert a two-sided test", gamma = 0, as checked in R's exact2x2
    # (inst/slowTests/test_StatXact.R; vignette "exact2x2Validation"): for x1/n1 = 2/7,
    # x2/n2 = 6/13 the p-value is 0.5374 and the interval for p2 - p1 is (-0.3079, 0.5542);
    # for 0/7 and 13/13 the p-value is 2.44e-06 and the interval (0.6088, 1) (StatXact's
    # upper end 0.6101 is wrong there, as the exact2x2 vignette shows).
    assert round(E.exact_pvalue(2, 7, 6, 13, 0.0, gamma=0), 4) == 0.5374
    lo, hi = E.exact_interval(6, 13, 2, 7, gamma=0)
    assert (round(lo, 4), round(hi, 4)) == (-0.3079, 0.5542)
    assert E.exact_pvalue(0, 7, 13, 13, 0.0, gamma=0) == pytest.approx(2.44e-06, abs=5e-9)
    lo, hi = E.exact_interval(13, 13, 0, 7, gamma=0)
    assert (round(lo, 4), hi) == (0.6088, 1.0)


# --------------------------------------------------------------------------- intervals
def test_narrow_for_three_of_25_vs_none_of_25():
    lo, hi = difference_interval(GroupStats.from_counts(25, 3), GroupStats.from_counts(25, 0),
                                 method="exact")
    # about 0.344 wide (-0.024 to 0.320); the previous default was 0.58 wide
    assert hi - lo < 0.36
    assert lo < 0 < 3 / 25 < hi


@pytest.mark.parametrize("table", [(3, 25, 0, 25), (30, 100, 20, 100), (0, 12, 5, 40),
                                   (150, 1000, 100, 1000), (7, 7, 0, 3), (1, 30, 29, 30)])
def test_swapping_groups_mirrors_and_repeats_exactly(table):
    ka, na, kb, nb = table
    lo, hi = E.exact_interval(ka, na, kb, nb)
    lo2, hi2 = E.exact_interval(kb, nb, ka, na)
    assert (lo2, hi2) == (-hi, -lo)
    assert E.exact_interval(ka, na, kb, nb) == (lo, hi)
    assert lo <= ka / na - kb / nb <= hi
    assert -1.0 <= lo <= hi <= 1.0


def test_equal_tables_give_a_symmetric_interval():
    lo, hi = E.exact_interval(4, 20, 4, 20)
    assert lo == -hi and hi > 0


@pytest.mark.parametrize("table", [(3, 25, 0, 25), (41, 90, 30, 110), (2, 400, 9, 300)])
def test_levels_are_nested(table):
    ivs = [E.exact_interval(*table, level) for level in (0.8, 0.9, 0.95, 0.99)]
    for (a, b), (c, d) in zip(ivs, ivs[1:], strict=False):
        assert c <= a and b <= d


def test_extreme_tables_reach_the_edges():
    assert E.exact_interval(0, 5, 6, 6)[0] == -1.0
    assert E.exact_interval(8, 8, 0, 3)[1] == 1.0
    lo, hi = E.exact_interval(0, 50, 0, 50)
    assert lo == -hi and 0 < hi < 0.1


def test_cost_scaling_and_registration():
    m = INTERVAL_METHODS["exact"]
    assert (m.guarantee, m.binary_only, m.needs_order) == ("finite-sample", True, False)
    assert m.required_n is not None
    a, b = GroupStats.from_counts(40, 9), GroupStats.from_counts(60, 5)
    lo, hi = difference_interval(a, b, method="exact", confidence_level=0.9)
    a2, b2 = GroupStats.from_counts(40, 9, cost_max=2.5), GroupStats.from_counts(60, 5,
                                                                                  cost_max=2.5)
    lo2, hi2 = difference_interval(a2, b2, method="exact", confidence_level=0.9)
    assert lo2 == pytest.approx(2.5 * lo, rel=1e-12) and hi2 == pytest.approx(2.5 * hi,
                                                                              rel=1e-12)


def test_not_estimable_cases():
    full = GroupStats.from_counts(10, 3)
    with pytest.raises(NotEstimable):
        difference_interval(GroupStats.from_counts(0, 0), full, method="exact")
    with pytest.raises(NotEstimable):
        difference_interval(full, GroupStats.from_costs([0.2, 0.5, 1.0]), method="exact")
    with pytest.raises(NotEstimable):
        difference_interval(full, GroupStats.from_counts(10, 3, cost_max=2.0), method="exact")


@pytest.mark.parametrize("args", [(3, 0, 1, 5), (6, 5, 1, 5), (1.5, 5, 1, 5), (-1, 5, 1, 5)])
def test_bad_counts_are_user_errors(args):
    with pytest.raises(FairboundError):
        E.exact_interval(*args)


def test_bad_gamma_is_a_user_error():
    with pytest.raises(FairboundError):
        E.exact_interval(3, 10, 1, 10, 0.95, gamma=0.06)
    with pytest.raises(FairboundError):
        E.exact_pvalue(3, 10, 1, 10, 0.0, gamma=-0.1)


@pytest.mark.parametrize("table", [(0, 10, 22, 25), (26, 30, 21, 30)])
def test_hull_contains_islands_of_acceptance(table):
    # for these tables the accepted set is not an interval: past its first upper (or lower)
    # end it is accepted again; the reported hull must contain every accepted value
    lo, hi = E.exact_interval(*table)
    d = np.linspace(-0.999, 0.999, 2001)
    p = E.exact_pvalue(*table, d, gamma=0.05 * E.GAMMA_SHARE)
    acc = d[p > 0.05]
    assert acc.min() >= lo - 1e-9 and acc.max() <= hi + 1e-9
    idx = np.flatnonzero(p > 0.05)
    assert idx[-1] - idx[0] + 1 > idx.size       # the set itself has a gap


# Islands the search used to miss (benchmarks/exact_checks.py finegrid, seed 11, before the
# zoom): one past the old 0.3 se scan (p 11.9% above alpha) and three narrower than its
# 0.01 se step; each (lo, hi) holds values the test accepts, past the old hull's end.
MISSED = [((3, 12, 71, 74), 1 - 0.05 / 30, (-0.2358, -0.2320)),
          ((24, 26, 39, 47), 1 - 0.05 / 30, (-0.2541, -0.2539)),
          ((20, 66, 17, 19), 1 - 0.05 / 30, (-0.1897, -0.1894)),
          ((3, 28, 50, 131), 0.95, (-0.0925, -0.0922))]


@pytest.mark.parametrize("table,level,island", MISSED)
def test_hull_reaches_islands_past_the_scan(table, level, island):
    alpha = 1.0 - level
    d = np.linspace(*island, 41)
    p = E.exact_pvalue(*table, d, gamma=alpha * E.GAMMA_SHARE)
    assert (p > alpha).any()                       # the test accepts there
    lo, hi = E.exact_interval(*table, level)
    accepted = d[p > alpha]
    assert lo <= accepted.min() and accepted.max() <= hi


def test_crossings_bracket_every_change_of_the_rejection_region():
    # _crossings against the region read on a dense grid: the same number of changes in
    # each interval, and each bracket has the table on different sides at its two ends
    table, alpha = (24, 26, 39, 47), 0.05 / 30
    tab = E._Table(*table, alpha / 50)
    d0 = np.array([-0.2560, -0.2545])       # changes near -0.25567, and -0.25446,
    d1 = np.array([-0.2545, -0.2540])       # -0.25408, -0.25405 (a dense grid)
    iv, left, right = inversion._crossings(tab, d0, d1)
    x = np.arange(table[1] + 1.0)[:, None, None]
    y = np.arange(table[3] + 1.0)[None, :, None]

    def region(d):
        d = np.atleast_1d(d)
        t_obs = np.abs(E.score_statistic(24.0, 39.0, 26, 47, d)) * (1 - inversion.TIE)
        return np.abs(E.score_statistic(x, y, 26, 47, d[None, None, :])) >= t_obs

    for k in range(2):
        grid = np.linspace(d0[k], d1[k], 1501)
        inside = region(grid)
        dense = int((inside[..., 1:] != inside[..., :-1]).sum())
        assert (iv == k).sum() == dense > 0
    changed = (region(left) != region(right)).reshape(-1, left.size)
    assert changed.any(axis=0).all()
    assert np.all(right - left < 1e-6)


def test_close_to_wald_for_large_counts():
    ka, na, kb, nb = 150, 1000, 100, 1000
    lo, hi = E.exact_interval(ka, na, kb, nb)
    wlo, whi = _wald(ka, na, kb, nb)
    assert 1.0 < (hi - lo) / (whi - wlo) < 1.03


# --------------------------------------------------------------------------- coverage
@pytest.mark.parametrize("na,nb", [(5, 5), (4, 9)])
def test_exact_coverage_small(na, nb):
    lo, hi = _all_intervals(na, nb)
    cov, where = _min_coverage(na, nb, lo, hi, RATES + (0.2, 0.4, 0.6))
    assert cov >= 0.95, where


def test_exact_coverage_across_the_switch(monkeypatch):
    # with a tiny variance limit every null with n p q > 1 uses the tail bound, so this
    # checks the mixed construction at sizes small enough to enumerate
    monkeypatch.setattr(inversion, "EXACT_VARIANCE", 1.0)
    na, nb = 5, 14
    lo, hi = _all_intervals(na, nb)
    cov, where = _min_coverage(na, nb, lo, hi, RATES + (0.2,))
    assert cov >= 0.95, where


@pytest.mark.slow
@pytest.mark.parametrize("na,nb", [(10, 25), (30, 30), (60, 200)])
def test_exact_coverage_by_enumeration(na, nb):
    lo, hi = _all_intervals(na, nb)
    cov, where = _min_coverage(na, nb, lo, hi, RATES + (0.2, 0.4, 0.6, 0.8, 0.95))
    assert cov >= 0.95, where


@pytest.mark.slow
@pytest.mark.parametrize("variance", [5.0, 40.0])
def test_exact_coverage_by_enumeration_mixed(monkeypatch, variance):
    monkeypatch.setattr(inversion, "EXACT_VARIANCE", variance)
    na, nb = 30, 40
    lo, hi = _all_intervals(na, nb)
    cov, where = _min_coverage(na, nb, lo, hi, RATES + (0.2, 0.4, 0.6, 0.8))
    assert cov >= 0.95, where


# --------------------------------------------------------------------------- tail bound
def test_bound_tail_bounds_the_exact_tail():
    rng = np.random.default_rng(0)
    for _ in range(300):
        na, nb = (int(v) for v in rng.integers(1, 200, 2))
        pa, pb = rng.random(2) ** rng.choice([1, 3])
        d = pa - pb
        diff = np.arange(na + 1)[:, None] / na - np.arange(nb + 1)[None, :] / nb - d
        prob = (stats.binom.pmf(np.arange(na + 1), na, pa)[:, None]
                * stats.binom.pmf(np.arange(nb + 1), nb, pb)[None, :])
        s = abs(rng.normal()) * np.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb) * 3
        exact = prob[np.abs(diff) >= s * (1 - 1e-12)].sum()
        assert float(E.bound_tail(na, nb, pa, pb, d, s)) >= exact - 1e-12


def test_bound_tail_is_at_most_hoeffdings_bound():
    # two Newton steps from the normal optimum can stop far above the Chernoff minimum for
    # a small skewed group (5 examples at 0.072: 0.087 where the minimum is about 2.7e-4);
    # Hoeffding's bound caps it, which also bounds how far out a null can be accepted
    na, nb, pa, pb = 5, 102_095, 0.0718, 0.4918
    d, s = pa - pb, 0.733
    got = float(E.bound_tail(na, nb, pa, pb, d, s))
    hoeffding = 2 * np.exp(-2 * s * s / (1 / na + 1 / nb))
    assert got <= hoeffding < 0.01
    rng = np.random.default_rng(5)
    na, nb = rng.integers(1, 10_000, 500), rng.integers(10_000, 10**7, 500)
    pa, pb = rng.random(500), rng.random(500)
    s = rng.uniform(0, 1, 500)
    cap = 2 * np.exp(-2 * s * s / (1 / na + 1 / nb))
    assert np.all(E.bound_tail(na, nb, pa, pb, pa - pb, s) <= cap * (1 + 1e-12))


@pytest.mark.parametrize("table, alpha", [((9, 18, 4_586_505, 7_541_211), 0.05 / 30),
                                          ((4, 5, 49_686, 102_095), 0.05),
                                          ((10, 20, 100_028, 109_253), 0.05 / 30)])
def test_a_small_group_against_a_large_one_keeps_every_accepted_null(table, alpha):
    # the bound tests every null; for a small group p(d) can fall below alpha past an end
    # and rise above it again well past the local scan for islands (these three tables
    # lost accepted nulls up to 0.2 past an end before the far scan); the hull now holds
    # every null accepted on a fine grid
    tab = E._Table(*table, alpha / 50)
    lo, hi = E._search(tab, alpha)
    d = np.linspace(-0.999, 0.999, 1999)
    p = E._pvalues(tab, d)[0]
    accepted = d[p > alpha]
    assert accepted.size and lo <= accepted.min() + 1e-9 and accepted.max() - 1e-9 <= hi


def test_large_groups_use_the_bound_and_stay_close_to_wald():
    ka, na, kb, nb = 750_000, 5_000_000, 500_000, 5_000_000
    lo, hi = E.exact_interval(ka, na, kb, nb)
    wlo, whi = _wald(ka, na, kb, nb)
    assert 1.0 < (hi - lo) / (whi - wlo) < 1.02


# --------------------------------------------------------------------------- planning
def test_required_n():
    a, b = GroupStats.from_counts(500, 75), GroupStats.from_counts(500, 50)
    n = E.approximate_required_n(a, b, 0.95)
    assert 640 < n < 720        # the exact interval of the expected counts: 714
    assert E.approximate_required_n(a, a, 0.95) == float("inf")
    wider = E.approximate_required_n(a, GroupStats.from_counts(500, 60), 0.95)
    assert wider > n
    assert INTERVAL_METHODS["exact"].required_n(a, b, 0.95) == n


@pytest.mark.slow
def test_required_n_matches_an_exact_evaluation():
    # at the planned size, with the observed rates as counts, the interval nearly excludes 0
    a, b = GroupStats.from_counts(300, 90), GroupStats.from_counts(300, 60)
    n = E.approximate_required_n(a, b, 0.95)
    for factor, excluded in ((0.85, False), (1.15, True)):
        m = int(round(factor * n / 2))
        lo, _ = E.exact_interval(round(0.3 * m), m, round(0.2 * m), m)
        assert (lo > 0) == excluded


# --------------------------------------------------------------------------- batches
def _large_tables(seed, m):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(m):
        na, nb = (int(v) for v in rng.integers(20_000, 3_000_000, 2))
        pa, pb = rng.uniform(0.05, 0.95, 2)
        out.append((int(na * pa), na, int(nb * pb), nb))
    return out


def test_a_batch_gives_each_table_its_own_interval():
    tables = _large_tables(0, 12)
    level = 1 - 0.05 / 12
    E.clear_cache()
    alone = [E.exact_interval(*t, level) for t in tables]
    for order in (tables, tables[::-1], tables[3:7]):
        E.clear_cache()
        E._exact_batch([(GroupStats.from_counts(na, ka), GroupStats.from_counts(nb, kb), level)
                        for ka, na, kb, nb in order])
        assert len(E._CACHE) == len(order)          # every one came from the batch
        for t in order:
            assert E.exact_interval(*t, level) == alone[tables.index(t)]
    E.clear_cache()


def test_scipy_free_helpers_match_scipy():
    # groups up to _NATIVE_CP examples need no scipy: normal quantiles, log binomial
    # coefficients and Clopper-Pearson bounds agree with scipy.special (the bounds to a
    # relative 1e-11; where they differ by more than rounding, scipy's is the less accurate
    # one on the cases checked with mpmath)
    from scipy import special

    for q in (0.5, 0.9, 0.975, 0.995, 1 - 1e-6, 1 - 1e-12, 1e-9, 0.3):
        assert E._ndtri(q) == pytest.approx(float(special.ndtri(q)), rel=1e-15, abs=1e-15)
    assert E._ndtri(1.0) == np.inf and E._ndtri(0.0) == -np.inf
    for n in (1, 7, 100, 2500, 10_000, 3_000_000):
        ks = np.unique(np.linspace(0, n, 50).round())
        ref = special.gammaln(n + 1.0) - special.gammaln(ks + 1.0) - special.gammaln(n - ks + 1.0)
        np.testing.assert_allclose(E._log_comb(n, ks), ref, rtol=1e-13, atol=1e-9)
    rng = np.random.default_rng(8)
    for _ in range(300):
        n = int(10 ** rng.uniform(0, np.log10(E._NATIVE_CP)))
        k = int(rng.integers(0, n + 1))
        miss = float(rng.choice([0.00025, 0.001, 0.05, 0.5]))
        lo, hi = E._clopper_pearson(k, n, miss)
        rlo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, miss / 2))
        rhi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1 - miss / 2))
        assert lo == pytest.approx(rlo, rel=1e-11, abs=1e-300)
        assert hi == pytest.approx(rhi, rel=1e-11)


def test_bound_regime_search_agrees_with_the_general_search():
    # the general search (_search) and the batched one (_bound_search) invert the same
    # p-value; their ends agree to within the search tolerance
    for ka, na, kb, nb in _large_tables(1, 6):
        tab = E._Table(ka, na, kb, nb, 0.05 / 50)
        assert E._bound_only(tab)
        lo, hi = E._search(tab, 0.05)
        (blo, bhi), = E._bound_search([tab], np.array([0.05]), np.array([1e-3]))
        se = np.sqrt(ka / na * (1 - ka / na) / na + kb / nb * (1 - kb / nb) / nb)
        assert abs(blo - lo) < 0.01 * se and abs(bhi - hi) < 0.01 * se


def test_a_group_against_a_large_rest_is_searched_in_the_batch():
    # the large rest alone puts every null in the tail-bound regime; the table joins the
    # batched search when both groups' counts vary (n q (1 - q) > 100), and its ends agree
    # with the general search's to the search's tolerance (1e-5); a small group, whose
    # bound p can rise again towards the nuisance edge, stays with the general search
    assert not E._bound_only(E._Table(1, 6, 5_063_414, 6_511_957, 0.05 / 30 / 50))
    assert not E._bound_only(E._Table(0, 9965, 5_000_002, 9_990_035, 0.001))
    for (ka, na, kb, nb), alpha in [((5000, 10_000, 4_995_000, 9_990_000), 0.05),
                                    ((618, 3012, 6_728_309, 8_500_329), 0.05 / 30),
                                    ((150, 700, 2_000_000, 7_000_000), 0.05),
                                    ((9000, 12_000, 40_000, 80_000), 0.01)]:
        tab = E._Table(ka, na, kb, nb, alpha / 50)
        a_large = tab.tau_a < tab.cp_a[0] and tab.cp_a[1] < 1 - tab.tau_a
        b_large = tab.tau_b < tab.cp_b[0] and tab.cp_b[1] < 1 - tab.tau_b
        assert E._bound_only(tab) and a_large != b_large       # one large group only
        lo, hi = E._search(tab, alpha)
        (blo, bhi), = E._bound_search([tab], np.array([alpha]), np.array([1e-3]))
        assert abs(blo - lo) < 1e-5 and abs(bhi - hi) < 1e-5


def test_a_bracket_that_stalls_is_settled_in_few_rounds(monkeypatch):
    # a table of the 1M-row CLI benchmark file at 1 - 0.05/30: p(d) bends near alpha
    # (the supremum moves between nuisance values), so the straight line's crossing keeps
    # missing and the bracket halved only every other round (14 rounds in all); a row
    # whose bracket once failed to halve now also takes 3 evenly spaced candidates a
    # round, and the same ends (to the search's stop) come in 8
    calls = []
    plain = inversion._bound_pvalues

    def counting(*args):
        calls.append(len(args[-1]))
        return plain(*args)

    table, alpha = (182865, 300494, 238846, 399028), 0.05 / 30
    lo, hi = E._search(E._Table(*table, alpha / 50), alpha)
    monkeypatch.setattr(inversion, "_bound_pvalues", counting)
    (blo, bhi), = E._bound_search([E._Table(*table, alpha / 50)], np.array([alpha]),
                                  np.array([1e-3]))
    assert len(calls) <= 8
    assert abs(blo - lo) < 1e-6 and abs(bhi - hi) < 1e-6


def test_a_table_gets_the_same_interval_in_any_batch():
    # each row's candidates depend on its own table only (rows take 2 or 5 candidates per
    # round by their own brackets), so the batched search gives a table the same ends
    # alone and among others, bit for bit (the audit's cache relies on it)
    rng = np.random.default_rng(11)
    tabs, alphas = [], []
    while len(tabs) < 30:       # two large groups, and a group against a large rest
        if len(tabs) % 2:
            na, nb = (int(v) for v in rng.integers(100_000, 400_000, 2))
        else:
            na, nb = int(rng.integers(400, 12_000)), int(rng.integers(12_000, 20_000_000))
        alpha = float(rng.choice([0.05, 0.05 / 30, 0.05 / 1000]))
        tab = E._Table(int(na * rng.uniform(0.05, 0.9)), na, int(nb * rng.uniform(0.05, 0.9)),
                       nb, alpha / 50)
        if E._bound_only(tab):
            tabs.append((tab.ka, tab.na, tab.kb, tab.nb))
            alphas.append(alpha)
    together = E._bound_search([E._Table(*t, a / 50) for t, a in zip(tabs, alphas,
                                                                     strict=True)],
                               np.array(alphas), np.full(len(tabs), 1e-3))
    for t, a, got in zip(tabs, alphas, together, strict=True):
        alone, = E._bound_search([E._Table(*t, a / 50)], np.array([a]), np.array([1e-3]))
        assert alone == got, (t, a)


def test_tail_bound_rows_on_threads_give_the_same_bits(monkeypatch):
    # rows are split over threads only for speed: every row's supremum is the same bits
    rng = np.random.default_rng(4)
    m = 300
    na, nb = rng.integers(50, 20_000, m).astype(float), np.full(m, 5e6)
    a = rng.uniform(0.3, 0.6, m)
    b = a + rng.uniform(0.0, 2e-3, m)
    d, s = rng.uniform(-0.05, 0.05, m), rng.uniform(0.0, 0.05, m)
    monkeypatch.setattr(inversion, "_CHUNK_ROWS", 10**9)
    one = inversion._bound_sup_rows(na, nb, d, s, a, b)
    monkeypatch.setattr(inversion, "_CHUNK_ROWS", 16)
    monkeypatch.setattr(inversion, "_threads", lambda: 3)
    assert len(inversion._row_chunks(m)) == 3
    assert inversion._bound_sup_rows(na, nb, d, s, a, b).tobytes() == one.tobytes()
    # and evaluating each row's distinct candidates only changes no bit either
    from fairbound.stats.exact.bound import _grid_sup, bound_tail

    u = np.linspace(0.0, 1.0, 9)
    nu = a[:, None] + (b - a)[:, None] * u
    col = (na[:, None], nb[:, None], d[:, None], s[:, None])
    full = _grid_sup(lambda v: bound_tail(col[0], col[1], v + col[2], v, col[2], col[3]),
                     nu, a, b, 9, 3)
    assert full.tobytes() == one.tobytes()


def test_a_supremum_at_an_end_is_settled_on_the_grid():
    # the tail bound's supremum over the nuisance rate usually sits at an end of its range:
    # a row whose best grid point is an end above its neighbour keeps the grid's value (no
    # local grids, fewer evaluations); every other row is refined exactly as before.  The
    # price: a maximum inside the last grid step is missed (row 1), a shortfall the
    # Berger-Boos margin covers for the tail bound (exact_checks.py sup)
    from fairbound.stats.exact.bound import _grid_sup

    a, b = np.zeros(3), np.ones(3)
    peak = np.array([0.0, 0.95, 0.5])        # at the end a, near the end b, inside
    calls = []

    def f(v, r):
        calls.append(v.size)
        return -(v - peak[r]) ** 2

    nu = a[:, None] + (b - a)[:, None] * np.linspace(0.0, 1.0, 9)
    plain = _grid_sup(f, nu, a, b, 9, 3, distinct=True)
    n_plain = sum(calls)
    calls.clear()
    settled = _grid_sup(f, nu, a, b, 9, 3, distinct=True, settle_ends=True)
    assert sum(calls) < n_plain
    assert settled[0] == plain[0] == 0.0
    assert settled[1] == f(nu[1], np.ones(9, int)).max() < plain[1]
    assert settled[2].tobytes() == plain[2].tobytes()


def test_bound_regime_coverage_by_enumeration(monkeypatch):
    # a tiny variance limit puts the central tables of 30 and 36 examples in the tail-bound
    # regime, so the batched search's coverage can be computed exactly
    monkeypatch.setattr(inversion, "EXACT_VARIANCE", 0.5)
    E.clear_cache()
    na, nb = 30, 36
    E._exact_batch([(GroupStats.from_counts(na, x), GroupStats.from_counts(nb, y), 0.95)
                    for x in range(na + 1) for y in range(nb + 1)])
    batched = len(E._CACHE)
    assert batched > 200
    lo, hi = _all_intervals(na, nb)
    E.clear_cache()
    cov, where = _min_coverage(na, nb, lo, hi, (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7))
    assert cov >= 0.95, where


def test_inverted_targets_do_not_depend_on_their_batch():
    # _invert_score keeps the rows of its finer grids on the table (a speed-up): a target
    # inverted alone, with others, or after others on the same table gives the same d, bit
    # for bit, and T_obs(d) is the target
    targets = np.array([2.9, -3.1, 3.0, 0.5, -0.2, 3.0, 2.95, -3.05])
    together = inversion._invert_score(inversion._Table(27, 82, 40, 329, 1e-3), targets)
    alone = np.array([inversion._invert_score(inversion._Table(27, 82, 40, 329, 1e-3),
                                              targets[i:i + 1])[0]
                      for i in range(targets.size)])
    tab = inversion._Table(27, 82, 40, 329, 1e-3)
    first = inversion._invert_score(tab, targets[::-1])[::-1]
    kept = len(tab.grid_rows)
    again = inversion._invert_score(tab, targets)
    assert together.tobytes() == alone.tobytes() == first.tobytes() == again.tobytes()
    assert 0 < kept == len(tab.grid_rows)        # the second call only read kept rows
    t = E.score_statistic(27.0, 40.0, 82, 329, together)
    assert np.allclose(t, targets, atol=1e-6)
