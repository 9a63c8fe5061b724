"""Prediction-powered intervals with a score proxy: fairbound.stats.ppi_score."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from fairbound.errors import FairboundError
from fairbound.stats.base import NotEstimable
from fairbound.stats.ppi import PPICounts, ppi_mean_interval, ppi_ratio_interval
from fairbound.stats.ppi_score import (
    ScorePPICounts,
    ppi_score_ratio_gap_interval,
    ppi_score_ratio_interval,
)


def population(rng, M, n, a=0.5):
    s = rng.beta(a, a, M)
    y = (rng.random(M) < s).astype(int)
    pred = np.where(rng.random(M) < 0.8, y, 1 - y)
    gold = np.where(rng.permutation(M) < n, y, -1)
    return gold, s, pred, y


@pytest.mark.parametrize("metric", ["tpr", "fpr", "precision", "npv"])
def test_a_zero_one_score_is_the_label_proxys_plugin_interval(metric):
    rng = np.random.default_rng(1)
    gold, s, pred, y = population(rng, 3000, 300)
    f = np.where(rng.random(3000) < 0.85, y, 1 - y)
    a = ppi_score_ratio_interval(ScorePPICounts.from_arrays(gold, f.astype(float), pred),
                                 metric=metric)
    b = ppi_ratio_interval(PPICounts.from_arrays(y=np.where(gold >= 0, gold, None), f=f,
                                                 pred=pred), metric=metric, variance="plugin")
    assert a.estimate == pytest.approx(b.estimate, abs=1e-12)
    assert a.std_error == pytest.approx(b.std_error, rel=1e-9)
    assert a.lam == pytest.approx(b.lam, abs=1e-12)


def test_error_rate_is_the_mean_interval():
    rng = np.random.default_rng(2)
    gold, s, pred, y = population(rng, 3000, 300)
    f = np.where(rng.random(3000) < 0.85, y, 1 - y)
    a = ppi_score_ratio_interval(ScorePPICounts.from_arrays(gold, f.astype(float), pred),
                                 metric="error")
    pc = PPICounts.from_arrays(y=np.where(gold >= 0, gold, None), f=f, pred=pred)
    b = ppi_mean_interval(pc.mean_stats("error"), variance="plugin")
    assert a.estimate == pytest.approx(b.estimate, abs=1e-12)
    assert a.std_error == pytest.approx(b.std_error, rel=1e-9)


@pytest.mark.parametrize("metric,truth", [("tpr", 0.8), ("error", 0.2)])
def test_coverage_with_calibrated_scores(metric, truth):
    reps, hits = 300, 0
    for r in range(reps):
        gold, s, pred, _ = population(np.random.default_rng([3, r]), 5000, 600)
        iv = ppi_score_ratio_interval(ScorePPICounts.from_arrays(gold, s, pred),
                                      metric=metric)
        hits += iv.low <= truth <= iv.high
    assert st.binomtest(hits, reps, 0.95, alternative="less").pvalue > 0.001, hits / reps


def test_score_beats_its_threshold_and_the_labels_alone():
    widths = {"score": [], "label": [], "alone": []}
    for r in range(40):
        gold, s, pred, _ = population(np.random.default_rng([4, r]), 5000, 400)
        sc = ScorePPICounts.from_arrays(gold, s, pred)
        th = ScorePPICounts.from_arrays(gold, (s >= 0.5).astype(float), pred)
        widths["score"].append(ppi_score_ratio_interval(sc, metric="tpr").width)
        widths["label"].append(ppi_score_ratio_interval(th, metric="tpr").width)
        widths["alone"].append(ppi_score_ratio_interval(sc, metric="tpr", proxy=False).width)
    m = {k: np.mean(v) for k, v in widths.items()}
    assert m["score"] < 0.97 * m["label"] < 0.97 * m["alone"]


def test_gap_pooling_and_errors():
    gold, s, pred, _ = population(np.random.default_rng(5), 2000, 300)
    c = ScorePPICounts.from_arrays(gold, s, pred)
    gap = ppi_score_ratio_gap_interval(c, c, metric="fpr")
    assert gap.estimate == 0.0
    assert gap.std_error == pytest.approx(np.sqrt(2) * ppi_score_ratio_interval(
        c, metric="fpr").std_error)
    both = c.pooled(c)
    np.testing.assert_allclose(both.labeled, 2 * c.labeled)
    empty = ScorePPICounts(labeled=np.zeros((3, 2, 2)), unlabeled=np.zeros((3, 2)))
    with pytest.raises(NotEstimable, match="group B"):
        ppi_score_ratio_gap_interval(c, empty)
    with pytest.raises(FairboundError, match="not those of scores in \\[0, 1\\]") as exc:
        ScorePPICounts(labeled=[[[1, 1], [1, 1]], [[2, 0], [0, 0]], [[0, 0], [0, 0]]],
                       unlabeled=np.zeros((3, 2)))
    assert exc.value.param == "labeled"
    with pytest.raises(FairboundError, match="score must be"):
        ScorePPICounts.from_arrays([1, 0], [0.5, 1.5], [1, 0])
    with pytest.raises(FairboundError, match="counts must be a ScorePPICounts"):
        ppi_score_ratio_interval("nope")
