"""Weighted (inverse-probability) prediction-powered intervals: fairbound.stats.ppi_ipw."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi import PPICounts, classical_ratio_gap_interval
from fairbound.stats.ppi_ipw import (
    WeightedPPICounts,
    ipw_ratio_gap_interval,
    ipw_ratio_interval,
)


def population(rng, M, *, rate=0.4, accuracy=0.8, a=0.3):
    """Calibrated proxy scores s, gold y ~ Bernoulli(s), proxy label f = [s >= 0.5]."""
    s = rng.beta(a, a, M)
    y = (rng.random(M) < s).astype(int) if rate is None else (rng.random(M) < s).astype(int)
    f = (s >= 0.5).astype(int)
    pred = np.where(rng.random(M) < accuracy, y, 1 - y)
    return s, y, f, pred


def active_draw(rng, s, budget, mix=0.2, candidates=None):
    M = len(s)
    cand = np.ones(M, bool) if candidates is None else candidates
    u = np.where(cand, np.sqrt(np.minimum(s, 1 - s)), 0.0)
    base = (1 - mix) * u / u.sum() + mix * cand / cand.sum()
    pi = np.minimum(budget * base, 1.0)
    return cand & (rng.random(M) < pi), pi


def counts_of(y, f, pred, drawn_batches):
    """``drawn_batches``: list of (drawn mask, pi) in batch order 1, 2, ..."""
    lab = np.full(len(y), -1)
    prob = np.full(len(y), np.nan)
    batch = np.full(len(y), -1)
    for j, (d, pi) in enumerate(drawn_batches, start=1):
        lab[d] = y[d]
        prob[d] = pi[d]
        batch[d] = j
    return WeightedPPICounts.from_arrays(lab, f, pred, probability=prob, batch=batch)


def test_uniform_design_without_proxy_is_the_labeled_ratio_and_its_wald_interval():
    rng = np.random.default_rng(1)
    M, n = 5000, 800
    _, y, f, pred = population(rng, M)
    lab = np.full(M, -1)
    idx = rng.choice(M, n, replace=False)
    lab[idx] = y[idx]
    c = WeightedPPICounts.from_arrays(lab, f, pred, probability=np.full(M, np.nan),
                                      batch=np.zeros(M))
    r = ipw_ratio_interval(c, metric="tpr", proxy=False)
    yl, pl = y[idx], pred[idx]
    tpr = (yl * pl).sum() / yl.sum()
    assert r.estimate == pytest.approx(tpr, abs=1e-12)
    assert r.lam == (0.0,)
    # the labeled-only delta-method interval of fairbound.stats.ppi on the same rows
    pc = PPICounts.from_arrays(y=np.where(lab >= 0, lab, None), f=f, pred=pred)
    ref = classical_ratio_gap_interval(pc, pc, metric="tpr")   # variance of A - A: 2 var
    assert r.std_error == pytest.approx(ref.std_error / math.sqrt(2), rel=0.02)


def test_perfect_proxy_reaches_the_full_data_variance():
    rng = np.random.default_rng(2)
    M = 8000
    _, y, _, pred = population(rng, M)
    d, pi = active_draw(rng, np.full(M, 0.3), 300)
    c = counts_of(y, y, pred, [(d, pi)])
    r = ipw_ratio_interval(c, metric="tpr")
    tpr = (y * pred).sum() / y.sum()
    assert r.lam == pytest.approx((1.0,))
    assert r.estimate == pytest.approx(tpr, abs=1e-12)
    full_se = math.sqrt(tpr * (1 - tpr) / y.sum())
    assert r.std_error == pytest.approx(full_se, rel=0.02)


def test_an_error_rate_is_a_mean_and_accuracy_of_a_useless_proxy_costs_little():
    rng = np.random.default_rng(3)
    M = 6000
    s, y, _, pred = population(rng, M)
    f = rng.integers(0, 2, M)     # a useless proxy
    d, pi = active_draw(rng, s, 600, mix=1.0)   # uniform
    c = counts_of(y, f, pred, [(d, pi)])
    with_proxy = ipw_ratio_interval(c, metric="error")
    alone = ipw_ratio_interval(c, metric="error", proxy=False)
    assert with_proxy.width <= 1.05 * alone.width


def _coverage(reps, M, budgets, metric, *, adaptive=False, seed=0):
    hits = 0
    truth = {"tpr": 0.8, "fpr": 0.2, "error": 0.2}[metric]
    for r in range(reps):
        rng = np.random.default_rng([seed, r])
        s, y, f, pred = population(rng, M)
        done = np.zeros(M, bool)
        batches = []
        for j, b in enumerate(budgets):
            mix = 0.2
            if adaptive and j > 0:   # the next design uses the labels seen so far
                seen_err = np.mean(y[done] != f[done]) if done.any() else 0.5
                mix = 0.1 if seen_err < 0.2 else 0.5
            d, pi = active_draw(rng, s, b, mix=mix, candidates=~done)
            batches.append((d, pi))
            done |= d
        c = counts_of(y, f, pred, batches)
        iv = ipw_ratio_interval(c, metric=metric)
        hits += iv.low <= truth <= iv.high
    return hits


@pytest.mark.parametrize("budgets,adaptive", [((1500,), False), ((500, 500, 500), True)])
@pytest.mark.parametrize("metric", ["tpr", "error"])
def test_coverage_with_uncertainty_sampling_and_adaptive_batches(budgets, adaptive, metric):
    reps = 300
    hits = _coverage(reps, 20_000, budgets, metric, adaptive=adaptive)
    # within binomial noise of nominal (one-sided, both ways)
    assert st.binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.001, hits / reps
    assert st.binomtest(hits, reps, 0.95, alternative="greater").pvalue > 0.001, hits / reps


def test_uncertainty_sampling_is_narrower_than_uniform_at_the_same_budget():
    widths = {True: [], False: []}
    for r in range(60):
        rng = np.random.default_rng([9, r])
        s, y, f, pred = population(rng, 20_000)
        for active in (True, False):
            d, pi = active_draw(rng, s, 1500, mix=0.2 if active else 1.0)
            widths[active].append(ipw_ratio_interval(counts_of(y, f, pred, [(d, pi)]),
                                                     metric="tpr").width)
    assert np.mean(widths[True]) < 0.95 * np.mean(widths[False])


def test_gap_adds_the_groups_variances_and_names_a_group_that_is_not_estimable():
    rng = np.random.default_rng(4)
    s, y, f, pred = population(rng, 4000)
    d, pi = active_draw(rng, s, 400)
    a = counts_of(y, f, pred, [(d, pi)])
    gap = ipw_ratio_gap_interval(a, a, metric="fpr")
    one = ipw_ratio_interval(a, metric="fpr")
    assert gap.estimate == 0.0
    assert gap.std_error == pytest.approx(math.sqrt(2) * one.std_error)
    empty = WeightedPPICounts(unlabeled=[[10, 0], [0, 10]], batches=(), n=np.zeros((0, 2, 2, 2)),
                              w=np.zeros((0, 2, 2, 2)), w2=np.zeros((0, 2, 2, 2)))
    with pytest.raises(NotEstimable, match="group B"):
        ipw_ratio_gap_interval(a, empty, metric="fpr")


def test_pooling_adds_cells_batch_by_batch():
    rng = np.random.default_rng(5)
    s, y, f, pred = population(rng, 3000)
    d, pi = active_draw(rng, s, 300)
    half = np.arange(3000) < 1500
    a = counts_of(y[half], f[half], pred[half], [(d[half], pi[half])])
    b = counts_of(y[~half], f[~half], pred[~half], [(d[~half], pi[~half])])
    both = counts_of(y, f, pred, [(d, pi)])
    p = a.pooled(b)
    for name in ("n", "w", "w2", "unlabeled"):
        np.testing.assert_allclose(getattr(p, name), getattr(both, name))
    assert ipw_ratio_interval(p).estimate == pytest.approx(ipw_ratio_interval(both).estimate)


@pytest.mark.parametrize("kwargs,param", [
    (dict(batches=(2, 1)), "batches"),
    (dict(n=np.ones((1, 2, 2))), "n"),
    (dict(w=np.full((1, 2, 2, 2), 0.5)), "w"),
    (dict(unlabeled=[[1, -1], [0, 0]]), "unlabeled"),
])
def test_bad_counts_name_the_argument(kwargs, param):
    good = dict(unlabeled=[[1, 1], [1, 1]], batches=(1,), n=np.ones((1, 2, 2, 2)),
                w=np.full((1, 2, 2, 2), 2.0), w2=np.full((1, 2, 2, 2), 4.0))
    if "batches" in kwargs:
        good.update(n=np.ones((2, 2, 2, 2)), w=np.full((2, 2, 2, 2), 2.0),
                    w2=np.full((2, 2, 2, 2), 4.0))
    good.update(kwargs)
    with pytest.raises(FairboundError) as exc:
        WeightedPPICounts(**good)
    assert exc.value.param == param


def test_wrong_type_is_one_line():
    with pytest.raises(FairboundError, match="counts must be a WeightedPPICounts"):
        ipw_ratio_interval(PPICounts(labeled=np.ones((2, 2, 2)), unlabeled=np.ones((2, 2))))
