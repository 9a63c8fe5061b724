"""Impact ratios (four-fifths rule, NYC Local Law 144): values, validity, report, CLI."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import fairbound
from fairbound.audits.ratios.audit import (
    ADVERSE,
    NO_ADVERSE,
    REFERENCE,
    date_range,
    impact_ratios,
    ll144_audit,
)
from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.report.ll144 import render_ll144_csv, render_ll144_report

COMPAS = "compas/compas-scores-two-years.csv"
MEDIUM_HIGH = "score_text != 'Low'"


def _frame(rates: dict, n: int, seed: int, *, exact: bool = False) -> pd.DataFrame:
    """Rows of groups with the given selection rates (exact counts or Bernoulli draws)."""
    rng = np.random.default_rng(seed)
    g, p = [], []
    for name, rate in rates.items():
        if exact:
            k = int(round(rate * n))
            sel = np.r_[np.ones(k, dtype=int), np.zeros(n - k, dtype=int)]
        else:
            sel = (rng.random(n) < rate).astype(int)
        g += [name] * n
        p += sel.tolist()
    return pd.DataFrame({"g": g, "p": p})


# ----------------------------------------------------------------------------- COMPAS
def test_compas_selection_rate_impact_ratio_matches_a_hand_computation(shared_data):
    path = shared_data / COMPAS
    df = pd.read_csv(path)
    sel = (df["score_text"] != "Low").groupby(df["race"])
    rates, sizes = sel.mean(), sel.size()
    # every group (min_share=0): the highest is Native American (12 of 18)
    res = impact_ratios(path, group="race", prediction=MEDIUM_HIGH, min_share=0,
                        method="koopman")  # the estimates do not depend on the method
    assert res.highest == rates.idxmax() == "Native American"
    hand = rates / rates.max()
    assert {r.group: r.ratio for r in res.ratios} == hand.to_dict()
    assert {r.group: r.n for r in res.ratios} == sizes.to_dict()
    # the default: groups under 2% listed apart, the highest chosen among the others
    res = impact_ratios(path, group="race", prediction=MEDIUM_HIGH)
    share = sizes / sizes.sum()
    kept = rates[share >= 0.02]
    assert res.highest == kept.idxmax() == "African-American"
    assert {r.group: r.ratio for r in res.ratios} == (kept / kept.max()).to_dict()
    assert {g.group: (g.rows, g.rate) for g in res.small_groups} == {
        g: (int(sizes[g]), rates[g]) for g in share.index[share < 0.02]}
    assert res.ratio("Caucasian").verdict == ADVERSE
    assert res.ratio("Caucasian").low < res.ratio("Caucasian").ratio < res.ratio(
        "Caucasian").high < 0.8
    # intervals: exact at Bonferroni over the 6 pairs of the 4 groups kept
    assert res.n_tests == 6 and res.interval_level == pytest.approx(1 - 0.05 / 6)


def test_compas_ll144_categories_and_intersection(shared_data):
    path = shared_data / COMPAS
    df = pd.read_csv(path)
    # a DataFrame this time (the file is read in the test above); dates held as text
    a = ll144_audit(df, group=["sex", "race"], prediction=MEDIUM_HIGH, method="koopman",
                    date_column="compas_screening_date", source="ProPublica COMPAS")
    assert [c.category for c in a.categories] == ["sex", "race", "sex & race"]
    assert a.date_range == (df["compas_screening_date"].min(),
                            df["compas_screening_date"].max())
    inter = a.categories[2]
    hand = df.groupby(["sex", "race"]).size()
    assert {g.group: g.rows for g in inter.groups} == hand.to_dict()
    # the decile score above its median (4) is the same outcome as Medium/High
    s = ll144_audit(df, group="race", score="decile_score", method="koopman").categories[0]
    assert s.score_median == df["decile_score"].median() == 4.0
    assert s.rate_name == "scoring rate"
    assert [r.ratio for r in s.ratios] == [r.ratio for r in a.categories[1].ratios]


# ----------------------------------------------------------------------------- validity
def _false_claims(reps: int, n: int, rate: float, seed: int) -> tuple[int, int]:
    """Null data (5 groups, one rate): data sets with a false adverse-impact claim.

    Returns the count at threshold 0.8 and the count of data sets where some interval lies
    below 1 (the claim at threshold 1, which any miss of the true ratio 1 from below makes).
    """
    rng = np.random.default_rng(seed)
    at_08 = below_1 = 0
    for r in range(reps):
        df = _frame(dict.fromkeys("abcde", rate), n, int(rng.integers(2**31)))
        res = impact_ratios(df, group="g", prediction="p")
        assert len(res.ratios) == 5  # the data-chosen highest group's row included
        at_08 += any(x.verdict == ADVERSE for x in res.ratios)
        below_1 += any(x.high < 1.0 for x in res.ratios)
        del r
    return at_08, below_1


def test_null_five_groups_family_wise_false_claims_at_most_5_percent():
    reps = 60
    at_08, below_1 = _false_claims(reps, n=30, rate=0.5, seed=11)
    for k in (at_08, below_1):
        assert st.binomtest(k, reps, 0.05, alternative="greater").pvalue > 0.01


@pytest.mark.slow
def test_null_five_groups_family_wise_false_claims_400_reps():
    reps = 400
    at_08, below_1 = _false_claims(reps, n=150, rate=0.3, seed=12)
    for k in (at_08, below_1):
        assert st.binomtest(k, reps, 0.05, alternative="greater").pvalue > 0.01


def test_planted_adverse_impact_is_found_and_others_are_not_flagged():
    df = _frame({"a": 0.5, "b": 0.5, "c": 0.48, "d": 0.25}, 500, 0, exact=True)
    res = impact_ratios(df, group="g", prediction="p")
    assert res.highest in ("a", "b")
    d = res.ratio("d")
    assert d.verdict == ADVERSE and d.ratio == pytest.approx(0.5) and d.high < 0.8
    assert [r.group for r in res.adverse] == ["d"]
    assert res.ratio("c").verdict == NO_ADVERSE
    # the row interval contains the estimate and is capped at 1
    for r in res.ratios:
        assert r.low <= r.ratio <= r.high <= 1.0


def test_highest_group_is_the_reference_and_says_when_it_may_not_be_highest():
    # the observed highest group is the rule's reference (issue 27 item 8), and its note
    # says when it may not be the truly highest
    df = _frame({"a": 0.5, "b": 0.46}, 40, 0, exact=True)
    res = impact_ratios(df, group="g", prediction="p")
    top = res.ratio(res.highest)
    assert top.ratio == 1.0 and top.low < 0.8 and top.verdict == REFERENCE
    assert math.isnan(top.pair_low) and math.isnan(top.required_n)
    assert "highest observed rate" in top.note and "may itself fall under 0.8" in top.note
    far = impact_ratios(_frame({"a": 0.9, "b": 0.3}, 400, 0, exact=True), group="g",
                        prediction="p")
    t = far.ratio(far.highest)
    assert t.verdict == REFERENCE and "may itself" not in t.note


def test_reference_pairwise_methods_and_error_control():
    df = _frame({"a": 0.5, "b": 0.3, "c": 0.45}, 300, 0, exact=True)
    ref = impact_ratios(df, group="g", prediction="p", reference="c")
    assert ref.versus == "reference" and ref.ratio("c").verdict == REFERENCE
    assert ref.ratio("b").ratio == pytest.approx(0.3 / 0.45)
    assert ref.n_tests == 2 and ref.interval_level == pytest.approx(0.975)
    pw = impact_ratios(df, group="g", prediction="p", versus="pairwise")
    assert len(pw.ratios) == 3 and all(r.ratio <= 1 for r in pw.ratios)
    assert pw.ratio("b", "a").ratio == pytest.approx(0.6)
    one = impact_ratios(df, group="g", prediction="p", error_control="none")
    assert one.interval_level == pytest.approx(1 - 0.05 / 2)  # a row's G - 1 pairs
    for m in ("koopman", "katz"):
        r = impact_ratios(df, group="g", prediction="p", method=m)
        assert r.guarantee == "asymptotic" and r.ratio("b").verdict == ADVERSE
    # the exact interval is the widest of the three here
    ex = impact_ratios(df, group="g", prediction="p").ratio("b")
    ko = impact_ratios(df, group="g", prediction="p", method="koopman").ratio("b")
    assert ex.low <= ko.low and ex.high >= ko.high


def test_min_share_groups_are_listed_apart_never_dropped():
    df = _frame({"a": 0.5, "b": 0.4}, 600, 0, exact=True)
    tiny = pd.DataFrame({"g": ["tiny"] * 10, "p": [1] * 9 + [0]})
    df = pd.concat([df, tiny], ignore_index=True)
    res = impact_ratios(df, group="g", prediction="p")
    assert [g.group for g in res.small_groups] == ["tiny"]
    small = res.small_groups[0]
    assert (small.rows, small.count, small.rate) == (10, 9, 0.9)
    assert small.share == pytest.approx(10 / 1210)
    assert res.highest == "a" and "tiny" not in [r.group for r in res.ratios]
    frame = res.to_frame()
    row = frame[frame["group"] == "tiny"].iloc[0]
    assert not row["in_ratios"] and row["n"] == 10 and "under 2%" in row["verdict"]
    assert "1 under 2% listed apart" in repr(res)
    everyone = impact_ratios(df, group="g", prediction="p", min_share=0)
    assert everyone.highest == "tiny" and not everyone.small_groups
    csv_text = render_ll144_csv(res)
    assert "tiny,10," in csv_text


def test_favourable_negative_takes_the_favourable_outcomes_rate():
    df = _frame({"a": 0.2, "b": 0.6}, 200, 0, exact=True)  # p = 1: flagged (harmful)
    res = impact_ratios(df, group="g", prediction="p", favourable="negative")
    assert res.rate_name.startswith("favourable-outcome rate")
    assert res.highest == "a"
    assert res.ratio("b").ratio == pytest.approx(0.4 / 0.8)
    assert res.ratio("b").count == 80 and res.ratio("b").verdict == ADVERSE
    # with a label: TPR turns into FNR, FPR into TNR
    lab = df.assign(y=np.tile([1, 0], len(df) // 2))
    r = impact_ratios(lab, group="g", prediction="p", label="y", rate="fpr",
                      favourable="negative")
    assert r.rate_name == "TNR" and r.rows == "rows with y != 1"


def test_labels_pos_label_where_and_errors():
    df = pd.DataFrame({"g": ["a", "b"] * 100, "decision": ["hire", "reject", "hire",
                                                           "hire"] * 50,
                       "y": [1, 0] * 100, "split": ["t"] * 150 + ["d"] * 50})
    with pytest.raises(FairboundError, match="pos_label"):
        impact_ratios(df, group="g", prediction="decision")
    res = impact_ratios(df, group="g", prediction="decision", pos_label="hire",
                        where="split = 't'")
    assert res.positive == "hire" and res.excluded == {"where not true: split = 't'": 50}
    with pytest.raises(FairboundError, match="label"):
        impact_ratios(df, group="g", prediction="decision", pos_label="hire", rate="tpr")
    for kwargs, param in [({"threshold": 1.5}, "threshold"), ({"versus": "lowest"}, "versus"),
                          ({"method": "wald"}, "method"), ({"min_share": 2}, "min_share"),
                          ({"reference": "zzz"}, "reference"),
                          ({"error_control": "holm"}, "error_control"),  # fdr: accepted
                          ({"rate": "ppv"}, "rate")]:
        with pytest.raises(FairboundError) as exc:
            impact_ratios(df, group="g", prediction="decision", pos_label="hire", **kwargs)
        assert exc.value.param == param


def test_result_is_frozen_and_serialises():
    df = _frame({"a": 0.5, "b": 0.3}, 100, 0, exact=True)
    res = fairbound.impact_ratios(df, group="g", prediction="p")
    with pytest.raises(AttributeError):
        res.threshold = 0.5
    d = json.loads(res.to_json())
    assert d["schema"] == "fairbound.impact/1" and d["highest"] == "a"
    assert [r["group"] for r in d["ratios"]] == ["a", "b"]
    assert repr(res).startswith("ImpactRatioResult(g: selection rate, 2 groups vs the "
                                "highest (a)")
    assert len(res.to_frame()) == 2


def test_date_range_of_text_and_dates():
    df = pd.DataFrame({"d": ["2023-03-01", "2022-12-31", None, "2023-01-05"]})
    assert date_range(df, "d") == ("2022-12-31", "2023-03-01")
    df = pd.DataFrame({"d": pd.to_datetime(["2023-03-01", "2022-12-31"]).date})
    assert date_range(df, "d") == ("2022-12-31", "2023-03-01")
    with pytest.raises(FairboundError, match="date_column"):
        date_range(pd.DataFrame({"d": ["soon", "later"]}), "d")


# ----------------------------------------------------------------------------- report
HOSTILE = ['<script>alert("x")</script>', '"><img src=x onerror=alert(1)>', "=HYPERLINK(1)"]


def test_html_report_has_the_table_and_no_script_injection():
    rates = dict(zip(HOSTILE, (0.5, 0.3, 0.45), strict=True))
    df = _frame(rates, 200, 0, exact=True).rename(columns={"g": "<b>sex</b>"})
    df["<b>race</b>"] = np.tile(["x", "y"], len(df) // 2)
    a = ll144_audit(df, group=["<b>sex</b>", "<b>race</b>"], prediction="p",
                    source="<i>vendor</i> data", method="koopman")
    html = render_ll144_report(a)
    assert html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html
    assert "<script" not in html and "<img src=x" not in html
    assert "&lt;script&gt;" in html and "<b>sex</b>" not in html and "<i>vendor" not in html
    assert "not legal advice" in html and "Category: &lt;b&gt;sex&lt;/b&gt; &amp; " in html
    assert "<table" in html and "impact ratio" in html and "<img src=\"data:image/svg" in html
    csv_text = render_ll144_csv(a)
    frame = pd.read_csv(io.StringIO(csv_text))
    assert "'=HYPERLINK(1)" in set(frame["group"])
    assert set(frame["category"]) == {"<b>sex</b>", "<b>race</b>", "<b>sex</b> & <b>race</b>"}


def test_report_from_saved_json(tmp_path):
    df = _frame({"a": 0.5, "b": 0.3}, 100, 0, exact=True)
    path = tmp_path / "r.json"
    impact_ratios(df, group="g", prediction="p").to_json(path)
    html = render_ll144_report(path, figures=False)
    assert "evidence of adverse impact" in html and "left out on request" in html


# ----------------------------------------------------------------------------- CLI
@pytest.fixture
def hiring_csv(tmp_path):
    df = _frame({"F": 0.3, "M": 0.5}, 200, 0, exact=True).rename(columns={"g": "sex"})
    df["race"] = np.tile(["x", "y", "z", "x"], len(df) // 4)
    df["day"] = np.repeat(pd.date_range("2023-01-01", periods=len(df) // 4).strftime(
        "%Y-%m-%d"), 4)
    path = tmp_path / "hiring.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_json_csv_and_html(hiring_csv, tmp_path, capsys):
    out = tmp_path / "out"
    rc = main(["impact", str(hiring_csv), "--group", "sex", "--group", "race",
               "--prediction", "p", "--date-column", "day", "--source", "ATS export",
               "--json", str(out / "a.json"), "--html", str(out / "a.html"),
               "--csv", str(out / "a.csv")])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "fairbound impact of ATS export" in printed and "evidence of adverse impact" in printed
    # the highest group is shown as the reference, not against itself (issue 27 item 8)
    assert "(reference)" in printed and "reference group" in printed
    assert "[]" not in printed and "[/]" not in printed
    d = json.loads((out / "a.json").read_text())
    assert d["schema"] == "fairbound.ll144/1" and d["date_range"] == ["2023-01-01",
                                                                       "2023-04-10"]
    assert [c["category"] for c in d["categories"]] == ["sex", "race", "sex & race"]
    frame = pd.read_csv(out / "a.csv")
    f = frame[(frame["category"] == "sex") & (frame["group"] == "F")].iloc[0]
    assert f["impact_ratio"] == pytest.approx(0.6) and f["verdict"] == ADVERSE
    assert "<table" in (out / "a.html").read_text()
    rc = main(["impact", str(hiring_csv), "-g", "sex", "-p", "p", "--format", "json",
               "--reference", "M", "--confidence-level", "0.9", "--method", "koopman"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)["categories"][0]
    assert d["versus"] == "reference" and d["reference"] == "M" and d["method"] == "koopman"
    rc = main(["impact", str(hiring_csv), "-g", "sex", "-g", "race", "-p", "p",
               "--format", "csv", "--reference", "sex=M", "--reference", "race=x"])
    assert rc == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(frame["compared_with"].dropna()) == {"M", "x", "M & x"}


@pytest.mark.parametrize("extra, match", [
    (["--threshold", "1.5"], "threshold"),
    (["--comparison", "lowest"], "versus"),
    (["--method", "wald"], "method"),
    (["--rate", "tpr"], "label"),
    (["--reference", "Q"], "reference"),
    (["--pos-label", "maybe"], "pos_label"),
    (["--format", "xml"], "format"),
    (["--score", "p"], "prediction"),
])
def test_cli_bad_inputs_exit_2_with_one_line(hiring_csv, capsys, extra, match):
    rc = main(["impact", str(hiring_csv), "-g", "sex", "-p", "p", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    errors = [line for line in err if line.startswith("error:")]
    assert len(errors) == 1 and match in errors[0]


def test_cli_missing_column_file_and_outputs_all_or_nothing(hiring_csv, tmp_path, capsys):
    assert main(["impact", str(hiring_csv), "-g", "nope", "-p", "p"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["impact", str(tmp_path / "missing.csv"), "-g", "sex", "-p", "p"]) == 2
    assert capsys.readouterr().err.startswith("error:")
    folder = tmp_path / "a_folder.html"
    folder.mkdir()
    rc = main(["impact", str(hiring_csv), "-g", "sex", "-p", "p",
               "--json", str(tmp_path / "x.json"), "--html", str(folder)])
    assert rc == 2 and not (tmp_path / "x.json").exists()
