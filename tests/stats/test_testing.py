"""p-values, e-values and the studentized permutation test for "no gap"."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, NotEstimable
from fairbound.stats.testing import e_value, p_value, permutation_test


def _welch(x, y, axis=-1):
    se = np.sqrt(x.var(axis=axis, ddof=1) / x.shape[axis] + y.var(axis=axis, ddof=1)
                 / y.shape[axis])
    return (x.mean(axis=axis) - y.mean(axis=axis)) / se


# --------------------------------------------------------------------------- z-test


@pytest.mark.parametrize("alt,sm_alt", [("two-sided", "two-sided"), ("greater", "larger"),
                                        ("less", "smaller")])
@pytest.mark.parametrize("counts", [(90, 500, 50, 500), (3, 40, 9, 60), (200, 1000, 190, 900)])
def test_z_binary_matches_statsmodels(counts, alt, sm_alt):
    k1, n1, k2, n2 = counts
    _, ref = proportions_ztest([k1, k2], [n1, n2], alternative=sm_alt)  # pooled variance
    got = p_value(GroupStats.from_counts(n1, k1), GroupStats.from_counts(n2, k2),
                  method="z", alternative=alt)
    assert got == pytest.approx(ref, rel=1e-10)


def test_z_fractional_matches_statsmodels_unequal_variances():
    rng = np.random.default_rng(0)
    x, y = rng.beta(2, 5, 80), rng.beta(2, 4, 50)
    cm = CompareMeans(DescrStatsW(x), DescrStatsW(y))
    _, ref = cm.ztest_ind(usevar="unequal")
    assert p_value(GroupStats.from_costs(x), GroupStats.from_costs(y)) == \
        pytest.approx(ref, rel=1e-10)


# ----------------------------------------------------------------------- permutation


@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("counts", [(2, 7, 6, 8), (0, 6, 4, 9), (5, 8, 5, 7)])
def test_exact_permutation_matches_scipy_enumeration(counts, alt):
    # Reference: scipy.stats.permutation_test enumerating every relabelling of the rows
    # (C(15, 7) = 6435 < n_resamples, so scipy is exact) with the same statistic.
    k1, n1, k2, n2 = counts
    x = np.r_[np.ones(k1), np.zeros(n1 - k1)]
    y = np.r_[np.ones(k2), np.zeros(n2 - k2)]

    def stat(a, b, axis=-1):
        pa, pb = a.mean(axis=axis), b.mean(axis=axis)
        se = np.sqrt(pa * (1 - pa) / a.shape[axis] + pb * (1 - pb) / b.shape[axis])
        with np.errstate(invalid="ignore", divide="ignore"):
            t = (pa - pb) / se
            return np.where(se > 0, t, np.where(pa == pb, 0.0, np.sign(pa - pb) * np.inf))

    if alt == "two-sided":  # |T| >= |t| (scipy's two-sided doubles the smaller tail instead)
        ref = stats.permutation_test((x, y), lambda a, b, axis=-1: np.abs(stat(a, b, axis)),
                                     permutation_type="independent", n_resamples=100_000,
                                     alternative="greater", vectorized=True)
    else:
        ref = stats.permutation_test((x, y), stat, permutation_type="independent",
                                     n_resamples=100_000, alternative=alt, vectorized=True)
    res = permutation_test(GroupStats.from_counts(n1, k1), GroupStats.from_counts(n2, k2),
                           alternative=alt)
    assert res.exact
    assert res.p_value == pytest.approx(ref.pvalue, abs=1e-9)


def test_fractional_permutation_uses_welch_statistic():
    rng = np.random.default_rng(1)
    x, y = rng.beta(2, 5, 30), rng.beta(2, 3, 40)
    res = permutation_test(GroupStats.from_costs(x), GroupStats.from_costs(y), n_resamples=999,
                           rng=0)
    assert res.statistic == pytest.approx(_welch(x, y))
    assert not res.exact and res.n_resamples == 999
    assert res.p_value == pytest.approx(((np.abs(res.null_distribution)
                                          >= abs(res.statistic) - 1e-9).sum() + 1) / 1000)
    # same seed, same answer
    again = permutation_test(GroupStats.from_costs(x), GroupStats.from_costs(y),
                             n_resamples=999, rng=0)
    assert again.p_value == res.p_value


def test_exact_permutation_is_exact_under_the_null():
    # For 0/1 costs equal means imply exchangeability, so the size is at most alpha.
    rng = np.random.default_rng(7)
    reps, rejections = 2000, 0
    for _ in range(reps):
        a = GroupStats.from_counts(40, rng.binomial(40, 0.2))
        b = GroupStats.from_counts(120, rng.binomial(120, 0.2))
        rejections += permutation_test(a, b).p_value <= 0.05
    assert stats.binomtest(rejections, reps, 0.05, alternative="greater").pvalue > 0.001
    assert rejections > 0


def test_studentized_permutation_with_unequal_variances():
    # DiCiccio & Romano: the studentized test keeps its level for equal means with unequal
    # variances and unequal sizes, where the unstudentized permutation test does not.
    rng = np.random.default_rng(11)
    reps, rejections = 200, 0
    for _ in range(reps):
        x = rng.beta(0.5, 0.5, 20)  # mean 1/2, variance 1/8
        y = rng.beta(20, 20, 100)  # mean 1/2, variance 1/164
        res = permutation_test(GroupStats.from_costs(x), GroupStats.from_costs(y),
                               n_resamples=299, rng=rng)
        rejections += res.p_value <= 0.05
    assert stats.binomtest(rejections, reps, 0.05, alternative="greater").pvalue > 0.001


# ------------------------------------------------------------------------ betting


def test_betting_p_value_and_e_value_are_valid_under_the_null():
    rng = np.random.default_rng(3)
    reps, rejections, evals = 400, 0, []
    for _ in range(reps):
        a = GroupStats.from_counts(150, rng.binomial(150, 0.3))
        b = GroupStats.from_counts(400, rng.binomial(400, 0.3))
        rejections += p_value(a, b, method="betting", rng=rng) <= 0.05
        evals.append(e_value(a, b, rng=rng))
    assert stats.binomtest(rejections, reps, 0.05, alternative="greater").pvalue > 0.001
    evals = np.array(evals)
    # E[e] <= 1 under the null: one-sided t bound on the mean
    assert evals.mean() - 3 * evals.std(ddof=1) / np.sqrt(reps) <= 1.0


def test_betting_detects_a_real_gap():
    a, b = GroupStats.from_counts(1500, 225), GroupStats.from_counts(1500, 150)
    assert p_value(a, b, method="betting") < 0.01
    assert e_value(a, b) > 100
    assert e_value(a, b, alternative="greater") > e_value(a, b, alternative="less")


def test_betting_fractional_needs_sample():
    with pytest.raises(NotEstimable, match="per-example costs"):
        e_value(GroupStats(n=10, total=4.0, total_sq=2.0), GroupStats.from_counts(10, 3))


def test_calibrated_e_value():
    a, b = GroupStats.from_counts(300, 60), GroupStats.from_counts(300, 40)
    p = p_value(a, b)
    assert e_value(a, b, method="calibrated") == pytest.approx(0.5 / np.sqrt(p))
    assert e_value(a, b, method="calibrated", kappa=0.2) == pytest.approx(0.2 * p ** -0.8)


def test_p_values_agree_on_direction():
    a, b = GroupStats.from_counts(400, 80), GroupStats.from_counts(400, 40)
    for m in ("z", "permutation", "betting"):
        assert p_value(a, b, method=m, alternative="greater") < 0.05
        assert p_value(a, b, method=m, alternative="less") > 0.5


@pytest.mark.parametrize(
    "func,kwargs,match",
    [
        (p_value, dict(method="t"), "method must be one of z, permutation, betting"),
        (e_value, dict(method="z"), "method must be one of betting, calibrated"),
        (p_value, dict(alternative="bigger"), "alternative must be one of"),
        (e_value, dict(method="calibrated", kappa=1.5), "kappa must be in"),
        (e_value, dict(confidence_level=0), "confidence_level must be in"),
        (permutation_test, dict(n_resamples=0), "n_resamples must be a positive integer"),
    ],
)
def test_validation(func, kwargs, match):
    with pytest.raises(FairboundError, match=match):
        func(GroupStats.from_counts(20, 5), GroupStats.from_counts(20, 8), **kwargs)


def test_group_type_and_empty_group():
    with pytest.raises(FairboundError, match="a must be a GroupStats"):
        p_value([1, 0], GroupStats.from_counts(3, 1))
    with pytest.raises(NotEstimable, match="no annotated examples"):
        p_value(GroupStats.from_counts(0, 0), GroupStats.from_counts(3, 1))
