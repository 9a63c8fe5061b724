"""fairbound.discover: counts, verdicts, error control, output and bad input."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits.discover import discover
from fairbound.audits.discover.build import decide
from fairbound.errors import FairboundError
from fairbound.stats.slices import gap_lower_bound


def _planted(n=4000, seed=0, harm=0.35, base=0.1):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"sex": rng.choice(["F", "M"], n),
                       "region": rng.choice(["N", "S", "E", "W"], n),
                       "age": rng.normal(40, 12, n).round(1),
                       "y": rng.integers(0, 2, n)})
    bad = (df.sex == "F") & (df.region == "S")
    wrong = rng.random(n) < np.where(bad, harm, base)
    df["p"] = np.where(wrong, 1 - df.y, df.y)
    return df


@pytest.fixture(scope="module")
def planted():
    return _planted()


@pytest.fixture(scope="module")
def found(planted):
    return discover(planted, ["sex", "region", "age"], label="y", prediction="p")


def test_counts_equal_a_brute_force_group_by(found, planted):
    st = found.state
    c = st.counts
    df = planted.assign(age_bin=pd.cut(planted.age, [-np.inf, *c.features[2].edges, np.inf],
                                       right=False, labels=False))
    cols = ["sex", "region", "age_bin"]
    for j in range(1, len(c.keys)):
        mask = np.ones(len(df), bool)
        for f, code in enumerate(c.keys[j]):
            if code < 0:
                continue
            level = c.features[f].levels[code]
            mask &= (df[cols[f]] == (code if f == 2 else level)).to_numpy()
        assert c.support[j] == mask.sum()
        sub = df[mask]
        assert st.k[j] == (sub.y != sub.p).sum()   # errors: the accuracy cost
        assert st.n_den[j] == len(sub)
    # every subset of at most 2 features with >= 1% of the rows is a candidate
    assert found.n_candidates == sum(found.lattice.values()) == len(c.keys) - 1


def test_the_planted_slice_is_flagged_with_its_parents_and_counts(found):
    top = found.flagged[0]
    assert top.slice == "sex=F & region=S"
    assert top.low > 0 and top.verdict == "A disadvantaged"
    assert {p["slice"] for p in top.parents} == {"sex=F", "region=S"}
    assert top.rate_a < top.rate_b          # accuracy is lower in the slice
    lo = gap_lower_bound(top.count, top.n, top.count_other, top.n_other,
                         1 - top.interval_level)
    assert lo == pytest.approx(top.low)
    # verdicts come from the exact test at the slice's level; where the (more conservative)
    # simultaneous interval disagrees, the row says so
    for c in found.comparisons:
        assert (c.p_value <= c.test_alpha) == (c.verdict == "A disadvantaged")
        if (c.low > 0) != c.flagged:
            assert "exact test" in c.note


def test_verdicts_are_fisher_exact_under_tarone_weighted_bonferroni_raised(found):
    from scipy.stats import fisher_exact

    from fairbound.stats.slices import exact_min_log_pvalue

    st = found.state
    n_s, N, K = st.n_den[1:], st.n_den[0], st.k[0]
    dep = (st.counts.keys[1:] >= 0).sum(axis=1)
    # Tarone's testable set: smallest attainable p-value at most alpha / (D_T M_{d,T})
    lmin = exact_min_log_pvalue(n_s, K, N)
    testable = {d: int(np.sum((dep == d) & np.isfinite(lmin))) for d in set(dep.tolist())}
    assert found.n_testable == sum(testable.values()) <= found.n_candidates
    for c in found.comparisons[:6]:
        table = [[c.count, c.n - c.count], [c.count_other, c.n_other - c.count_other]]
        ref = fisher_exact(table, alternative="greater").pvalue   # reference implementation
        assert c.p_value == pytest.approx(ref, rel=1e-9)
        # Tarone's depth-weighted level, raised by the attainable sizes' common factor
        assert c.test_alpha == pytest.approx(
            found.discrete_scale * 0.05 / (len(testable) * testable[c.depth]))
    assert found.discrete_scale > 1.0
    assert found.to_dict()["discrete_scale"] == found.discrete_scale


def test_tarone_drops_slices_that_can_never_reach_their_level():
    # 60 slices of 3 rows in a population of 20,000 with 10% costs: the smallest p-value a
    # 3-row slice can reach (all three rows costly, about 0.001) is above alpha / 63, so
    # they are dropped from the count and the 3 large slices share alpha
    rng = np.random.default_rng(9)
    n = 20_000
    tiny = np.repeat(np.arange(60), 3)
    g = np.concatenate([tiny.astype(str), np.full(n - tiny.size, "big")])
    df = pd.DataFrame({"g": g, "h": rng.choice(["a", "b"], n), "y": np.ones(n, int)})
    df["p"] = (rng.random(n) > 0.1).astype(int)
    res = discover(df, ["g", "h"], label="y", prediction="p", metric="accuracy_parity",
                   depth=1, min_support=3)
    assert res.n_candidates == 63 and res.n_testable == 3
    assert all(c.test_alpha in (0.0, pytest.approx(0.05 / 3 * res.discrete_scale))
               for c in res.comparisons)


def test_family_levels_are_weighted_bonferroni_over_the_lattice(found):
    alpha = 0.05
    d = found.lattice
    for c in found.comparisons:
        assert 1 - c.interval_level == pytest.approx(alpha / (len(d) * d[c.depth]))
    assert sum(d[k] * alpha / (len(d) * d[k]) for k in d) == pytest.approx(alpha)


def test_fdr_flags_at_least_what_family_flags_and_none_more(found):
    fdr = found.recompute(error_control="fdr")
    none = found.recompute(error_control="none")
    fam = {c.slice for c in found.flagged}
    assert fam <= {c.slice for c in none.flagged}
    assert fdr.n_flagged <= none.n_flagged
    assert fdr.error_control == "fdr" and "Benjamini-Yekutieli" in fdr.statement()


def test_population_gap_is_the_complement_gap_scaled(planted):
    a = discover(planted, ["sex", "region"], label="y", prediction="p")
    b = discover(planted, ["sex", "region"], label="y", prediction="p",
                 comparison="population")
    ca = {c.slice: c for c in a.comparisons}
    for c in b.comparisons:
        ref = ca.get(c.slice)
        if ref is None:
            continue
        share = 1 - c.n / c.n_other
        assert c.estimate == pytest.approx(ref.estimate * share)
        assert c.low == pytest.approx(ref.low * share)
        assert c.verdict == ref.verdict


def test_favourable_turns_the_cost_round():
    rng = np.random.default_rng(3)
    n = 3000
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "y": np.zeros(n, int)})
    df["p"] = (rng.random(n) < np.where(df.g == "a", 0.4, 0.1)).astype(int)  # FPR high in a
    harmful = discover(df, ["g"], label="y", prediction="p", metric="fpr",
                       favourable="negative")
    good = discover(df, ["g"], label="y", prediction="p", metric="fpr")
    assert [c.slice for c in harmful.flagged] == ["g=a"]
    assert "g=a" not in {c.slice for c in good.flagged}


def test_no_false_flag_on_small_null_data():
    # a fast version of the slow 200-data-set check below: 6 features, depth 3
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(2):
        n = 1200
        df = pd.DataFrame({f"x{i}": rng.choice(list("abc"), n) for i in range(6)})
        df["y"] = rng.integers(0, 2, n)
        df["p"] = np.where(rng.random(n) < 0.2, 1 - df.y, df.y)
        res = discover(df, [f"x{i}" for i in range(6)], label="y", prediction="p", depth=3)
        hits += res.n_flagged > 0
        assert res.n_candidates > 300
        assert "No harmed slice found" in res.statement() or res.n_flagged
    assert hits == 0


@pytest.mark.slow
def test_null_data_six_features_depth_three_false_flags_at_most_five_percent():
    from scipy.stats import binomtest

    rng = np.random.default_rng(2026)
    hits = 0
    for _ in range(200):
        n = 2000
        df = pd.DataFrame({f"x{i}": rng.choice(list("abcd"), n) for i in range(6)})
        df["y"] = rng.integers(0, 2, n)
        df["p"] = np.where(rng.random(n) < 0.15, 1 - df.y, df.y)
        res = discover(df, [f"x{i}" for i in range(6)], label="y", prediction="p", depth=3)
        hits += res.n_flagged > 0
    # one-sided binomial test of "rate <= 5%" at 5%
    assert binomtest(hits, 200, 0.05, alternative="greater").pvalue > 0.05


def _planted_rows(n, rng, depth=2, c=6.0):
    """6 features with 4 levels, errors at 0.15 but ``c`` standard errors more in the slice
    x0=0 & ... (the first ``depth`` features); returns the rows and the truth of a slice."""
    X = rng.integers(0, 4, (n, 6))
    share = 4.0 ** -depth
    planted = np.all(X[:, :depth] == 0, axis=1)
    rate = np.where(planted, 0.15 + c * np.sqrt(0.15 * 0.85 / (n * share)), 0.15)
    y = rng.integers(0, 2, n)
    wrong = rng.random(n) < rate
    df = pd.DataFrame({f"x{i}": X[:, i].astype(str) for i in range(6)})
    df["y"], df["p"] = y, np.where(wrong, 1 - y, y)

    def contradicts(cond) -> bool:   # a condition against the planted slice: true gap < 0
        return any(x.split("=")[0] in {f"x{j}" for j in range(depth)}
                   and x.split("=")[1] != "0" for x in cond)

    return df, contradicts


@pytest.mark.slow
@pytest.mark.parametrize("n", [2000, 20_000, 200_000])
def test_family_wise_error_at_most_five_percent_at_every_n_with_a_harmed_slice(n):
    # the public function with its defaults (depth 2); the harmed slice sits in the
    # complement of every slice that contradicts it, the case where the exact test's
    # complement is a mix of rates; 100 data sets per n, binomial test of "rate <= 5%"
    from scipy.stats import binomtest

    rng = np.random.default_rng(n)
    hits = found = 0
    for _ in range(100):
        df, contradicts = _planted_rows(n, rng)
        res = discover(df, [f"x{i}" for i in range(6)], label="y", prediction="p")
        hits += any(contradicts(c.conditions) for c in res.flagged)
        found += any(c.slice == "x0=0 & x1=0" for c in res.flagged)
    assert binomtest(hits, 100, 0.05, alternative="greater").pvalue > 0.05
    assert found >= 50        # c = 6 standard errors: found in most data sets


def test_pruned_slices_could_not_have_been_flagged():
    # rare costs: many small slices have none, and neither they nor their refinements can
    # be flagged
    rng = np.random.default_rng(5)
    n = 3000
    df = pd.DataFrame({"a": rng.choice(list("abcdefghij"), n),
                       "b": rng.choice(list("klmnopqrst"), n), "y": np.ones(n, int)})
    df["p"] = (rng.random(n) > 0.01).astype(int)
    res = discover(df, ["a", "b"], label="y", prediction="p", min_support=5)
    st = res.state
    n_s, k_s = st.n_den[1:], st.k[1:]
    N, K = st.n_den[0], st.k[0]
    from fairbound.stats.slices import (
        best_refinement_bound,
        depth_weights,
        exact_harm_pvalue,
        exact_refinement_log_pvalue,
    )

    w = depth_weights((st.counts.keys[1:] >= 0).sum(axis=1), st.counts.lattice)
    ok = (n_s > 0) & (N - n_s > 0)
    pruned = ok & (best_refinement_bound(k_s, K, N, 0.5) <= 0) & (
        exact_refinement_log_pvalue(k_s, K, N) > np.log(0.5))
    lb = gap_lower_bound(k_s[pruned], n_s[pruned], K - k_s[pruned], N - n_s[pruned],
                         0.05 * w[pruned])
    assert np.all(lb <= 0)
    assert np.all(exact_harm_pvalue(k_s[pruned], n_s[pruned], K, N) > 0.05)
    assert res.n_pruned == pruned.sum() > 10


def test_near_duplicates_are_merged():
    rng = np.random.default_rng(4)
    n = 3000
    g = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({"g": g, "copy": np.char.upper(g.astype(str)), "y": rng.integers(0, 2, n)})
    df["p"] = np.where(rng.random(n) < np.where(g == "a", 0.4, 0.1), 1 - df.y, df.y)
    res = discover(df, ["g", "copy"], label="y", prediction="p")
    top = res.flagged[0]
    assert {top.slice, *top.merged} >= {"g=a", "copy=A"}
    assert all(c.slice not in top.merged for c in res.comparisons)


def test_numeric_edges_and_missing_values_are_levels():
    rng = np.random.default_rng(5)
    n = 2000
    age = rng.uniform(18, 80, n)
    age[:50] = np.nan
    df = pd.DataFrame({"age": age, "g": rng.choice(["u", "v", None], n),
                       "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})
    res = discover(df, ["age", "g"], label="y", prediction="p", bins={"age": [30, 60]},
                   max_rows=200, min_support=10)
    levels = {f["name"]: f["levels"] for f in res.to_dict()["features"]}
    assert levels["age"] == ["(-inf, 30)", "[30, 60)", "[60, inf)", "(missing)"]
    assert "(missing)" in levels["g"]
    assert res.lattice[1] == 4 + 3


def test_json_round_trip_and_report(found, tmp_path):
    d = json.loads(found.to_json())
    assert d["kind"] == "discover" and d["n_candidates"] == found.n_candidates
    assert d["comparisons"][0]["parents"]
    from fairbound.audits.discover.report import write_discover_report

    (tmp_path / "r.json").write_text(found.to_json(), encoding="utf-8")
    write_discover_report(tmp_path / "r.json", tmp_path / "r.html", figures=False)
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "sex=F &amp; region=S" in text
    assert "No harmed slice" not in text and "Flagged slices" in text


def test_exported_at_the_top_level():
    assert fairbound.discover is discover


@pytest.mark.parametrize(("kwargs", "start"), [
    ({"features": ["sex", "nope"]}, "features: column 'nope' not found"),
    ({"features": ["sex", "sex"]}, "features: 'sex' is given twice"),
    ({"features": ["sex"], "metric": "equalized_odds"}, "metric: discover takes a metric"),
    ({"features": ["sex"], "min_support": 0}, "min_support must be"),
    ({"features": ["sex"], "comparison": "rest"}, "comparison must be one of"),
    ({"features": ["sex", "region", "age"], "depth": 3, "max_candidates": 20}, "depth: depth=3"),
    ({"features": ["sex"], "engine": "spark"}, "engine: 'spark' needs a Spark DataFrame"),
])
def test_bad_input_is_one_line(planted, kwargs, start):
    kw = {"label": "y", "prediction": "p", **kwargs}
    with pytest.raises(FairboundError) as exc:
        discover(planted, kw.pop("features"), **kw)
    assert str(exc.value).startswith(start) and "\n" not in str(exc.value)


def test_a_feature_with_a_hundred_thousand_values_suggests_binning():
    n = 100_000
    df = pd.DataFrame({"id": [f"u{i}" for i in range(n)], "y": np.zeros(n, int),
                       "p": np.zeros(n, int)})
    with pytest.raises(FairboundError, match=r"^features: column 'id' has about .* bin it"):
        discover(df, ["id"], label="y", prediction="p")


def test_cli_writes_json_and_refuses_bad_input(planted, tmp_path, capsys):
    from fairbound.cli import main

    planted.to_csv(tmp_path / "d.csv", index=False)
    assert main(["discover", str(tmp_path / "d.csv"), "-f", "sex,region", "-y", "y", "-p", "p",
                 "--json", str(tmp_path / "o.json"), "--format", "json"]) == 0
    d = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))
    assert d["comparisons"][0]["slice"] == "sex=F & region=S"
    capsys.readouterr()
    assert main(["discover", str(tmp_path / "d.csv"), "-f", "sex,zz", "-y", "y", "-p", "p",
                 "--json", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: features: column 'zz' not found")
    assert not (tmp_path / "x.json").exists()


def test_every_subset_up_to_depth_is_searched():
    rng = np.random.default_rng(6)
    n = 800
    df = pd.DataFrame({c: rng.choice(["0", "1"], n) for c in "abcd"})
    df["y"], df["p"] = rng.integers(0, 2, n), rng.integers(0, 2, n)
    res = discover(df, list("abcd"), label="y", prediction="p", depth=3, min_support=1)
    expect = {d: len(list(itertools.combinations("abcd", d))) * 2 ** d for d in (1, 2, 3)}
    assert res.lattice == expect


def test_labels_other_than_zero_one_need_pos_label():
    rng = np.random.default_rng(7)
    n = 600
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 3, n),
                       "p": rng.integers(0, 2, n)})
    with pytest.raises(FairboundError, match=r"^label: column 'y' has values other than 0"):
        discover(df, ["g"], label="y", prediction="p")
    text = df.assign(y=np.where(df.y == 1, "yes", "no"), p=np.where(df.p == 1, "yes", "no"))
    res = discover(text, ["g"], label="y", prediction="p", pos_label="yes")
    ref = discover(df.assign(y=(df.y == 1).astype(int)), ["g"], label="y", prediction="p")
    assert [c.count for c in res.comparisons] == [c.count for c in ref.comparisons]
    with pytest.raises(FairboundError, match=r"^pos_label: 'maybe' matches no value"):
        discover(text, ["g"], label="y", prediction="p", pos_label="maybe")
    sel = discover(df, ["g"], prediction="p", metric="demographic_parity")
    assert sel.metric == "demographic_parity" and sel.population_n == n


@pytest.mark.parametrize(("cells", "k_total", "level"), [
    ((10, 12, 9, 9), 8, 0.95), ((5, 15, 7, 13), 12, 0.8), ((3, 4, 20, 13), 6, 0.8),
    ((8, 8, 8, 8), 16, 0.9)])
def test_family_wise_error_by_enumeration_under_the_null(cells, k_total, level):
    # two binary features, 4 cells of the given sizes, k_total costs placed at random among
    # the rows (the null: the cost is unrelated to the features); every placement's
    # probability is multivariate hypergeometric, so the chance that decide flags any of
    # the 8 slices is computed exactly and must be at most alpha
    from math import comb

    sizes = np.array(cells)
    n_total = int(sizes.sum())
    # slices: a=0 (cells 0, 1), a=1 (2, 3), b=0 (0, 2), b=1 (1, 3), then the 4 cells
    member = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1],
                       [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    dep = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    n_s = (member @ sizes).astype(float)
    error, scaled = 0.0, 0
    for ks in itertools.product(*(range(min(s, k_total) + 1) for s in sizes)):
        if sum(ks) != k_total:
            continue
        ways = [comb(int(s), k) for s, k in zip(sizes, ks, strict=True)]
        prob = np.prod(ways) / comb(n_total, k_total)
        dec = decide(n_s, (member @ np.array(ks)).astype(float), n_total, k_total, dep,
                     {1: 4, 2: 4}, confidence_level=level, error_control="family")
        error += prob * bool(dec.flagged.any())
        scaled += dec.scale > 1.0
    assert error <= 1.0 - level
    assert scaled > 0      # the attainable sizes raised the levels
