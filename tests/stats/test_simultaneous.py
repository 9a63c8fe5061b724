"""Simultaneous intervals for many groups and the max-minus-min gap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, NotEstimable
from fairbound.stats.simultaneous import (
    _range_from_pairs,
    clopper_pearson,
    pairwise_intervals,
    percentile_bootstrap_range,
    simultaneous_intervals,
)


def _draw(rng, sizes, rates, fractional=False):
    if fractional:
        # Beta costs with the given means (concentration 4)
        return [GroupStats.from_costs(rng.beta(4 * r, 4 * (1 - r), n))
                for n, r in zip(sizes, rates, strict=True)]
    return [GroupStats.from_counts(n, rng.binomial(n, r)) for n, r in zip(sizes, rates,
                                                                           strict=True)]


def _covers_all(res, rates) -> bool:
    rates = np.asarray(rates)
    names = list(res.groups)
    truth = np.array([rates[names.index(a)] - rates[names.index(b)]
                      for a, b in zip(res.pair_a, res.pair_b, strict=True)])
    ok = np.all((res.pair_low <= truth + 1e-12) & (truth - 1e-12 <= res.pair_high))
    r = rates.max() - rates.min()
    if np.isfinite(res.range_low):
        ok = ok and res.range_low <= r + 1e-12 <= res.range_high + 2e-12
    return bool(ok)


def _joint_coverage(fn, sizes, rates, reps, seed, fractional=False, **kw):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        hits += _covers_all(fn(_draw(rng, sizes, rates, fractional), rng=rng, **kw), rates)
    return hits


def _assert_at_least(hits, reps, level):
    # fails only if coverage is significantly below `level` (one-sided binomial test)
    assert stats.binomtest(hits, reps, level, alternative="less").pvalue > 0.001, hits / reps


FAST_CELLS = [
    ((15, 30, 100, 400), (0.1, 0.1, 0.1, 0.1), False),  # null, small groups
    ((20, 50, 200, 1000), (0.03, 0.01, 0.05, 0.02), False),  # rare costs
    ((25, 60, 150), (0.3, 0.2, 0.25), True),  # fractional Beta costs
]


@pytest.mark.parametrize("cell", FAST_CELLS)
@pytest.mark.parametrize("method", ["betting", "clopper-pearson", "hoeffding"])
def test_simultaneous_coverage_fast(cell, method):
    sizes, rates, frac = cell
    if frac and method == "clopper-pearson":
        pytest.skip("Clopper-Pearson is for 0/1 costs")
    reps = 300
    hits = _joint_coverage(simultaneous_intervals, sizes, rates, reps, seed=5,
                           fractional=frac, method=method)
    _assert_at_least(hits, reps, 0.95)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["betting", "clopper-pearson", "hoeffding"])
@pytest.mark.parametrize(
    "cell",
    [(sizes, rates, frac)
     for sizes in [(10, 10, 10, 10), (30, 300, 3000), (100, 100, 100, 100, 100, 100),
                   (1000, 9000)]
     for rates, frac in [("null", False), ("gap", False), ("rare", False), ("gap", True)]],
)
def test_simultaneous_coverage_full(cell, method):
    sizes, kind, frac = cell
    if frac and method == "clopper-pearson":
        pytest.skip("Clopper-Pearson is for 0/1 costs")
    G = len(sizes)
    rates = {"null": [0.2] * G, "gap": list(np.linspace(0.1, 0.25, G)),
             "rare": list(np.linspace(0.01, 0.03, G))}[kind]
    reps = 500
    hits = _joint_coverage(simultaneous_intervals, sizes, rates, reps, seed=6,
                           fractional=frac, method=method)
    _assert_at_least(hits, reps, 0.95)


def test_bonferroni_betting_pairs_coverage():
    # guaranteed: blocked-pair betting at alpha/P on two pre-specified pairs
    reps = 200
    rng = np.random.default_rng(8)
    rates = [0.15, 0.1, 0.12]
    hits = 0
    for _ in range(reps):
        groups = dict(zip("abc", _draw(rng, (300, 400, 500), rates), strict=True))
        res = pairwise_intervals(groups, pairs=[("a", "b"), ("c", "b")], rng=rng)
        truth = np.array([0.05, 0.02])
        hits += bool(np.all((res.pair_low <= truth) & (truth <= res.pair_high)))
        assert np.isnan(res.range_low)  # not every pair covered: no range interval
    _assert_at_least(hits, reps, 0.95)


@pytest.mark.parametrize("method", ["wald", "max-t"])
def test_asymptotic_simultaneous_coverage(method):
    reps = 400
    hits = _joint_coverage(pairwise_intervals, (400, 600, 800, 1000), (0.3, 0.3, 0.35, 0.3),
                           reps, seed=9, method=method, n_resamples=400)
    # asymptotic methods: near nominal with large groups, allow 0.93
    _assert_at_least(hits, reps, 0.93)


def test_max_t_is_tighter_than_bonferroni_wald():
    groups = [GroupStats.from_counts(n, int(0.3 * n)) for n in (400, 600, 800, 1000, 500)]
    wald = pairwise_intervals(groups, method="wald")
    maxt = pairwise_intervals(groups, method="max-t", n_resamples=4000)
    assert np.mean(maxt.pair_high - maxt.pair_low) < np.mean(wald.pair_high - wald.pair_low)


# ----------------------------------------------------------------- max-minus-min gap


def test_naive_percentile_bootstrap_of_range_fails_on_null_data():
    # Four groups with the SAME rate: the true range is 0.  The percentile bootstrap
    # interval of max - min excludes 0 in most data sets; nominal would be 5%.
    rng = np.random.default_rng(10)
    reps, excludes, valid_excludes = 200, 0, 0
    for _ in range(reps):
        groups = _draw(rng, (200, 200, 200, 200), (0.1, 0.1, 0.1, 0.1))
        lo, _ = percentile_bootstrap_range(groups, n_resamples=500, rng=rng)
        excludes += lo > 0
        valid_excludes += simultaneous_intervals(groups, method="clopper-pearson").range_low > 0
    assert excludes / reps > 0.5
    assert stats.binomtest(excludes, reps, 0.05, alternative="greater").pvalue < 1e-12
    # the valid interval from simultaneous per-group intervals keeps 0 at least 95% of the time
    _assert_at_least(reps - valid_excludes, reps, 0.95)


def test_range_from_all_pairs_covers_when_pairs_cover():
    rng = np.random.default_rng(11)
    for _ in range(500):
        G = int(rng.integers(2, 6))
        mu = rng.random(G)
        pairs = list(itertools.combinations(range(G), 2))
        truth = np.array([mu[i] - mu[j] for i, j in pairs])
        low = truth - rng.random(len(pairs)) * 0.2
        high = truth + rng.random(len(pairs)) * 0.2
        lo, hi = _range_from_pairs(pairs, G, low, high)
        assert lo <= mu.max() - mu.min() <= hi
    assert np.isnan(_range_from_pairs([(0, 1)], 3, np.zeros(1), np.ones(1))[0])


def test_range_interval_contains_estimate_and_is_nonnegative():
    groups = {"x": GroupStats.from_counts(500, 100), "y": GroupStats.from_counts(500, 50),
              "z": GroupStats.from_counts(500, 75)}
    res = simultaneous_intervals(groups, rng=0)
    assert 0.0 <= res.range_low <= res.range_estimate <= res.range_high
    assert res.range_estimate == pytest.approx(0.1)
    assert res.guarantee == "finite-sample"
    frame = res.to_frame()
    assert list(frame["group_a"]) == ["x", "x", "y"]
    assert res.groups_frame()["n"].tolist() == [500, 500, 500]
    d = res.to_dict()
    assert d["range"]["estimate"] == pytest.approx(0.1) and len(d["pairs"]) == 3


def test_same_seed_same_output():
    groups = [GroupStats.from_costs(np.random.default_rng(i).random(60)) for i in range(3)]
    r1 = simultaneous_intervals(groups, rng=3)
    r2 = simultaneous_intervals(groups, rng=3)
    assert np.array_equal(r1.group_low, r2.group_low)


def test_clopper_pearson_reference():
    # R: binom.test(3, 50)$conf.int -> 0.01254859 0.16548195
    assert clopper_pearson(3, 50, 0.95) == pytest.approx((0.01254859, 0.16548195), abs=1e-8)
    for k, n in [(0, 10), (10, 10), (1, 2), (500, 1000)]:
        ci = stats.binomtest(k, n).proportion_ci(0.99, method="exact")
        assert clopper_pearson(k, n, 0.99) == pytest.approx((ci.low, ci.high), abs=1e-10)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: simultaneous_intervals([GroupStats.from_counts(5, 1)]), "at least two groups"),
        (lambda: simultaneous_intervals("ab"), "groups must be a mapping"),
        (lambda: simultaneous_intervals([GroupStats.from_counts(5, 1), 3]),
         "must be a GroupStats"),
        (lambda: simultaneous_intervals([GroupStats.from_counts(5, 1)] * 2, method="wald"),
         "method must be one of betting, clopper-pearson, hoeffding"),
        (lambda: simultaneous_intervals([GroupStats.from_counts(5, 1),
                                         GroupStats.from_counts(5, 1, cost_max=2.0)]),
         "groups must share cost_max"),
        (lambda: pairwise_intervals({"a": GroupStats.from_counts(5, 1),
                                     "b": GroupStats.from_counts(5, 2)}, pairs=[("a", "q")]),
         "pairs must name groups"),
        (lambda: pairwise_intervals({"a": GroupStats.from_counts(5, 1),
                                     "b": GroupStats.from_counts(5, 2)}, pairs=[("a", "a")]),
         "two different groups"),
        (lambda: pairwise_intervals([GroupStats.from_counts(5, 1)] * 2, pairs=[]),
         "at least one pair"),
        (lambda: pairwise_intervals([GroupStats.from_counts(5, 1)] * 2, method="nope"),
         "method must be one of"),
        (lambda: pairwise_intervals([GroupStats.from_counts(5, 1)] * 2, method="max-t",
                                    n_resamples=1), "n_resamples must be an integer"),
        (lambda: percentile_bootstrap_range([GroupStats.from_counts(5, 1)] * 2,
                                            confidence_level=2), "confidence_level"),
    ],
)
def test_validation(call, match):
    with pytest.raises(FairboundError, match=match):
        call()


def test_not_estimable_cases():
    with pytest.raises(NotEstimable, match="no annotated examples"):
        simultaneous_intervals([GroupStats.from_counts(0, 0), GroupStats.from_counts(5, 1)])
    frac = [GroupStats.from_costs([0.2, 0.5, 0.9]), GroupStats.from_costs([0.1, 0.4])]
    with pytest.raises(NotEstimable, match="0/1 costs"):
        simultaneous_intervals(frac, method="clopper-pearson")
    with pytest.raises(NotEstimable, match="0/1 costs"):
        pairwise_intervals(frac, method="max-t")


@pytest.mark.slow
def test_fairlearn_difference_ci_excludes_zero_on_null_data():
    # The behaviour the valid interval replaces: fairlearn's bootstrap interval of
    # max - min selection rate on 20 data sets where every group has the same rate.
    fl = pytest.importorskip("fairlearn.metrics")
    rng = np.random.default_rng(0)
    excludes = valid_excludes = 0
    for r in range(20):
        g = np.repeat(list("abcd"), 200)
        yhat = (rng.random(800) < 0.1).astype(int)
        mf = fl.MetricFrame(metrics=fl.selection_rate, y_true=yhat, y_pred=yhat,
                            sensitive_features=g, n_boot=200, ci_quantiles=[0.025, 0.975],
                            random_state=r)
        excludes += mf.difference_ci()[0] > 0
        groups = [GroupStats.from_counts(200, int(yhat[g == k].sum())) for k in "abcd"]
        valid_excludes += simultaneous_intervals(groups, rng=r).range_low > 0
    assert excludes >= 18  # measured: 20 of 20
    assert valid_excludes <= 2  # guaranteed: at most 5% in expectation


@pytest.mark.parametrize("comparison", ["pairwise", "vs-rest", "vs-reference"])
def test_audit_simultaneous_reads_every_group(comparison):
    import pandas as pd

    from fairbound.audits import audit
    from fairbound.audits.gaps.simultaneous import audit_simultaneous

    rng = np.random.default_rng(1)
    n = 4000
    g = rng.choice(np.array(["a", "b", "c", "d"], dtype=object), n)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(g == "d", 0.6, 0.85), y, 1 - y)
    df = pd.DataFrame({"g": g, "y": y, "p": p})
    res = audit(df, group="g", label="y", prediction="p",
                metrics=["equalized_odds", "accuracy_parity"], comparison=comparison,
                reference="a" if comparison == "vs-reference" else None)
    sims = audit_simultaneous(res, method="clopper-pearson")
    assert [s.label for s in sims] == ["equalized_odds[tpr]", "equalized_odds[fpr]",
                                       "accuracy_parity"]
    for s in sims:
        assert sorted(s.groups) == ["a", "b", "c", "d"]
    acc = sims[2]
    err = {k: (p[g == k] != y[g == k]).mean() for k in "abcd"}
    assert dict(zip(acc.groups, acc.means, strict=True)) == pytest.approx(err)
    assert acc.range_low > 0  # group d is clearly worse
    joint = audit_simultaneous(res, method="clopper-pearson", across_metrics=True)
    assert np.all(joint[2].group_high - joint[2].group_low
                  > acc.group_high - acc.group_low)
