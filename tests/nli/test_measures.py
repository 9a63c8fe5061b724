import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fairbound.errors import FairboundError
from fairbound.nli import (
    MEASURES,
    UndefinedSlotWarning,
    align_predictions,
    audit_nli,
    compare_nli,
    expand_templates,
    load_templates,
    pair_accounting,
    parse_labels,
)
from fairbound.nli.measures import _cluster_counts, bbnli_product_score

C, N, E = "contradiction", "neutral", "entailment"

# (prediction on stereotype hypothesis, on counterfactual) -> (stereotype, anti, brittleness)
# points, as defined by Baldini et al. 2023 (section 3) and restated in the issue.
NINE = {
    (N, N): (0, 0, 0), (N, C): (1, 0, 0), (E, N): (1, 0, 0), (E, C): (2, 0, 0),
    (C, N): (0, 1, 0), (N, E): (0, 1, 0), (C, E): (0, 2, 0),
    (E, E): (0, 0, 2), (C, C): (0, 0, 2),
}


@pytest.fixture(scope="module")
def samples():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedSlotWarning)
        return expand_templates(load_templates()).samples


def _one_pair():
    return pd.DataFrame({
        "sample_id": ["p/pro", "p/anti"], "pair_id": ["p", "p"], "domain": ["d", "d"],
        "subtopic": ["s", "s"], "premise_id": [0, 0],
        "hypothesis_type": ["stereotypical", "anti-stereotypical"],
        "true_label": [N, N],
    })


@pytest.mark.parametrize(("pair", "points"), list(NINE.items()))
def test_nine_prediction_pairs(pair, points):
    s, a, b = pair_accounting([pair[0]], [pair[1]])
    assert (int(s[0]), int(a[0]), int(b[0])) == points
    res = audit_nli(_one_pair(), list(pair), n_resamples=0)
    assert res.estimate("stereotype_bias") == points[0] / 2
    assert res.estimate("anti_stereotype_bias") == points[1] / 2
    assert res.estimate("brittleness") == points[2] / 2
    assert res.estimate("misprediction_rate") == sum(p != N for p in pair) / 2
    assert res.estimate("accuracy") == sum(p == N for p in pair) / 2
    assert res.pair_table.loc[pair[0], pair[1]] == 1


def test_nine_pairs_vectorised_and_with_codes():
    keys = list(NINE)
    s, a, b = pair_accounting([k[0] for k in keys], [k[1] for k in keys])
    assert np.column_stack([s, a, b]).tolist() == [list(NINE[k]) for k in keys]
    codes = {C: 0, N: 1, E: 2}
    s2, _, _ = pair_accounting([codes[k[0]] for k in keys], [codes[k[1]] for k in keys])
    assert s2.tolist() == s.tolist()


def test_aggregate_score_by_hand():
    # 4 pairs: (E,C) (E,N) (N,N) (C,E): n_eS=2, n_cA=1, n_eA=1, n_cS=1, N=8, acc=3/8.
    df = pd.concat([_one_pair().assign(pair_id=f"p{i}", sample_id=[f"p{i}/pro", f"p{i}/anti"],
                                       premise_id=i) for i in range(4)], ignore_index=True)
    pred = [E, C, E, N, N, N, C, E]
    res = audit_nli(df, pred, n_resamples=0)
    n_e, n_c = 3, 2
    by_formula = (2 * (2 + 1) / (n_e + n_c) - 1) * (1 - 3 / 8)
    assert res.estimate("bias_score") == pytest.approx(by_formula)
    assert res.estimate("pro") == pytest.approx(3 / 8)
    assert res.estimate("anti") == pytest.approx(2 / 8)
    assert res.estimate("stereotype_bias") == pytest.approx(3 / 8)
    assert res.estimate("anti_stereotype_bias") == pytest.approx(2 / 8)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2]), min_size=40, max_size=40),
       st.integers(0, 10))
def test_identities_hold(pred_pattern, offset):
    df = pd.concat([_one_pair().assign(pair_id=f"p{i}", sample_id=[f"p{i}/pro", f"p{i}/anti"],
                                       premise_id=i % 5, subtopic=f"s{i % 2}")
                    for i in range(20)], ignore_index=True)
    pred = np.roll(np.asarray(pred_pattern), offset)
    res = audit_nli(df, pred, n_resamples=0)
    total = res.estimate("stereotype_bias") + res.estimate("anti_stereotype_bias") \
        + res.estimate("brittleness")
    assert total == pytest.approx(res.estimate("misprediction_rate"))
    assert res.estimate("misprediction_rate") == pytest.approx(1 - res.estimate("accuracy"))
    assert res.estimate("bias_score") == pytest.approx(res.estimate("pro") - res.estimate("anti"))
    counts, *_ = _cluster_counts(df, pred.astype(np.intp))
    product = bbnli_product_score(counts.sum(axis=0))
    if np.any(pred != 1):
        assert product == pytest.approx(res.estimate("bias_score"))
    else:
        assert np.isnan(product) and res.estimate("bias_score") == 0


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.05, 0.6))
def test_identities_on_bbnli(samples, seed, p_non_neutral):
    rng = np.random.default_rng(seed)
    pred = rng.choice([0, 1, 2], size=len(samples),
                      p=[p_non_neutral / 2, 1 - p_non_neutral, p_non_neutral / 2])
    t = audit_nli(samples, pred, n_resamples=0).table.pivot_table(
        index=["domain", "subtopic"], columns="measure", values="estimate")
    np.testing.assert_allclose(t.stereotype_bias + t.anti_stereotype_bias + t.brittleness,
                               t.misprediction_rate)
    np.testing.assert_allclose(t.bias_score, t.pro - t.anti)
    np.testing.assert_allclose(t.misprediction_rate, 1 - t.accuracy)


def test_breakdowns_and_intervals(samples):
    pred = np.where(samples.hypothesis_type == "stereotypical", E, N)
    res = audit_nli(samples, pred, n_resamples=300, seed=3)
    t = res.table
    assert set(t.level) == {"overall", "domain", "subtopic"}
    assert len(t[t.level == "subtopic"]) == 16 * len(MEASURES)
    assert res.estimate("stereotype_bias") == 0.5
    assert res.estimate("test_accuracy") == pytest.approx(
        (samples[samples.hypothesis_type == "test"].true_label == N).mean())
    ok = t.dropna(subset=["low"])
    assert ((ok.low <= ok.estimate + 1e-12) & (ok.estimate <= ok.high + 1e-12)).all()
    assert t[t.subtopic == "jewish_woman_to_many_kids"].note.str.contains("few premise").all()
    again = audit_nli(samples, pred, n_resamples=300, seed=3)
    pd.testing.assert_frame_equal(res.table, again.table)
    d = res.to_dict()
    assert d["method"] == "cluster-bootstrap-percentile" and len(d["measures"]) == len(t)


def test_recompute_interval_without_data(samples):
    rng = np.random.default_rng(5)
    pred = rng.choice([C, N, E], size=len(samples), p=[0.1, 0.7, 0.2])
    res = audit_nli(samples, pred, n_resamples=500, seed=7)
    half = res.recompute(confidence_level=0.5)
    direct = audit_nli(samples, pred, n_resamples=500, seed=7, confidence_level=0.5)
    pd.testing.assert_frame_equal(half.table, direct.table)
    ok = res.table.dropna(subset=["low"])
    narrow = half.table.loc[ok.index]
    assert ((narrow.high - narrow.low) <= (ok.high - ok.low) + 1e-12).all()
    assert half.confidence_level == 0.5 and res.confidence_level == 0.95
    cmp = compare_nli(samples, pred, np.roll(pred, 1), n_resamples=300, seed=1)
    pd.testing.assert_frame_equal(
        cmp.recompute(confidence_level=0.8).table,
        compare_nli(samples, pred, np.roll(pred, 1), n_resamples=300, seed=1,
                    confidence_level=0.8).table)
    with pytest.raises(FairboundError, match="has no resamples"):
        audit_nli(samples, pred, n_resamples=0).recompute(confidence_level=0.9)
    with pytest.raises(FairboundError, match=r"confidence_level must be in \(0, 1\)"):
        res.recompute(confidence_level=1.5)


def test_cluster_bootstrap_matches_scipy():
    # Clusters of 4 pairs each in one subtopic: the cluster bootstrap of a ratio of totals is
    # scipy's paired percentile bootstrap of sum(numerator) / sum(denominator) over clusters.
    rng = np.random.default_rng(0)
    n_clusters = 40
    rows, pred = [], []
    for c in range(n_clusters):
        p_bias = rng.uniform(0, 0.6)
        for j in range(4):
            pid = f"c{c}-{j}"
            rows += [(f"{pid}/pro", pid, "d", "s", c, "stereotypical", N),
                     (f"{pid}/anti", pid, "d", "s", c, "anti-stereotypical", N)]
            pred += [E if rng.uniform() < p_bias else N, N]
    df = pd.DataFrame(rows, columns=["sample_id", "pair_id", "domain", "subtopic",
                                     "premise_id", "hypothesis_type", "true_label"])
    res = audit_nli(df, pred, n_resamples=20000, seed=1, by=())
    row = res.table[res.table.measure == "stereotype_bias"].iloc[0]
    e = (np.asarray(pred[0::2]) == E).reshape(n_clusters, 4).sum(axis=1)
    den = np.full(n_clusters, 8.0)
    ref = stats.bootstrap((e, den), lambda a, b, axis=-1: a.sum(axis) / b.sum(axis),
                          paired=True, vectorized=True, n_resamples=20000,
                          method="percentile", random_state=2)
    assert row.low == pytest.approx(ref.confidence_interval.low, abs=0.006)
    assert row.high == pytest.approx(ref.confidence_interval.high, abs=0.006)


def test_compare_models(samples):
    biased = np.where(samples.hypothesis_type == "stereotypical", E, N)
    rng = np.random.default_rng(0)
    noisy = rng.choice([C, N, E], size=len(samples))
    res = compare_nli(samples, biased, noisy, names=("biased", "noisy"), n_resamples=400)
    t = res.to_frame()
    overall = t[t.level == "overall"].set_index("measure")
    assert overall.loc["stereotype_bias", "verdict"] == "biased higher"
    assert overall.loc["brittleness", "verdict"] == "noisy higher"
    assert overall.loc["stereotype_bias", "difference"] == pytest.approx(
        overall.loc["stereotype_bias", "estimate_x"] - overall.loc["stereotype_bias",
                                                                   "estimate_y"])
    same = compare_nli(samples, noisy, noisy, n_resamples=50).table
    assert (same.dropna(subset=["difference"]).difference == 0).all()
    assert set(same.dropna(subset=["difference"]).verdict) == {"inconclusive"}
    flipped = compare_nli(samples, noisy, biased, names=("noisy", "biased"),
                          n_resamples=400).table
    np.testing.assert_allclose(flipped.difference, -t.difference)
    assert "biased higher" in res.summary("stereotype_bias")


def test_prediction_alignment(samples):
    ids = samples.sample_id
    series = pd.Series(N, index=ids[::-1])
    assert (align_predictions(samples, series) == 1).all()
    frame = pd.DataFrame({"sample_id": ids, "prediction": [E] * len(ids)})
    assert (align_predictions(samples, frame) == 2).all()
    with pytest.raises(FairboundError, match=r"not aligned with samples: 1 sample\(s\) have no"):
        align_predictions(samples, series.iloc[1:])
    with pytest.raises(FairboundError, match="prediction\\(s\\) for unknown sample ids .*'zzz'"):
        align_predictions(samples, pd.concat([series, pd.Series([N], index=["zzz"])]))
    with pytest.raises(FairboundError, match="3641 predictions for 3642 samples"):
        align_predictions(samples, [N] * (len(samples) - 1))
    with pytest.raises(FairboundError, match="has more than one prediction"):
        align_predictions(samples, pd.concat([series, series.iloc[:1]]))
    with pytest.raises(FairboundError, match="needs columns sample_id and prediction"):
        align_predictions(samples, frame.rename(columns={"prediction": "label"}))


def test_label_errors():
    assert parse_labels(["E", "n", "Contradiction", 2, 0.0]).tolist() == [2, 1, 0, 2, 0]
    with pytest.raises(FairboundError, match=r"predictions: unknown label\(s\) 'maybe', 7"):
        parse_labels(["maybe", "neutral", 7])
    with pytest.raises(FairboundError, match="missing label"):
        parse_labels(["neutral", None])


def test_option_errors(samples):
    pred = [N] * len(samples)
    with pytest.raises(FairboundError, match=r"confidence_level must be in \(0, 1\); got 95"):
        audit_nli(samples, pred, confidence_level=95)
    with pytest.raises(FairboundError, match="n_resamples must be a non-negative integer; got -1"):
        audit_nli(samples, pred, n_resamples=-1)
    with pytest.raises(FairboundError, match="by must be among domain, subtopic; got 'x'"):
        audit_nli(samples, pred, by=["x"])
    with pytest.raises(FairboundError, match="samples: missing column"):
        audit_nli(samples.drop(columns="pair_id"), pred)
    with pytest.raises(FairboundError, match="names: need two distinct"):
        compare_nli(samples, pred, pred, names=("a", "a"))
    with pytest.raises(FairboundError, match="hypothesis_type must be"):
        audit_nli(samples.assign(hypothesis_type="other"), pred)


@pytest.mark.slow
def test_cluster_bootstrap_coverage():
    # Superpopulation: premise templates with their own bias propensity p_c ~ Beta(2, 6) and
    # 2-10 pairs each; only stereotype hypotheses are ever entailed, so the population value of
    # stereotype_bias is E[p] / 2 = 0.125.  Coverage of the 95% interval, 400 replications.
    rng = np.random.default_rng(12345)
    hits, reps = 0, 400
    for r in range(reps):
        rows, pred = [], []
        for c in range(60):
            p = rng.beta(2, 6)
            for j in range(rng.integers(2, 11)):
                pid = f"c{c}-{j}"
                rows += [(f"{pid}/pro", pid, "d", "s", c, "stereotypical", N),
                         (f"{pid}/anti", pid, "d", "s", c, "anti-stereotypical", N)]
                pred += [E if rng.uniform() < p else N, N]
        df = pd.DataFrame(rows, columns=["sample_id", "pair_id", "domain", "subtopic",
                                         "premise_id", "hypothesis_type", "true_label"])
        row = audit_nli(df, pred, n_resamples=1000, seed=r, by=()).table.set_index(
            "measure").loc["stereotype_bias"]
        hits += row.low <= 0.125 <= row.high
    assert stats.binomtest(hits, reps, 0.95).pvalue > 0.001, hits / reps


def test_confidence_interval_returns_the_rows_intervals(samples):
    from fairbound.stats import ConfidenceInterval

    pred = np.random.default_rng(5).choice([C, N, E], size=len(samples))
    res = audit_nli(samples, pred, n_resamples=100, seed=0)
    ci = res.confidence_interval()
    assert isinstance(ci, ConfidenceInterval)
    np.testing.assert_array_equal(ci.low, res.table["low"].to_numpy())
    wider = res.confidence_interval(0.99)
    ok = np.isfinite(ci.low) & np.isfinite(wider.low)
    assert np.all(wider.low[ok] <= ci.low[ok] + 1e-12)
