"""The finite-sample slice bounds of fairbound.stats.slices.

Reference: the Clopper-Pearson bounds are checked against scipy.stats.beta.ppf (the
textbook definition: lower = Beta(k, n - k + 1) quantile at miss, upper = Beta(k + 1, n - k)
quantile at 1 - miss; Clopper & Pearson 1934), the coverage of the difference bound by
simulation, and the pruning bound by brute force over every refinement.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from fairbound.stats.slices import (
    best_refinement_bound,
    cp_lower,
    cp_upper,
    depth_weights,
    gap_lower_bound,
    harm_pvalue,
    harmonic,
    required_total_n,
)


def test_clopper_pearson_matches_the_beta_quantiles():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 500, 200)
    k = rng.integers(0, n + 1)
    q = rng.uniform(1e-6, 0.5, 200)
    ref_lo = np.where(k > 0, beta.ppf(q, np.maximum(k, 1), n - k + 1), 0.0)
    ref_hi = np.where(k < n, beta.ppf(1 - q, k + 1, np.maximum(n - k, 1)), 1.0)
    assert np.allclose(cp_lower(k, n, q), ref_lo, atol=1e-10)
    assert np.allclose(cp_upper(k, n, q), ref_hi, atol=1e-10)
    assert np.isnan(cp_lower(0, 0, 0.05)) and np.isnan(cp_upper(0, 0, 0.05))


def test_difference_bound_covers_at_small_n():
    # 4000 tables per setting; the bound must miss the true gap at most 5% (plus noise)
    rng = np.random.default_rng(1)
    for ns, nc, ps, pc in ((8, 40, 0.3, 0.3), (25, 25, 0.5, 0.4), (60, 2000, 0.1, 0.05)):
        ks = rng.binomial(ns, ps, 4000)
        kc = rng.binomial(nc, pc, 4000)
        miss = np.mean(gap_lower_bound(ks, ns, kc, nc, 0.05) > ps - pc)
        assert miss <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)


def test_pvalue_is_where_the_bound_crosses_zero():
    ks, ns, kc, nc = np.array([30, 12, 3]), np.array([50, 40, 30]), np.array([100, 100, 60]), \
        np.array([500, 1000, 600])
    p = harm_pvalue(ks, ns, kc, nc)
    assert np.all(gap_lower_bound(ks, ns, kc, nc, p * 1.01) > 0)
    assert np.all(gap_lower_bound(ks, ns, kc, nc, p * 0.99) <= 0)
    assert harm_pvalue(1, 50, 100, 500) == 1.0 and np.isnan(harm_pvalue(1, 0, 1, 5))


def test_weights_sum_to_one_and_favour_shallow_slices():
    depths = [1] * 10 + [2] * 100 + [3] * 1000
    w = depth_weights(depths)
    assert w.sum() == pytest.approx(1.0)
    assert w[0] == pytest.approx(1 / 30) and w[-1] == pytest.approx(1 / 3000)
    assert harmonic(3) == pytest.approx(1 + 1 / 2 + 1 / 3)
    assert harmonic(200_000) == pytest.approx(np.sum(1 / np.arange(1, 200_001)), rel=1e-9)


def test_pruning_bound_is_above_every_refinement():
    rng = np.random.default_rng(2)
    total_n, total_k, miss = 3000, 300, 0.01
    for k_s in (0, 1, 3, 8, 20):
        b = float(best_refinement_bound(k_s, total_k, total_n, miss))
        for n_t in range(1, 60):
            for k_t in range(0, min(k_s, n_t) + 1):
                lb = gap_lower_bound(k_t, n_t, total_k - k_t, total_n - n_t, miss)
                assert lb <= b + 1e-12
    assert rng is not None


def test_required_n_is_where_the_scaled_bound_turns_positive():
    need = float(required_total_n(9, 40, 100, 1000, 0.05))
    f = need / 1040
    assert gap_lower_bound(round(9 * f), round(40 * f), round(100 * f), round(1000 * f),
                           0.05) > 0
    f = (need - 30) / 1040
    assert gap_lower_bound(round(9 * f), round(40 * f), round(100 * f), round(1000 * f),
                           0.05) <= 0
    assert required_total_n(2, 40, 100, 1000, 0.05) == np.inf


# ----------------------------------------------------------------- the exact test, Tarone
def test_exact_pvalue_matches_scipy_fisher_exact():
    # reference implementation: scipy.stats.fisher_exact, one-sided "greater"
    from scipy.stats import fisher_exact

    from fairbound.stats.slices import exact_harm_pvalue

    rng = np.random.default_rng(1)
    for _ in range(30):
        n_s, n_c = rng.integers(1, 80, 2)
        k_s, k_c = rng.integers(0, n_s + 1), rng.integers(0, n_c + 1)
        ref = fisher_exact([[k_s, n_s - k_s], [k_c, n_c - k_c]], alternative="greater").pvalue
        got = exact_harm_pvalue(k_s, n_s, k_s + k_c, n_s + n_c)
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-15)


def test_exact_pvalue_is_exact_under_the_null_at_small_n():
    # P(p <= a) <= a for every a under the two-binomial null with equal rates (a small
    # simulation: 4,000 tables of 12 vs 40 rows at rate 0.3)
    from fairbound.stats.slices import exact_harm_pvalue

    rng = np.random.default_rng(2)
    k_s, k_c = rng.binomial(12, 0.3, 4000), rng.binomial(40, 0.3, 4000)
    p = np.array([exact_harm_pvalue(a, 12, a + b, 52) for a, b in zip(k_s, k_c,
                                                                       strict=True)])
    for a in (0.01, 0.05, 0.2):
        assert np.mean(p <= a) <= a + 3 * np.sqrt(a * (1 - a) / 4000)


def test_minimum_and_refinement_pvalues_by_brute_force():
    from math import comb, log

    from fairbound.stats.slices import (
        exact_harm_pvalue,
        exact_min_log_pvalue,
        exact_refinement_log_pvalue,
    )

    N, K = 60, 18
    for n in (1, 5, 20, 30):
        smallest = min(exact_harm_pvalue(k, n, K, N) for k in range(0, min(n, K) + 1))
        assert float(exact_min_log_pvalue(n, K, N)) == pytest.approx(log(smallest))
    for k in (1, 4, 9):
        # every refinement (n_T >= k_T, k_T <= k) has a p-value at least the bound
        best = min(exact_harm_pvalue(kt, nt, K, N) for kt in range(1, k + 1)
                   for nt in range(kt, N))
        bound = exact_refinement_log_pvalue(k, K, N)[0]
        assert bound == pytest.approx(log(comb(K, k) / comb(N, k)))
        assert bound <= log(best) + 1e-12
    assert np.isinf(exact_min_log_pvalue(0, K, N))


def test_tarone_weights_sum_to_one_over_the_testable_and_drop_the_rest():
    import math

    from fairbound.stats.slices import tarone_depth_weights

    depths = [1] * 4 + [2] * 20
    lmin = [-40.0] * 4 + [-40.0] * 5 + [math.log(0.01)] * 15   # 15 cannot reach 0.05/20
    w, m = tarone_depth_weights(depths, lmin, 0.05)
    assert m == 9 and w.sum() == pytest.approx(1.0)
    assert np.all(w[9:] == 0) and np.allclose(w[:4], 1 / 8) and np.allclose(w[4:9], 1 / 10)
    # every slice kept can reach its level; none dropped could at its first weight
    assert np.all(np.exp(lmin[:9]) <= 0.05 * w[:9])
    wf, mf = tarone_depth_weights(depths, lmin, 0.05, fdr=True)
    assert mf >= m and wf.sum() == pytest.approx(1.0)


def _tail_values(n, k_total, n_total):
    """Every ``P(X >= k)`` of the hypergeometric null, from scipy."""
    from scipy.stats import hypergeom

    ks = np.arange(0, int(min(n, k_total)) + 1)
    return hypergeom.sf(ks - 1, n_total, k_total, n)


def _attainable(level, sf):
    ok = sf <= level
    return float(sf[ok].max()) if ok.any() else 0.0


@pytest.mark.parametrize("seed", range(2))
def test_discrete_scale_keeps_the_attainable_sizes_within_alpha(seed):
    # the scaled levels' attainable sizes, recomputed from scipy's tails, sum to at most
    # alpha (the family-wise bound), and 1% more scale would exceed it (the largest scale)
    from fairbound.stats.slices import discrete_scale

    rng = np.random.default_rng(seed)
    tight = 0
    for trial in range(10):
        n_total = int(rng.integers(50, 4_000))
        k_total = int(rng.integers(1, n_total))
        m = int(rng.integers(1, 25))
        n = rng.integers(1, max(2, n_total // 3), m).astype(float)
        w = rng.random(m)
        w[rng.random(m) < 0.2] = 0.0          # slices Tarone dropped
        alpha = (0.05, 0.01, 0.1)[trial % 3]
        c = alpha * w / max(w.sum(), 1e-12)
        s = discrete_scale(c, n, k_total, n_total, alpha)
        assert s >= 1.0
        tails = [_tail_values(ni, k_total, n_total) for ni in n]
        live = [(ci, sf) for ci, sf in zip(c, tails, strict=True) if ci > 0]
        assert sum(_attainable(s * ci, sf) for ci, sf in live) <= alpha
        more = sum(_attainable(1.01 * s * ci, sf) for ci, sf in live)
        tight += more > alpha or s * c.max() >= 0.5 * 0.99
    assert tight >= 8


def test_discrete_scale_is_one_where_the_tests_are_nearly_continuous():
    # counts with a standard deviation above DISCRETE_SD use F(c) <= c: no room is left
    from fairbound.stats.slices import discrete_scale

    s = discrete_scale(np.full(10, 0.005), np.full(10, 400_000.0), 1_500_000, 10_000_000,
                       0.05)
    assert s == 1.0


def test_discrete_scale_tabulates_the_tails_exactly():
    from scipy.stats import hypergeom

    from fairbound.stats.slices import _tails

    n = np.array([5.0, 40.0, 300.0, 2_000.0])
    tail, k0, rest = _tails(n, 1_000, 9_000)
    for i, ni in enumerate(n):
        row = tail[i][np.isfinite(tail[i])]
        ks = k0[i] + np.arange(row.size)
        ref = hypergeom.sf(ks - 1, 9_000, 1_000, ni)
        # the row misses only the mass past its end, which ``rest`` bounds
        assert np.all(row <= ref * (1 + 1e-10))
        assert np.all(ref <= row * (1 + 1e-10) + rest[i])
        assert rest[i] < 1e-20
