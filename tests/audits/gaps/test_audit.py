"""fairbound.audit: comparisons, verdicts, planning numbers, files, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits import required_total_n
from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, difference_interval
from tests.conftest import make_predictions


def test_verdicts_follow_interval(preds):
    biased = make_predictions(6000, tpr={"a": 0.95, "b": 0.6, "c": 0.8}, seed=2)
    res = fairbound.audit(biased, group="g", label="y", prediction="p",
                          metrics="equal_opportunity")
    by_pair = {(c.group_a, c.group_b): c for c in res.comparisons}
    ab = by_pair[("a", "b")]
    # b has the lower TPR, so b bears more cost: B disadvantaged, interval below 0
    assert ab.verdict == "B disadvantaged" and ab.high < 0 and ab.disadvantaged == "b"
    assert "b is disadvantaged on equal_opportunity" in ab.summary()
    g, lo, hi = ab.rate_gap
    assert g > 0 and lo > 0  # TPR_a - TPR_b
    null = fairbound.audit(preds, group="g", label="y", prediction="p",
                           metrics="equal_opportunity")
    assert all(c.low <= 0 <= c.high for c in null.comparisons
               if c.verdict == "not enough evidence")


def test_required_n_is_where_interval_stops_covering_zero():
    a, b = GroupStats.from_counts(200, 30), GroupStats.from_counts(200, 20)
    for method in ("agresti-caffo", "wald", "bbu", "hoeffding", "newcombe"):
        n = required_total_n(a, b, method=method, confidence_level=0.95)
        s_hi, s_lo = n / 400 * 1.001, n / 400 * 0.995
        lo, _ = difference_interval(a.scaled(s_hi), b.scaled(s_hi), method=method)
        assert lo > 0, method
        lo2, _ = difference_interval(a.scaled(s_lo), b.scaled(s_lo), method=method)
        assert lo2 <= 0, method


def test_bbu_required_n_matches_closed_form():
    from fairbound.stats import bernstein

    a, b = GroupStats.from_counts(500, 150), GroupStats.from_counts(500, 100)
    n, d, s2 = bernstein.amortized_moments(a, b)
    expected = bernstein.required_n(d, variance=s2, M=2.0, confidence_level=0.95)
    got = required_total_n(a, b, method="bbu", confidence_level=0.95)
    assert got == pytest.approx(math.ceil(expected), abs=1)


def test_comparison_modes(preds):
    pw = fairbound.audit(preds, group="g", label="y", prediction="p", metrics="dp")
    assert [(c.group_a, c.group_b) for c in pw.comparisons] == [("a", "b"), ("a", "c"),
                                                                 ("b", "c")]
    vr = fairbound.audit(preds, group="g", label="y", prediction="p", metrics="dp",
                         comparison="vs-rest")
    assert [(c.group_a, c.group_b) for c in vr.comparisons] == [("a", "rest"), ("b", "rest"),
                                                                 ("c", "rest")]
    c = vr.comparisons[0]
    assert c.a.n + c.b.n == sum(n for _, n in vr.groups)
    rest = preds[preds.g != "a"]
    assert c.rate_b == pytest.approx(rest.p.mean())
    ref = fairbound.audit(preds, group="g", label="y", prediction="p", metrics="dp",
                          reference="b")
    assert ref.comparison == "vs-reference"
    assert [(c.group_a, c.group_b) for c in ref.comparisons] == [("a", "b"), ("c", "b")]


def test_intersectional_groups():
    df = make_predictions(3000, seed=4)
    df["h"] = np.where(np.arange(len(df)) % 2 == 0, "x", "y")
    res = fairbound.audit(df, group=["g", "h"], label="y", prediction="p", metrics="tpr")
    assert len(res.groups) == 6
    assert all(isinstance(g, tuple) and len(g) == 2 for g, _ in res.groups)
    d = res.to_dict()
    assert d["groups"][0]["group"] == "a & x"


def test_equalized_odds_simultaneous_and_max(preds):
    res = fairbound.audit(preds, group="g", label="y", prediction="p", metrics="equalized_odds",
                          confidence_level=0.9, method="agresti-caffo", error_control="none")
    comps = [c for c in res.comparisons if (c.group_a, c.group_b) == ("a", "b")]
    assert [c.component for c in comps] == ["tpr", "fpr", "max"]
    assert comps[0].interval_level == pytest.approx(0.95)
    # by default the control covers every comparison: 3 pairs x 2 components
    fam = res.recompute(error_control="family")
    assert fam.n_tests == 6 and fam.comparisons[0].interval_level == pytest.approx(1 - 0.1 / 6)
    lo, hi = difference_interval(comps[0].a, comps[0].b, confidence_level=0.95)
    assert (comps[0].low, comps[0].high) == pytest.approx((lo, hi))
    mx = comps[2]
    assert mx.estimate == pytest.approx(max(abs(comps[0].estimate), abs(comps[1].estimate)))
    assert mx.low <= mx.estimate <= mx.high


def test_cost_metric_fractional():
    rng = np.random.default_rng(0)
    n = 2000
    g = rng.choice(["in", "out"], n)
    cost = np.where(g == "in", rng.beta(2, 8, n), rng.beta(2, 10, n))
    df = pd.DataFrame({"genre": g, "disagree": cost})
    res = fairbound.audit(df, group="genre", cost="disagree", cost_max=1.0)
    c = res.comparisons[0]
    assert c.metric == "cost" and res.task == "cost"
    assert c.estimate == pytest.approx(cost[g == "in"].mean() - cost[g == "out"].mean())
    assert not c.a.binary
    # BBU as the paper: gamma from the data
    bbu = res.recompute(method="bbu")
    assert bbu.comparisons[0].method == "bbu"
    assert bbu.comparisons[0].high - bbu.comparisons[0].low > c.high - c.low


def test_cost_outside_range_is_an_error():
    df = pd.DataFrame({"g": ["a", "b", "a"], "c": [0.1, 1.5, 0.2]})
    with pytest.raises(FairboundError, match=r"cost: column 'c' has values outside \[0, 1\]"):
        fairbound.audit(df, group="g", cost="c")
    df2 = pd.DataFrame({"g": ["a", "b"], "c": [-0.5, 0.2]})
    with pytest.raises(FairboundError, match=r"outside \[0, 2\] \(e.g. -0.5\)"):
        fairbound.audit(df2, group="g", cost="c", cost_max=2)


def test_not_estimable_group_reported():
    df = pd.DataFrame({"g": ["a"] * 20 + ["b"] * 20, "y": [1, 0] * 10 + [0] * 20,
                       "p": [1, 0] * 20})
    with pytest.warns(fairbound.SmallGroupWarning):
        res = fairbound.audit(df, group="g", label="y", prediction="p",
                              metrics=["equal_opportunity", "demographic_parity"])
    eo = res.select(metric="equal_opportunity")[0]
    assert eo.verdict == "not estimable" and math.isnan(eo.estimate)
    assert "'b' has no rows in this metric's denominator" in eo.note
    dp = res.select(metric="demographic_parity")[0]
    assert dp.verdict != "not estimable"


def test_recompute_and_json_roundtrip(preds, tmp_path):
    res = fairbound.audit(preds, group="g", label="y", prediction="p")
    c = res.comparisons[0]
    assert c.interval_level == pytest.approx(1 - 0.05 / res.n_tests)  # family-wise default
    c99 = c.recompute(confidence_level=0.99)
    c999 = c.recompute(confidence_level=0.999)
    assert c999.low < c99.low and c999.high > c99.high
    same = c.recompute(confidence_level=c.interval_level)
    assert (same.low, same.high, same.verdict) == (c.low, c.high, c.verdict)
    cb = c.recompute(method="bbu", gamma=0.3)
    assert cb.method == "bbu"
    path = tmp_path / "out" / "a.json"
    text = res.to_json(path)
    d = json.loads(path.read_text())
    assert d == json.loads(text)
    assert d["schema"] == "fairbound.audit/1"
    assert d["n_rows"] == len(preds)
    assert len(d["comparisons"]) == len(res.comparisons)
    frame = res.to_frame()
    assert {"n_a", "n_b", "rate_a", "rate_b", "low", "high", "verdict",
            "required_n"} <= set(frame.columns)


def test_same_seed_same_output(preds):
    r1 = fairbound.audit(preds, group="g", label="y", prediction="p", seed=3)
    r2 = fairbound.audit(preds, group="g", label="y", prediction="p", seed=3)
    pd.testing.assert_frame_equal(r1.to_frame(), r2.to_frame())


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_files_through_duckdb_match_memory(preds, tmp_path, fmt):
    path = tmp_path / f"p.{fmt}"
    if fmt == "csv":
        preds.to_csv(path, index=False)
    elif fmt == "parquet":
        preds.to_parquet(path, index=False)
    else:
        preds.to_json(path, orient="records", lines=True)
    a = fairbound.audit(str(path), group="g", label="y", prediction="p").to_frame()
    b = fairbound.audit(preds, group="g", label="y", prediction="p").to_frame()
    pd.testing.assert_frame_equal(a, b)


# ---------------------------------------------------------------- bad input, one line each

@pytest.mark.parametrize("kwargs,match", [
    (dict(group="gender"), "group: column 'gender' not found.*g, y, p"),
    (dict(label="yy"), "label: column 'yy' not found"),
    (dict(metrics=["equal_chances"]), "metric must be one of .*got 'equal_chances'"),
    (dict(confidence_level=1.0), r"confidence_level must be in \(0, 1\); got 1.0"),
    (dict(confidence_level=0), r"confidence_level must be in \(0, 1\); got 0"),
    (dict(method="bbu", gamma=0.8), r"gamma must be in \(0, 0.5\]; got 0.8"),
    (dict(comparison="all"), "comparison must be one of pairwise, vs-rest, vs-reference"),
    (dict(reference="zz"), "reference: group 'zz' not found"),
    (dict(method="magic"), "method must be one of"),
    (dict(seed=-1), "seed must be a non-negative integer; got -1"),
])
def test_bad_arguments(preds, kwargs, match):
    args = dict(group="g", label="y", prediction="p") | kwargs
    with pytest.raises(FairboundError, match=match):
        fairbound.audit(preds, **args)


def test_non_binary_predictions(preds):
    d = preds.assign(p=np.where(np.arange(len(preds)) == 0, 2, preds.p))
    with pytest.raises(FairboundError, match=r"prediction: column 'p' must be binary \(0/1\)"):
        fairbound.audit(d, group="g", label="y", prediction="p")
    s = preds.assign(p=np.linspace(0, 1, len(preds)))
    with pytest.raises(FairboundError, match="prediction: column 'p' has non-integer values"):
        fairbound.audit(s, group="g", label="y", prediction="p")


def test_string_labels_need_pos_label(preds):
    d = preds.assign(y=preds.y.map({0: "no", 1: "yes"}), p=preds.p.map({0: "no", 1: "yes"}))
    with pytest.raises(FairboundError, match=r"pos_label: labels are \['no', 'yes'\]"):
        fairbound.audit(d, group="g", label="y", prediction="p")


def test_single_group_and_empty(preds, tmp_path):
    with pytest.raises(FairboundError, match="group: column 'g' has a single group \\('a'\\)"):
        fairbound.audit(preds.assign(g="a"), group="g", label="y", prediction="p")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(FairboundError, match="data: file is empty"):
        fairbound.audit(str(empty), group="g", label="y", prediction="p")
    header_only = tmp_path / "h.csv"
    header_only.write_text("g,y,p\n")
    with pytest.raises(FairboundError, match="data: no rows in"):
        fairbound.audit(str(header_only), group="g", label="y", prediction="p")
    with pytest.raises(FairboundError, match="data: file not found"):
        fairbound.audit(str(tmp_path / "nope.parquet"), group="g", label="y", prediction="p")


def test_malformed_csv(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text('g,y,p\na,1,1\nb,"0,1\n' + "c,1,0,5,6,7\n" * 3)
    with pytest.raises(FairboundError) as info:
        fairbound.audit(str(bad), group="g", label="y", prediction="p")
    assert len(str(info.value).splitlines()) == 1


def test_compas_harmful_positive(shared_data):
    # ProPublica's rates on all 7,214 rows; "Medium/High" harms the defendant
    res = fairbound.audit(str(shared_data / "compas" / "compas-scores-two-years.csv"),
                          group="race",
                          label="two_year_recid", prediction="score_text != 'Low'",
                          metrics=["false_positive_rate", "false_negative_rate",
                                   "equal_opportunity"],
                          reference="Caucasian", favourable="negative")
    assert res.n_rows == 7214 and res.favourable == "negative"
    by = {c.metric: c for c in res.comparisons if c.group_a == "African-American"}
    fpr, fnr, tpr = (by["false_positive_rate"], by["false_negative_rate"],
                     by["equal_opportunity"])
    assert (round(fpr.rate_a, 4), round(fpr.rate_b, 4)) == (0.4485, 0.2345)
    assert (round(fnr.rate_a, 4), round(fnr.rate_b, 4)) == (0.2799, 0.4772)
    # the group that bears the harm is named, on every metric: more wrongly flagged, fewer
    # reoffenders left unflagged, more of those who reoffended flagged
    for c in (fpr, fnr, tpr):
        assert c.disadvantaged == "African-American", c
    assert all(c.disadvantaged != "Caucasian" for c in res.comparisons
               if c.group_a == "African-American")


@pytest.mark.parametrize("method", ["newcombe", "wald", "agresti-caffo"])
def test_many_groups_on_arrays_equal_one_at_a_time(method, monkeypatch):
    # vs-rest over 150 groups computes intervals and plans on arrays; the same audit
    # computed one comparison at a time gives the same numbers
    from fairbound.audits.gaps import comparison

    rng = np.random.default_rng(5)
    n = 30_000
    df = pd.DataFrame({"g": rng.integers(0, 150, n), "y": rng.integers(0, 2, n),
                       "p": (rng.random(n) < 0.3 + 0.002 * rng.integers(0, 150, n)).astype(int)})
    df.loc[df.g == 7, "y"] = 0          # a group with no positives: TPR not estimable
    kw = dict(group="g", label="y", prediction="p", comparison="vs-rest", method=method,
              metrics=["demographic_parity", "equal_opportunity"])
    fast = fairbound.audit(df, **kw)
    monkeypatch.setattr(comparison, "VECTOR_MIN", 10**9)
    slow = fairbound.audit(df, **kw)
    assert len(fast.comparisons) == len(slow.comparisons) == 300
    for f, s in zip(fast.comparisons, slow.comparisons, strict=True):
        assert (f.group_a, f.metric, f.verdict, f.note) == (s.group_a, s.metric, s.verdict,
                                                            s.note)
        np.testing.assert_allclose([f.low, f.high], [s.low, s.high], rtol=1e-12, atol=1e-14)
        assert (f.required_n == s.required_n or abs(f.required_n - s.required_n) <= 1
                or (np.isnan(f.required_n) and np.isnan(s.required_n)))
    assert any(not c.estimable for c in fast.comparisons)
