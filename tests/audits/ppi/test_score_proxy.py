"""Prediction-powered audits with a score proxy (proxy_kind="score"), through the public path."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from fairbound.audits.ppi.audit import ppi_audit
from fairbound.errors import FairboundError


def frame(rng, M=4000, n=400, gap=0.0):
    g = np.where(rng.random(M) < 0.5, "a", "b")
    s = rng.beta(0.5, 0.5, M)
    y = (rng.random(M) < s).astype(int)
    pred = np.where(rng.random(M) < np.where(g == "a", 0.8 + gap, 0.8), y, 1 - y)
    gold = np.where(rng.random(M) < n / M, y, np.nan)
    return pd.DataFrame({"g": g, "gold": gold, "judge": s, "pred": pred})


def audit(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                         proxy_kind="score", **kw)


def test_null_false_claims_with_every_default():
    reps, claims = 80, 0
    for r in range(reps):
        res = audit(frame(np.random.default_rng([5, r])),
                    metrics=["equal_opportunity", "accuracy_parity"])
        claims += any(c.verdict.endswith("disadvantaged") for c in res.comparisons)
    assert st.binomtest(claims, reps, 0.05, alternative="greater").pvalue > 0.001, claims


def test_score_result_reads_like_the_label_one_and_is_narrower():
    df = frame(np.random.default_rng(6), gap=0.1)
    res = audit(df, metrics=["equal_opportunity", "accuracy_parity", "demographic_parity"])
    lab = ppi_audit(df, group="g", label="gold", proxy="judge >= 0.5", prediction="pred",
                    metrics=["equal_opportunity", "accuracy_parity", "demographic_parity"])
    assert res.columns["proxy_kind"] == "score"
    assert any("score proxy" in n for n in res.notes)
    for c, d in zip(res.comparisons, lab.comparisons, strict=True):
        assert (c.metric, c.group_a, c.group_b) == (d.metric, d.group_a, d.group_b)
        if c.metric == "demographic_parity":   # no label needed: the same on all rows
            assert (c.low, c.high) == (d.low, d.high)
        else:
            assert "score proxy" in c.method
            assert c.labeled_low == pytest.approx(d.labeled_low)   # labeled-only: same rows
            assert c.gold_labels_needed >= c.labeled_a + c.labeled_b
    assert res.comparisons[0].width < lab.comparisons[0].width
    g = res.to_dict()
    assert g["columns"]["proxy_kind"] == "score"
    guaranteed = audit(df, metrics="accuracy_parity", guaranteed=True)
    assert guaranteed.comparisons[0].method == "exact (gold-labeled rows)"
    rest = audit(df, metrics="equal_opportunity", comparison="vs-rest")
    assert len(rest.comparisons) == 2


def test_bad_scores_and_combinations_are_refused():
    df = frame(np.random.default_rng(7), M=500, n=100)
    with pytest.raises(FairboundError, match="holds probabilities in \\[0, 1\\]") as exc:
        audit(df.assign(judge=df["judge"] * 3))
    assert exc.value.param == "proxy"
    with pytest.raises(FairboundError, match="expected numbers") as exc:
        audit(df.assign(judge=df["judge"].astype(str)))
    assert exc.value.param == "proxy"
    with pytest.raises(FairboundError, match="proxy_kind must be one of"):
        ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                  proxy_kind="probability")
    with pytest.raises(FairboundError, match="cannot be combined with sampling_probability"):
        audit(df.assign(pi=0.5), sampling_probability="pi")


def test_cli_proxy_kind(tmp_path, capsys):
    from fairbound.cli import main

    path = tmp_path / "d.csv"
    frame(np.random.default_rng(8), gap=0.1).to_csv(path, index=False)
    code = main(["ppi", str(path), "-g", "g", "--label", "gold", "--proxy", "judge",
                 "--prediction", "pred", "--proxy-kind", "score", "--metric",
                 "equal_opportunity"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "score proxy" in out
    assert main(["ppi", str(path), "-g", "g", "--label", "gold", "--proxy", "judge",
                 "--prediction", "pred", "--proxy-kind", "odds"]) == 2
    assert "proxy_kind must be one of" in capsys.readouterr().err


def test_a_fully_labeled_group_needs_no_unlabeled_rows():
    # group b has a gold label on every row: its rate is the labeled-only estimate (the
    # proxy has nothing to add), and the audit still reads group a's unlabeled rows
    df = frame(np.random.default_rng(11))
    full = df["g"] == "b"
    df.loc[full, "gold"] = (df.loc[full, "judge"] > 0.5).astype(float)
    res = audit(df, metrics=["equal_opportunity", "predictive_parity", "demographic_parity"])
    for c in res.comparisons:
        assert np.isfinite(c.low) and np.isfinite(c.high) and c.low <= c.estimate <= c.high
    label = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                      proxy_kind="score", metrics=["equal_opportunity"]).comparisons[0]
    b = df[full & (df["gold"] == 1)]
    assert label.rate_b == pytest.approx(b["pred"].mean(), abs=1e-12)
