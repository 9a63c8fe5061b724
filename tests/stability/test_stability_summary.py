"""Summaries and tests across runs, checked against scipy and statsmodels."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairbound.errors import FairboundError
from fairbound.stability import (
    adjust_pvalues,
    compare_conditions,
    compare_sizes,
    summarize_gaps,
)


def fake_gaps(seed=0, sizes=(100, 1000, 10000), runs=40, conditions=("original",)):
    rng = np.random.default_rng(seed)
    rows = []
    for c in conditions:
        for s in sizes:
            sd = 1 / np.sqrt(s)
            for r in range(runs):
                for k in ("a", "b"):
                    gap = rng.normal(0.05 if k == "a" else 0.0, sd)
                    half = 1.96 * sd * 0.5  # an interval half as wide as the spread
                    rows.append({"condition": c, "size": s, "repeat": r,
                                 "metric": "equal_opportunity", "class": k, "group_a": "f",
                                 "group_b": "m", "gap": gap, "low": gap - half,
                                 "high": gap + half, "n_a": s // 4, "n_b": s // 2})
    return pd.DataFrame(rows)


def test_summary_values_by_hand():
    g = fake_gaps()
    s = summarize_gaps(g)
    assert len(s) == 6
    for _, row in s.iterrows():
        x = g[(g["size"] == row["size"]) & (g["class"] == row["class"])]["gap"].to_numpy()
        assert row["n_runs"] == 40
        assert row["mean"] == pytest.approx(x.mean())
        assert row["var"] == pytest.approx(x.var(ddof=1))
        assert row["sd"] == pytest.approx(x.std(ddof=1))
        assert row["share_positive"] == pytest.approx(np.mean(x > 0))
        assert row["mean_n_a"] == row["size"] // 4
        assert row["mean_ci_width"] == pytest.approx(1.96 / np.sqrt(row["size"]))
    # intervals half as wide as the spread: ci_to_spread near 0.5, coverage well below 95%
    assert s["ci_to_spread"].between(0.3, 0.8).all()
    assert (s["ci_covers_mean"] < 0.8).all()
    # variance falls with the size
    v = s[s["class"] == "b"].sort_values("size")["var"].to_numpy()
    assert v[0] > v[1] > v[2]


def test_sign_and_verdict_shares():
    g = pd.DataFrame({"condition": "o", "size": 10, "metric": "m", "class": "k",
                      "group_a": "a", "group_b": "b",
                      "gap": [0.3, 0.2, 0.1, -0.1, 0.0, np.nan],
                      "low": [0.1, -0.1, 0.05, -0.2, -0.1, np.nan],
                      "high": [0.5, 0.4, 0.2, -0.05, 0.1, np.nan], "n_a": 5, "n_b": 5})
    r = summarize_gaps(g).iloc[0]
    assert r["n_runs"] == 5 and r["n_not_estimable"] == 1
    assert r["share_positive"] == pytest.approx(0.6)
    assert r["share_negative"] == pytest.approx(0.2)
    assert r["share_zero"] == pytest.approx(0.2)
    assert r["share_sig_positive"] == pytest.approx(0.4)
    assert r["share_sig_negative"] == pytest.approx(0.2)
    assert r["opposite_verdict"] == pytest.approx(0.2)  # mean > 0, one run significant < 0
    assert r["verdict_disagreement"] == pytest.approx(0.6)  # modal outcome: inconclusive 0.4


def test_compare_sizes_matches_scipy():
    g = fake_gaps()
    t = compare_sizes(g, correction="none")
    assert len(t) == 2 * 3 * 3  # classes x size pairs x tests
    row = t[(t["class"] == "b") & (t["size_1"] == 100) & (t["size_2"] == 1000)]
    x = g[(g["class"] == "b") & (g["size"] == 100)]["gap"]
    y = g[(g["class"] == "b") & (g["size"] == 1000)]["gap"]
    st = row.set_index("test")
    ref = stats.ttest_ind(x, y)
    assert st.loc["student", "statistic"] == pytest.approx(ref.statistic)
    assert st.loc["student", "p_value"] == pytest.approx(ref.pvalue)
    assert st.loc["student", "df"] == pytest.approx(78)
    ref = stats.ttest_ind(x, y, equal_var=False)
    assert st.loc["welch", "p_value"] == pytest.approx(ref.pvalue)
    assert st.loc["levene", "p_value"] == pytest.approx(stats.levene(x, y,
                                                                     center="median").pvalue)
    assert st.loc["levene", "p_value"] < 1e-6  # the spread shrinks 10-fold in variance
    adjacent = compare_sizes(g, pairs="adjacent", tests="student")
    assert adjacent[["size_1", "size_2"]].drop_duplicates().values.tolist() == [
        [100, 1000], [1000, 10000]]


def test_holm_is_applied_per_test_kind():
    g = fake_gaps()
    raw = compare_sizes(g, correction="none")
    holm = compare_sizes(g, correction="holm")
    for test in ("student", "welch", "levene"):
        p = raw[raw["test"] == test]["p_value"].to_numpy()
        np.testing.assert_allclose(holm[holm["test"] == test]["p_adjusted"],
                                   adjust_pvalues(p, "holm"))


def test_adjust_pvalues_against_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.array([0.001, 0.02, 0.03, 0.04, 0.2, 0.5, np.nan])
    for ours, theirs in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
        adj = adjust_pvalues(p, ours)
        ref = multitest.multipletests(p[:-1], method=theirs)[1]
        np.testing.assert_allclose(adj[:-1], ref)
        assert np.isnan(adj[-1])
    np.testing.assert_array_equal(adjust_pvalues(p, "none")[:-1], p[:-1])


def test_compare_conditions():
    g = fake_gaps(conditions=("original", "debiased"), sizes=(100,))
    g.loc[g["condition"] == "debiased", "gap"] -= 0.05
    t = compare_conditions(g, tests=("student",), correction="none")
    assert set(t["condition_1"]) == {"original"} and set(t["condition_2"]) == {"debiased"}
    a = t[t["class"] == "a"].iloc[0]
    x = g[(g["condition"] == "original") & (g["class"] == "a")]["gap"]
    y = g[(g["condition"] == "debiased") & (g["class"] == "a")]["gap"]
    assert a["p_value"] == pytest.approx(stats.ttest_ind(x, y).pvalue)
    other = compare_conditions(g, baseline="debiased", tests="welch")
    assert set(other["condition_1"]) == {"debiased"}


def test_undefined_tests_are_nan_not_errors():
    g = pd.DataFrame({"condition": "o", "metric": "m", "class": "k", "group_a": "a",
                      "group_b": "b", "size": [10, 10, 20, 20], "gap": [0.1, 0.1, 0.1, 0.1]})
    t = compare_sizes(g)
    assert t["p_value"].isna().all()
    assert not t["reject"].any()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda g: compare_sizes(g, tests="z"), "tests must be among student, welch, levene"),
        (lambda g: compare_sizes(g, correction="fdr"), "correction must be one of holm"),
        (lambda g: compare_sizes(g, pairs="some"), "pairs must be one of all, adjacent"),
        (lambda g: compare_conditions(g, baseline="zz"), "baseline: no condition 'zz'"),
        (lambda g: adjust_pvalues([0.1], "fdr"), "correction must be one of holm"),
    ],
)
def test_validation_messages(call, match):
    with pytest.raises(FairboundError, match=match):
        call(fake_gaps(runs=3))


def test_paired_test_between_conditions_matches_scipy():
    g = fake_gaps(conditions=("original", "debiased"), sizes=(100,))
    rng = np.random.default_rng(1)
    deb = g["condition"] == "debiased"
    # debiased = original + small shift + small noise: paired test sees it, unpaired may not
    g.loc[deb, "gap"] = g.loc[~deb, "gap"].to_numpy() - 0.01 + rng.normal(0, 0.002, deb.sum())
    t = compare_conditions(g, tests=("paired", "welch"), correction="none")
    a = t[(t["class"] == "a")].set_index("test")
    x = g[(~deb) & (g["class"] == "a")].sort_values("repeat")["gap"]
    y = g[deb & (g["class"] == "a")].sort_values("repeat")["gap"]
    ref = stats.ttest_rel(x, y)
    assert a.loc["paired", "p_value"] == pytest.approx(ref.pvalue)
    assert a.loc["paired", "df"] == 39
    assert a.loc["paired", "p_value"] < 1e-6 < a.loc["welch", "p_value"]
    with pytest.raises(FairboundError, match="tests must be among student, welch, levene;"):
        compare_sizes(g, tests="paired")
