"""Accuracy drop original -> extended benchmark (compare_benchmarks)."""

import json

import numpy as np
import pandas as pd
import pytest

from fairbound.errors import FairboundError
from fairbound.nli import (
    MEASURES,
    BenchmarkComparisonResult,
    compare_benchmarks,
    expand_templates,
    load_templates,
)


def _synthetic(n_clusters=60, pairs=6, n_strata=4, tag="o", premise_offset=0):
    """Bias samples in ``n_clusters`` premise templates (pairs of stereotypical/anti rows)."""
    rows = []
    for c in range(n_clusters):
        sub = f"sub{c % n_strata}"
        for k in range(pairs):
            pid = f"{sub}/p{c}/{tag}{k}"
            for htype, v in (("stereotypical", "pro"), ("anti-stereotypical", "anti")):
                rows.append((f"{pid}/{v}", pid, "dom" + str(c % 2), sub, c + premise_offset,
                             htype, "neutral", f"premise {c}"))
    return pd.DataFrame(rows, columns=["sample_id", "pair_id", "domain", "subtopic",
                                       "premise_id", "hypothesis_type", "true_label",
                                       "premise"])


def _predict(samples, rate_per_cluster, rng):
    rate = samples["premise_id"].map(rate_per_cluster).to_numpy()
    return np.where(rng.random(len(samples)) < rate, "neutral", "entailment")


def test_constructed_exact_drop():
    s = expand_templates(load_templates(subtopics=["man_is_to_programmer",
                                                   "muslim_man_to_oppressive"])).samples
    # original: every prediction neutral (accuracy 1); extended: every other row wrong
    orig = {"a": ["neutral"] * len(s), "b": ["neutral"] * len(s)}
    ext = {"a": ["entailment" if i % 2 else "neutral" for i in range(len(s))],
           "b": ["neutral"] * len(s)}
    res = compare_benchmarks(s, s, orig, ext, n_resamples=300, seed=3)
    assert isinstance(res, BenchmarkComparisonResult)
    assert res.models == ("a", "b") and res.pairing == "paired"
    e = res.estimate("accuracy", model="a")
    assert (e["original"], e["extended"], e["drop"]) == (1.0, 0.5, 0.5)
    assert e["drop_low"] <= 0.5 <= e["drop_high"]
    assert res.estimate("accuracy", model="b")["drop"] == 0
    t = res.to_frame()
    assert set(t.measure) == set(MEASURES)
    assert set(zip(t.level, t.domain, strict=True)) == {
        ("overall", "(all)"), ("domain", "gender"), ("domain", "religion")}
    assert {"original_low", "extended_high", "drop_low", "n_clusters_original",
            "note"} <= set(t.columns)
    # test hypotheses exist in both tables here; in a real extension they do not.
    assert t[(t.model == "a") & (t.measure == "test_accuracy")]["drop"].notna().all()


def test_drop_interval_covers_the_true_difference():
    """Seeded coverage check: clusters with correlated rates in both benchmarks."""
    rng = np.random.default_rng(20240601)
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e")
    true_drop = 0.95 - 0.58
    covered, widths = 0, []
    n_rep = 60
    for rep in range(n_rep):
        u = rng.uniform(-0.04, 0.04, 60)  # shared premise effect
        v = rng.uniform(-0.1, 0.1, 60)
        rate_o = dict(enumerate(0.95 + u))
        rate_e = dict(enumerate(0.58 + 3 * u + v))
        res = compare_benchmarks(orig, ext, {"m": _predict(orig, rate_o, rng)},
                                 {"m": _predict(ext, rate_e, rng)}, measures=["accuracy"],
                                 n_resamples=400, seed=rep, by=())
        e = res.estimate("accuracy")
        covered += e["drop_low"] <= true_drop <= e["drop_high"]
        widths.append(e["drop_high"] - e["drop_low"])
    assert covered / n_rep >= 0.85  # nominal 95%; 60 replications
    # A single seeded case, as a user would see it.
    assert res.pairing == "paired" and res.method == "paired-cluster-bootstrap-percentile"
    assert e["drop_low"] < true_drop < e["drop_high"] or covered < n_rep


def test_independent_when_premises_are_not_shared():
    rng = np.random.default_rng(5)
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e", premise_offset=1000)
    u = rng.uniform(-0.2, 0.2, 60)  # a strong premise effect, shared by both benchmarks
    rate_o = dict(enumerate(0.75 + u))
    rate_e = {c + 1000: 0.45 + u[c] for c in range(60)}
    po, pe = _predict(orig, rate_o, rng), _predict(ext, rate_e, rng)
    ind = compare_benchmarks(orig, ext, {"m": po}, {"m": pe}, n_resamples=300)
    assert ind.pairing == "independent"
    assert "share no premise template" in ind.pairing_note
    assert ind.method == "independent-cluster-bootstrap-percentile"
    # The same predictions on shared premises: pairing narrows the drop's interval here,
    # because the premise effect moves both accuracies together.
    ext_shared = ext.assign(premise_id=ext.premise_id - 1000)
    paired = compare_benchmarks(orig, ext_shared, {"m": po}, {"m": pe}, n_resamples=300)
    assert paired.pairing == "paired"
    a, b = ind.estimate("accuracy"), paired.estimate("accuracy")
    assert a["drop"] == pytest.approx(b["drop"])
    assert b["drop_high"] - b["drop_low"] < a["drop_high"] - a["drop_low"]
    forced = compare_benchmarks(orig, ext_shared, {"m": po}, {"m": pe}, n_resamples=300,
                                pairing="independent")
    assert forced.pairing == "independent" and forced.pairing_note == "requested"


def test_premise_texts_must_agree_for_pairing():
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e")
    ext = ext.assign(premise="another premise")
    p = {"m": ["neutral"] * len(orig)}
    q = {"m": ["neutral"] * len(ext)}
    res = compare_benchmarks(orig, ext, p, q, n_resamples=50)
    assert res.pairing == "independent" and "other premise texts" in res.pairing_note
    with pytest.raises(FairboundError, match="has other premise texts"):
        compare_benchmarks(orig, ext, p, q, n_resamples=50, pairing="paired")


def test_pred_columns_rendering_and_levels():
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e")
    rng = np.random.default_rng(0)
    orig["pred_m1"] = _predict(orig, dict.fromkeys(range(60), 0.9), rng)
    orig["pred_m2"] = _predict(orig, dict.fromkeys(range(60), 0.8), rng)
    ext["pred_m1"] = _predict(ext, dict.fromkeys(range(60), 0.5), rng)
    ext["pred_m2"] = _predict(ext, dict.fromkeys(range(60), 0.6), rng)
    res = compare_benchmarks(orig, ext, n_resamples=200, by=("domain", "subtopic"),
                             measures=["accuracy", "stereotype_bias"])
    assert res.models == ("m1", "m2")
    text = res.to_text()
    assert "model m1" in text and "model m2" in text and "BBNLI-next" in text
    assert "drop = BBNLI - BBNLI-next" in text and "paired" in text
    assert "stereotype_bias" not in text
    assert "stereotype_bias" in res.to_text(measures=None)
    assert "dom0/sub0" in res.to_text(measures=None)
    assert len(res.summary().splitlines()) == 3  # two models and their mean
    assert res.summary().splitlines()[-1].startswith("mean of 2 model(s): accuracy ")
    assert "mean over the 2 model(s), unweighted" in text
    json.dumps(res.to_dict())
    narrow = res.recompute(confidence_level=0.5)
    w = res.to_frame().eval("drop_high - drop_low")
    assert (narrow.to_frame().eval("drop_high - drop_low") <= w + 1e-12).all()
    assert narrow.confidence_level == 0.5


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"measures": ["nope"]}, "measures must be among .*; got 'nope'"),
    ({"pairing": "both"}, "pairing must be one of auto, paired, independent; got 'both'"),
    ({"n_resamples": 0}, r"n_resamples must be a positive integer \(for a comparison\); got 0"),
    ({"predictions_extended": {"other": ["neutral"]}}, "same models; 'm' has them on one"),
])
def test_errors(kwargs, match):
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e")
    args = {"predictions_original": {"m": ["neutral"] * len(orig)},
            "predictions_extended": {"m": ["neutral"] * len(ext)}}
    args.update(kwargs)
    with pytest.raises(FairboundError, match=match):
        compare_benchmarks(orig, ext, **args)


def test_disjoint_premises_cannot_be_forced_paired():
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e", premise_offset=500)
    with pytest.raises(FairboundError, match="share none"):
        compare_benchmarks(orig, ext, {"m": ["neutral"] * len(orig)},
                           {"m": ["neutral"] * len(ext)}, pairing="paired")
    with pytest.raises(FairboundError, match="no predictions given"):
        compare_benchmarks(orig, ext)


def test_mean_over_models_is_the_headline_form():
    # The paper's headline (abstract: 95.3% -> 58.6%) is the unweighted mean of the models'
    # accuracies; Table 13's audit accuracies (95.7, 91.8, 97.4, 96.4) average to 95.3.
    orig, ext = _synthetic(tag="o"), _synthetic(tag="e")
    rng = np.random.default_rng(1)
    for k, (po, pe) in enumerate([(0.95, 0.4), (0.9, 0.7), (0.99, 0.6)]):
        orig[f"pred_m{k}"] = _predict(orig, dict.fromkeys(range(60), po), rng)
        ext[f"pred_m{k}"] = _predict(ext, dict.fromkeys(range(60), pe), rng)
    res = compare_benchmarks(orig, ext, n_resamples=300, measures=["accuracy", "brittleness"])
    mean = res.mean_over_models()
    assert set(mean.model) == {"(mean)"} and (mean.n_models == 3).all()
    row = mean[(mean.measure == "accuracy") & (mean.domain == "(all)")].iloc[0].to_dict()
    # Accuracies computed directly from the predictions, each model counting once.
    direct_o = [np.mean(orig[f"pred_m{k}"] == "neutral") for k in range(3)]
    direct_e = [np.mean(ext[f"pred_m{k}"] == "neutral") for k in range(3)]
    assert row["original"] == pytest.approx(np.mean(direct_o))
    assert row["extended"] == pytest.approx(np.mean(direct_e))
    assert row["drop"] == pytest.approx(np.mean(direct_o) - np.mean(direct_e))
    # Not the pooled accuracy over all predictions weighted by anything else: the mean of
    # the per-model rows of the table.
    t = res.table[(res.table.measure == "accuracy") & (res.table.domain == "(all)")]
    assert row["original"] == pytest.approx(t.original.mean())
    # The interval is the percentile interval of the mean of the models' resamples.
    idx = t.index.to_numpy()
    boot = (res.resamples_original[:, idx] - res.resamples_extended[:, idx]).mean(axis=1)
    assert (row["drop_low"], row["drop_high"]) == pytest.approx(
        tuple(np.quantile(boot, [0.025, 0.975])))
    assert row["drop_low"] < row["drop"] < row["drop_high"]
    # The spread of the mean is below that of the models (they share resamples, yet differ).
    widths = (t.drop_high - t.drop_low).to_numpy()
    assert row["drop_high"] - row["drop_low"] < widths.max()
    # Recomputed at another level from the same resamples.
    narrow = res.recompute(confidence_level=0.5).mean_over_models()
    nrow = narrow[(narrow.measure == "accuracy")
                  & (narrow.domain == "(all)")].iloc[0].to_dict()
    assert nrow["drop_high"] - nrow["drop_low"] < row["drop_high"] - row["drop_low"]
    # Every output carries it.
    assert "(mean)" in set(res.to_frame(with_mean=True).model)
    assert "(mean)" not in set(res.to_frame().model)
    d = res.to_dict()
    assert d["mean_over_models"][0]["model"] == "(mean)"
    json.dumps(d)
    assert "mean over the 3 model(s), unweighted" in res.to_text()
    assert f"mean of 3 model(s): accuracy {row['original']:.3g} (BBNLI)" in res.summary()
