"""Honest verdicts: error control, the favourable side, "no meaningful gap", honest "n needed".

Every output (HTML report, Markdown export, JSON) says which error the verdicts control and
over how many comparisons, labels each interval with its own level, states whether the
positive prediction is favourable or harmful, and names the group that bears the harm.
"""

from __future__ import annotations

import copy
import json
import math
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from fairbound import audit
from fairbound.report import (
    comparison_sentence,
    render_audit_report,
    to_markdown,
    validate_audit_json,
)
from fairbound.report._common import fmt_level
from fairbound.report.audit_report import (
    error_control_sentence,
    far_sentence,
    favourable_sentence,
    normalise_audit,
    rows_phrase,
)

FLAG = "score_text != 'Low'"


class _Text(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.feed(html)

    def handle_data(self, data):
        self.parts.append(data)


def page_text(html: str) -> str:
    return " ".join(" ".join(_Text(html).parts).split())


def _audit(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return audit(df, **kw)


def compas_like(seed: int = 0) -> pd.DataFrame:
    """COMPAS-shaped data: a 'Medium/High' score flags a person (harmful), label = reoffended.

    African-American defendants are flagged more often both among those who did not
    reoffend (FPR about 45% vs 23%) and among those who did (TPR about 72% vs 50%).
    """
    rng = np.random.default_rng(seed)
    parts = []
    for g, n, base, tpr, fpr in (("African-American", 3000, 0.52, 0.715, 0.448),
                                 ("Caucasian", 2000, 0.39, 0.504, 0.235)):
        y = rng.random(n) < base
        flag = np.where(y, rng.random(n) < tpr, rng.random(n) < fpr)
        score = np.where(flag, rng.choice(["Medium", "High"], n), "Low")
        parts.append(pd.DataFrame({"race": g, "two_year_recid": y.astype(int),
                                   "score_text": score}))
    return pd.concat(parts, ignore_index=True)


COMPAS_METRICS = ["false_positive_rate", "equal_opportunity", "false_negative_rate",
                  "demographic_parity", "predictive_parity"]


@pytest.fixture(scope="module")
def compas():
    df = compas_like()
    harmful = _audit(df, group="race", label="two_year_recid", prediction=FLAG,
                     metrics=COMPAS_METRICS, favourable="negative")
    favourable = _audit(df, group="race", label="two_year_recid", prediction=FLAG,
                        metrics=COMPAS_METRICS)
    return harmful, favourable


# ----------------------------------------------------------------------------- favourable


def test_compas_fpr_sentence_names_the_flagged_group(compas):
    res, _ = compas
    d = res.to_dict()
    fpr = next(c for c in d["comparisons"] if c["metric"] == "false_positive_rate")
    assert fpr["disadvantaged"] == "African-American"
    s = comparison_sentence(fpr, result=d)
    aa = "rate_a" if fpr["group_a"] == "African-American" else "rate_b"
    ca = "rate_b" if aa == "rate_a" else "rate_a"
    assert s.startswith("African-American is disadvantaged on false_positive_rate: ")
    assert "its rows with two_year_recid != 1 are more often predicted positive " \
           f"({FLAG}), the harmful outcome" in s
    assert f"FPR {fpr[aa]:.1%} vs {fpr[ca]:.1%} for Caucasian" in s
    assert f"{fmt_level(fpr['interval_level'])} CI" in s
    assert "Caucasian is disadvantaged" not in s


def test_compas_never_blames_the_less_flagged_group(compas):
    """A higher TPR under a harmful positive class is a burden, not an advantage."""
    res, _ = compas
    d = res.to_dict()
    tpr = next(c for c in d["comparisons"] if c["metric"] == "equal_opportunity")
    assert tpr["disadvantaged"] == "African-American"
    s = comparison_sentence(tpr, result=d)
    assert "its rows with two_year_recid = 1 are more often predicted positive" in s
    for c in d["comparisons"]:
        if c["metric"] in ("false_positive_rate", "equal_opportunity", "false_negative_rate",
                           "demographic_parity"):
            assert c["disadvantaged"] in ("African-American", None)
    html = page_text(render_audit_report(res, figures=False))
    md = to_markdown(res)
    for text in (html, md, "\n".join(comparison_sentence(c, result=res)
                                     for c in d["comparisons"])):
        for metric in ("false_positive_rate", "equal_opportunity", "false_negative_rate",
                       "demographic_parity"):
            assert f"Caucasian is disadvantaged on {metric}" not in text
        assert "African-American is disadvantaged on false_positive_rate" in text
    # the FNR of the flagged group is lower: that is the harm here, said in the same words
    fnr = next(c for c in d["comparisons"] if c["metric"] == "false_negative_rate")
    assert "its rows with two_year_recid = 1 are more often predicted positive" in \
        comparison_sentence(fnr, result=d)


def test_compas_with_a_favourable_positive_reads_the_other_way(compas):
    _, res = compas
    d = res.to_dict()
    tpr = next(c for c in d["comparisons"] if c["metric"] == "equal_opportunity")
    s = comparison_sentence(tpr, result=d)
    assert s.startswith("Caucasian is disadvantaged on equal_opportunity: its rows with "
                        "two_year_recid = 1 are less often predicted positive")
    assert "the favourable outcome" in s and "harmful" not in s


def test_precision_sentence_follows_the_favourable_side(compas):
    harmful, favourable = compas
    for res, words in ((harmful, "the harmful prediction is more often wrong for"),
                       (favourable, "is held to a stricter standard")):
        d = res.to_dict()
        pp = next(c for c in d["comparisons"] if c["metric"] == "predictive_parity")
        if pp["verdict"] in ("A disadvantaged", "B disadvantaged"):
            s = comparison_sentence(pp, result=d)
            assert f"its rows predicted positive ({FLAG})" in s and words in s
            assert "truly positive (two_year_recid = 1)" in s


def test_favourable_side_is_stated_in_every_output(compas):
    res, fav = compas
    want = f"Positive prediction ({FLAG}) treated as harmful"
    assert favourable_sentence(res.to_dict()).startswith(want)
    html = page_text(render_audit_report(res, figures=False))
    assert want in html
    assert "with the positive prediction harmful, the group predicted positive more often" \
        in page_text(render_audit_report(res)) or "<img" not in render_audit_report(res)
    assert want in to_markdown(res)
    assert json.loads(res.to_json())["favourable"] == "negative"
    assert f"Positive prediction ({FLAG}) treated as favourable" in to_markdown(fav)
    assert f"Positive prediction ({FLAG}) treated as favourable" in page_text(
        render_audit_report(fav, figures=False))


def test_sentence_without_the_audit_reads_the_side_off_the_verdict(compas):
    res, _ = compas
    for c in res.comparisons:
        bare = c.summary()
        assert bare == comparison_sentence(c.to_dict())
        if c.metric == "false_positive_rate":
            assert bare.startswith("African-American is disadvantaged")
            assert "its rows with a negative label are more often predicted positive, the " \
                   "harmful outcome" in bare


def test_rows_phrase_uses_column_names_and_expressions():
    d = {"columns": {"label": "y", "prediction": "score >= 0.5"}, "positive": 1,
         "task": "binary"}
    assert rows_phrase({"metric": "fpr", "component": "fpr", "class": None}, d) == \
        "rows with y != 1"
    d2 = {"columns": {"label": "decile >= 5", "prediction": "p"}, "positive": 1,
          "task": "binary"}
    assert rows_phrase({"metric": "tpr", "component": "tpr", "class": None}, d2) == \
        "rows where decile >= 5"
    assert rows_phrase({"metric": "fpr", "component": "fpr", "class": None}, d2) == \
        "rows where not (decile >= 5)"
    multi = {"columns": {"label": "lab", "prediction": "pred"}, "positive": None,
             "task": "multiclass"}
    assert rows_phrase({"metric": "tpr", "component": "tpr", "class": "hate"}, multi) == \
        "rows with lab = hate"
    assert rows_phrase({"metric": "dp", "component": "selection_rate", "class": "x"},
                       multi) == "all rows"


# ----------------------------------------------------------------------------- error control


@pytest.mark.parametrize("control", ["family", "fdr", "none"])
def test_error_control_is_stated_in_every_output(adult_audits, control):
    res = adult_audits[1].recompute(error_control=control)
    d = res.to_dict()
    assert d["error_control"] == control and d["n_tests"] > 1
    statement = error_control_sentence(d)
    if control == "family":
        each = fmt_level(1 - 0.05 / d["n_tests"])
        assert statement == (f"Verdicts control the family-wise error over {d['n_tests']} "
                             f"comparisons at 95% (Bonferroni: each interval at {each}). "
                             "The 4 summary rows giving the largest absolute gap of a "
                             "multi-part metric (at their own joint level) are not counted: "
                             "each holds jointly for its parts.")
        assert {fmt_level(c["interval_level"]) for c in d["comparisons"]
                if c["component"] != "max"} == {each}
    elif control == "fdr":
        assert statement.startswith(f"Verdicts control the false discovery rate over "
                                    f"{d['n_tests']} comparisons at 5% (Benjamini-Hochberg)")
    else:
        assert statement.startswith(f"No correction across comparisons: each of the "
                                    f"{d['n_tests']} comparisons is at 95% on its own")
        assert "each at 97.5%" in statement  # equalized odds' parts
    html = page_text(render_audit_report(res, figures=False))
    assert statement in html
    assert statement in to_markdown(res)
    validate_audit_json(json.loads(res.to_json()))
    # each interval is labelled with its own level, in sentences and in the table
    for c in d["comparisons"]:
        s = comparison_sentence(c, result=d)
        # an n needed out of reach is kept to one compact line in the page
        assert (far_sentence(c, result=d) if "not reachable" in s else s) in html
        if c["verdict"] != "not estimable" and c["component"] != "max":
            assert f"{fmt_level(c['interval_level'])} CI" in s


def test_family_level_is_stated_once_and_intervals_at_their_level(adult_audits):
    res = adult_audits[0]
    html = render_audit_report(res, figures=False)
    text = page_text(html)
    each = fmt_level(res.comparisons[0].interval_level)
    assert f"95% (family-wise); intervals at {each}" in text
    assert "<th class=\"num\">level</th>" in html
    assert f"<td class=\"num\" data-label=\"level\">{each}</td>" in html
    md = to_markdown(res)
    assert f"### Gaps ({res.method}, {each} intervals)" in md


def test_fmt_level_never_rounds_up():
    assert fmt_level(0.95) == "95%"
    assert fmt_level(1 - 0.05 / 28) == "99.82%"  # 99.8214...
    assert fmt_level(0.999999) == "99.9999%"
    assert fmt_level(0.99999999) != "100%"
    assert fmt_level(None) == "-"


# ----------------------------------------------------------------------------- no meaningful gap


def _two_groups(n_a, k_a, n_b, k_b):
    """Groups a and b with k predicted positive (labels all 1: TPR = selection rate)."""
    return pd.DataFrame({
        "g": ["a"] * n_a + ["b"] * n_b, "y": [1] * (n_a + n_b),
        "p": [1] * k_a + [0] * (n_a - k_a) + [1] * k_b + [0] * (n_b - k_b)})


@pytest.fixture(scope="module")
def parity_audit():
    df = _two_groups(20000, 10000, 20000, 10000)
    return _audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity",
                  tolerance=0.05, method="newcombe")


def test_no_meaningful_gap_has_its_sentence_and_style(parity_audit):
    res = parity_audit
    c = res.comparisons[0]
    assert c.verdict == "no meaningful gap"
    d = res.to_dict()
    s = comparison_sentence(d["comparisons"][0], result=d)
    assert s.startswith("No meaningful gap on equal_opportunity (a vs b): gap within +/-0.05: "
                        "TPR 50.0% vs 50.0%; gap +0.000, ")
    html = render_audit_report(res, figures=False)
    assert "<h4>No meaningful gap (within +/-0.05)</h4>" in html
    assert re.search(r'<li class="ok">No meaningful gap on equal_opportunity', html)
    assert '<span class="badge ok">no meaningful gap</span>' in html
    assert '<span class="badge ok">1 no meaningful gap</span>' in html
    assert "ul.findings li.ok" in html and ".badge.ok" in html
    assert "<th class=\"num\">n for parity</th>" in html
    text = page_text(html)
    assert "A gap within +/-0.05 on the rate scale counts as no meaningful gap." in text
    md = to_markdown(res)
    assert f"- {s}" in md.replace("\\", "")  # Markdown escapes the brackets
    assert "| n for parity |" in md
    validate_audit_json(json.loads(res.to_json()))


def test_parity_sample_size_is_said_where_a_tolerance_was_given():
    res = _audit(_two_groups(300, 150, 300, 153), group="g", label="y", prediction="p",
                 metrics="equal_opportunity", tolerance=0.05, method="newcombe")
    c = res.comparisons[0]
    assert c.verdict == "not enough evidence" and math.isfinite(c.required_n_parity)
    s = comparison_sentence(c.to_dict(), result=res)
    assert (f"about {c.required_n_parity:,.0f} examples in all would show parity (a gap "
            "within +/-0.05) if the observed gap were the truth") in s
    html = render_audit_report(res, figures=False)
    assert (f"<td class=\"num\" data-label=\"n for parity\">{c.required_n_parity:,.0f}</td>"
            in html)

    out = _audit(_two_groups(100, 50, 100, 60), group="g", label="y", prediction="p",
                 metrics="equal_opportunity", tolerance=0.02, method="newcombe")
    c = out.comparisons[0]
    assert c.verdict == "not enough evidence" and c.required_n_parity == math.inf
    s = comparison_sentence(c.to_dict(), result=out)
    assert "no sample size can show parity: the observed gap is outside the +/-0.02 band" in s
    assert "none (gap outside band)" in render_audit_report(out, figures=False)


# ----------------------------------------------------------------------------- honest n needed


def test_small_group_gets_its_own_number():
    df = _two_groups(25, 7, 2500, 1000)  # 28% vs 40%, a tiny group a
    res = _audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity",
                 method="newcombe")  # pinned: the wording is tested, not the method
    c = res.comparisons[0]
    assert c.verdict == "not enough evidence" and math.isfinite(c.required_n)
    total = c.a.n + c.b.n
    assert c.required_n > total
    s = comparison_sentence(c.to_dict(), result=res)
    more = math.ceil(c.required_n - total)
    in_a = math.ceil(c.required_n * c.a.n / total - c.a.n)
    assert f"about {more:,} more annotated examples would be needed" in s
    assert f"(about {in_a:,} more in group a at the current shares)" in s
    assert in_a > 0


def test_no_number_when_the_plan_is_unknown_and_zero_gap_is_said(adult_audits):
    d = adult_audits[0].to_dict()
    c = copy.deepcopy(next(c for c in d["comparisons"] if c["component"] != "max"))
    c.update(verdict="not enough evidence", required_n=None, rate_gap_low=-0.01,
             rate_gap_high=0.02)
    s = comparison_sentence(c, result=d)
    assert "more annotated" not in s and "examples" not in s
    res = _audit(_two_groups(20, 10, 20, 10), group="g", label="y", prediction="p",
                 metrics="equal_opportunity")
    c = res.comparisons[0]
    assert c.required_n == math.inf and c.verdict == "not enough evidence"
    s = comparison_sentence(c.to_dict(), result=res)
    assert "the observed gap is 0, so no sample size would show a gap" in s
    assert "none (gap 0)" in render_audit_report(res, figures=False)


def test_planned_n_below_current_is_never_printed(adult_audits):
    d = adult_audits[0].to_dict()
    for c in d["comparisons"]:
        if c["verdict"] != "not enough evidence":
            continue
        s = comparison_sentence(c, result=d)
        m = re.search(r"about ([\d,]+) more annotated", s)
        if m:
            assert int(m.group(1).replace(",", "")) > 0


# ----------------------------------------------------------------------------- issue 14


def test_report_renders_when_a_group_rate_is_one():
    """A rate of exactly 1 gives a gap near 1: the sample-size figure used to ask the
    Bernstein planner for a bias above 1 ("bias must be in (0, 1]; got 1.0126")."""
    pytest.importorskip("matplotlib")
    from fairbound.viz.audit import plot_sample_size

    df = pd.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y": [1, 0] * 40,
                       "p": [1] * 40 + [1] + [0] * 39})
    res = _audit(df, group="g", label="y", prediction="p",
                 metrics=["demographic_parity", "equal_opportunity"])
    assert any(c.rate_a == 1.0 for c in res.comparisons)
    assert any(abs(c.rate_gap[0]) * 1.15 > 1.0126 and math.isfinite(c.required_n)
               for c in res.comparisons)
    fig = plot_sample_size(res)
    assert max(max(ln.get_xdata(), default=0) for ln in fig.axes[0].get_lines()) <= 1.0
    html = render_audit_report(res)
    assert html.count("<img") == 3
    assert "can only claim gaps of" in html
    tiny = _audit(df.iloc[[0, 2, 4, 6, 40, 42, 44, 46]], group="g", label="y", prediction="p",
                  metrics="demographic_parity")
    html = render_audit_report(tiny)
    assert html.count("<img") == 3
    assert "cannot claim any gap" in html  # 8 rows: the Bernstein bound claims nothing


# ----------------------------------------------------------------------------- files


def test_old_files_without_the_new_keys_still_render(adult_audits):
    d = copy.deepcopy(adult_audits[0].to_dict())
    for k in ("error_control", "n_tests", "favourable", "tolerance"):
        del d[k]
    for c in d["comparisons"]:
        del c["tolerance"], c["required_n_parity"]
    n = normalise_audit(d)
    assert n["error_control"] == "none" and n["favourable"] == "positive"
    validate_audit_json(n)
    text = page_text(render_audit_report(d, figures=False))
    assert "No correction across comparisons" in text
    assert "treated as favourable" in to_markdown(d)


def test_vs_rest_names_the_rest_in_words(adult_rule):
    res = _audit(adult_rule, group="race", label="income", prediction="prediction",
                 metrics="demographic_parity", comparison="vs-rest")
    d = res.to_dict()
    s = [comparison_sentence(c, result=d) for c in d["comparisons"]]
    assert any("the rest (all other groups)" in x for x in s)
