"""Multiplicity corrections against statsmodels and by simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fairbound.errors import FairboundError
from fairbound.stats.multiplicity import adjust, e_holm_adjusted

P_VALUES = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=15, deadline=None)  # statsmodels holm takes ~0.2 s a call
@given(P_VALUES, st.sampled_from([0.9, 0.95, 0.99]))
@pytest.mark.parametrize("ours,theirs", [("bonferroni", "bonferroni"), ("holm", "holm"),
                                         ("bh", "fdr_bh")])
def test_matches_statsmodels_multipletests(ours, theirs, p, rho):
    p = np.array(p)
    reject, corrected, _, _ = multipletests(p, alpha=1 - rho, method=theirs)
    res = adjust(p, method=ours, confidence_level=rho)
    assert np.allclose(res.adjusted, corrected, rtol=1e-12, atol=1e-15)
    # decisions agree except for values within rounding of the level
    near = np.isclose(corrected, 1 - rho, rtol=1e-9)
    assert np.array_equal(res.reject[~near], reject[~near])


def test_e_holm_matches_brute_force_closure():
    rng = np.random.default_rng(0)
    for _ in range(100):
        e = rng.exponential(4.0, size=6)
        ref = [
            min(np.mean(e[list(s)]) for r in range(1, 7)
                for s in itertools.combinations(range(6), r) if i in s)
            for i in range(6)
        ]
        assert np.allclose(e_holm_adjusted(e), ref)


def test_e_bh_definition():
    # reject the k* largest with k* = max{k: e_(k) >= m / (alpha k)}
    rng = np.random.default_rng(1)
    for _ in range(200):
        e = rng.exponential(10.0, size=8)
        alpha, m = 0.1, 8
        srt = np.sort(e)[::-1]
        ks = [k for k in range(1, m + 1) if srt[k - 1] >= m / (alpha * k)]
        k_star = max(ks) if ks else 0
        expect = e >= srt[k_star - 1] if k_star else np.zeros(m, bool)
        assert np.array_equal(adjust(e, method="e-bh", confidence_level=0.9).reject, expect)


def test_e_bonferroni_bound_and_e_holm_rejects_more():
    e = np.array([60.0, 50.0, 45.0, 0.2])
    holm = adjust(e, method="e-holm")
    # e-Bonferroni would need e >= m / alpha = 80: rejects nothing; e-Holm rejects 3
    assert holm.reject.tolist() == [True, True, True, False]
    assert holm.error_rate == "FWER"
    assert adjust(e, method="e-bh").error_rate == "FDR"


def _null_e_values(rng, m):
    # likelihood-ratio e-values of N(0.5, 1) vs N(0, 1) from one observation under N(0, 1),
    # with a shared component to make them dependent
    z = 0.6 * rng.standard_normal() + 0.8 * rng.standard_normal(m)
    return np.exp(1.0 * z - 0.5)


def test_e_holm_controls_fwer_and_e_bh_fdr_under_the_global_null():
    rng = np.random.default_rng(2)
    reps, fwer_holm, fdr_bh = 4000, 0, 0
    for _ in range(reps):
        e = _null_e_values(rng, 10)
        fwer_holm += adjust(e, method="e-holm", confidence_level=0.9).reject.any()
        fdr_bh += adjust(e, method="e-bh", confidence_level=0.9).reject.any()  # FDP = 1{R > 0}
    for hits in (fwer_holm, fdr_bh):
        assert stats.binomtest(hits, reps, 0.1, alternative="greater").pvalue > 0.001


def test_holm_controls_fwer_with_some_true_gaps():
    rng = np.random.default_rng(3)
    reps, false_rejections = 3000, 0
    for _ in range(reps):
        z = rng.standard_normal(8) + np.r_[np.zeros(5), np.full(3, 3.5)]
        p = stats.norm.sf(z)
        false_rejections += adjust(p, method="holm").reject[:5].any()
    assert stats.binomtest(false_rejections, reps, 0.05, alternative="greater").pvalue > 0.001


def test_result_table_and_labels():
    res = adjust([0.01, 0.2], method="bonferroni", labels=["dp a-b", "dp a-c"])
    frame = res.to_frame()
    assert list(frame.columns) == ["label", "p_value", "adjusted", "reject"]
    assert frame["adjusted"].tolist() == [0.02, 0.4]
    assert res.n_rejected == 1
    assert res.to_dict()["rows"][1]["label"] == "dp a-c"
    assert "e_value" in adjust([30.0, 1.0], method="e-holm").to_frame().columns


def test_aliases():
    assert adjust([0.01, 0.02], method="fdr_bh").method == "bh"
    assert adjust([30.0, 1.0], method="e_holm").method == "e-holm"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(values=[0.1], method="hommel"), "method must be one of"),
        (dict(values=[]), "at least one"),
        (dict(values=[0.1, np.nan]), "must not be NaN"),
        (dict(values=[1.2]), "p-values must be in \\[0, 1\\]; got 1.2"),
        (dict(values=[-1.0], method="e-bh"), "e-values must be >= 0"),
        (dict(values=["x"]), "values must be numbers"),
        (dict(values=[0.1], labels=["a", "b"]), "labels must have one entry per value"),
        (dict(values=[0.1], confidence_level=5), "confidence_level must be in"),
    ],
)
def test_validation(kwargs, match):
    values = kwargs.pop("values")
    with pytest.raises(FairboundError, match=match):
        adjust(values, **kwargs)


def test_adjust_comparisons_of_an_audit():
    import pandas as pd

    from fairbound.audits import audit
    from fairbound.audits.gaps.multiplicity import adjust_comparisons

    rng = np.random.default_rng(0)
    n = 6000
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    y = (rng.random(n) < 0.4).astype(int)
    tpr = np.where(g == "b", 0.7, 0.85)
    p = np.where(y == 1, rng.random(n) < tpr, rng.random(n) < 0.2).astype(int)
    res = audit(pd.DataFrame({"g": g, "y": y, "p": p}), group="g", label="y", prediction="p",
                metrics=["equalized_odds", "demographic_parity"])
    holm = adjust_comparisons(res, method="holm")
    # the derived 'max' components are not in the family: 3 pairs x (tpr, fpr, selection)
    assert len(holm.labels) == 9
    rejected = {lab for lab, r in zip(holm.labels, holm.reject, strict=True) if r}
    assert "equalized_odds[tpr] a vs b" in rejected and "equalized_odds[tpr] b vs c" in rejected
    assert not any("[fpr]" in lab for lab in rejected)
    # the same p-values through statsmodels' Holm
    assert np.array_equal(holm.reject, multipletests(holm.values, alpha=0.05, method="holm")[0])
    eh = adjust_comparisons(res, method="e-holm", seed=1)
    assert set(eh.labels) == set(holm.labels)
    assert eh.reject.sum() <= holm.reject.sum() + 1


@pytest.mark.parametrize(
    "kwargs,match",
    [(dict(method="holm", test="calibrated"), "test must be one of z, permutation, betting"),
     (dict(method="e-bh", test="z"), "test must be one of betting, calibrated"),
     (dict(method="sidak"), "method must be one of")],
)
def test_adjust_comparisons_validation(kwargs, match):
    from types import SimpleNamespace

    from fairbound.audits.gaps.multiplicity import adjust_comparisons
    from fairbound.stats import GroupStats

    comps = [SimpleNamespace(a=GroupStats.from_counts(50, 5), b=GroupStats.from_counts(50, 9),
                             label="dp", group_a="x", group_b="y", component="selection_rate")]
    with pytest.raises(FairboundError, match=match):
        adjust_comparisons(comps, **kwargs)
    with pytest.raises(FairboundError, match="at least one estimable gap"):
        adjust_comparisons([])


def test_adjust_comparisons_reports_excluded():
    from types import SimpleNamespace

    from fairbound.audits.gaps.multiplicity import adjust_comparisons
    from fairbound.stats import GroupStats

    ok = SimpleNamespace(a=GroupStats.from_counts(500, 100), b=GroupStats.from_counts(500, 50),
                         label="dp", group_a="x", group_b="y", component="selection_rate")
    moments_only = SimpleNamespace(a=GroupStats(n=50, total=20.5, total_sq=11.0),
                                   b=GroupStats(n=60, total=20.0, total_sq=9.0),
                                   label="cost", group_a="x", group_b="y", component="cost")
    res = adjust_comparisons([ok, moments_only], method="e-holm")
    assert res.labels == ("dp x vs y",)
    assert res.excluded[0][0] == "cost x vs y" and "per-example costs" in res.excluded[0][1]
    assert res.to_dict()["excluded"][0]["label"] == "cost x vs y"
    with pytest.raises(FairboundError, match="not defined for any comparison"):
        adjust_comparisons([moments_only], method="e-bh")
    # the z-test works on moments
    assert adjust_comparisons([ok, moments_only]).labels == ("dp x vs y", "cost x vs y")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=1, max_size=12))
def test_e_holm_properties(e):
    e = np.array(e)
    adj = e_holm_adjusted(e)
    assert np.all(adj <= e + 1e-9)
    assert np.all(adj >= e.min() - 1e-9 * max(1.0, e.max()))  # a mean is at least the min
    order = np.argsort(e)
    assert np.all(np.diff(adj[order]) >= -1e-9 * max(1.0, e.max()))  # monotone in e


@settings(max_examples=100, deadline=None)
@given(P_VALUES)
def test_procedures_nest(p):
    bonf = adjust(p, method="bonferroni").reject
    holm = adjust(p, method="holm").reject
    bh = adjust(p, method="bh").reject
    assert np.all(holm >= bonf) and np.all(bh >= holm)


def test_audit_result_adjust_method():
    import pandas as pd

    from fairbound.audits import audit
    from fairbound.audits.gaps.multiplicity import adjust_comparisons

    rng = np.random.default_rng(0)
    n = 4000
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(g == "b", 0.7, 0.85), y, 1 - y)
    res = audit(pd.DataFrame({"g": g, "y": y, "p": p}), group="g", label="y", prediction="p",
                metrics="accuracy_parity")
    holm = res.adjust()
    assert holm.labels == adjust_comparisons(res).labels
    assert holm.reject.tolist() == [True, False, True]  # b is worse than a and c
    assert res.adjust(method="e-bh").error_rate == "FDR"
