"""HTML reports of stability studies and BBNLI audits, and their --html CLI options."""

from __future__ import annotations

import pytest

from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.report import (
    render_nli_report,
    render_stability_report,
    write_nli_report,
    write_stability_report,
)

from .conftest import overlap_nli
from .test_html import Page


def test_stability_report_sections(study):
    html = render_stability_report(study)
    page = Page(html)
    pairs = {(a, b) for a, b in zip(study.gaps["group_a"], study.gaps["group_b"],
                                    strict=True)}
    assert len(pairs) == 4
    for a, b in pairs:
        assert f"{a} vs {b}" in html
    # score boxplots, F1 per size (the paper's Fig. 2), bios per class and gender (Fig. 7);
    # per pair: gap boxplots, variance and mean heatmaps of every condition, group share
    assert len(page.all("img")) == 4 * len(pairs) + 3
    assert "Tests between sample sizes" in html and "levene" in html
    assert page.all("script") == []
    text = " ".join(page.text)
    assert "1,500, 4,000" in text and "auto at 95%" in text  # the audit's default method


def test_stability_report_numbers(study):
    html = render_stability_report(study, figures=False)
    s = study.summary()
    r = s.iloc[0]
    assert f"{r['mean']:.3f}" in html and f"{r['sd']:.3f}" in html
    assert "<img" not in html


def test_stability_report_errors(study, tmp_path):
    with pytest.raises(FairboundError, match="result must be a StudyResult"):
        render_stability_report({"gaps": []})
    with pytest.raises(FairboundError, match="correction must be one of holm, bonferroni, "
                                             "bh, none; got 'sidak'"):
        render_stability_report(study, correction="sidak")
    with pytest.raises(FairboundError, match=r"should end in \.html"):
        write_stability_report(study, tmp_path / "s.md")


def test_stability_cli_html(study, tmp_path, capsys):
    out = tmp_path / "stab.html"
    rc = main(["stability", "report", str(study.store), "--out", str(tmp_path / "rep"),
               "--format", "none", "--html", str(out)])
    assert rc == 0
    assert str(out) in capsys.readouterr().out
    assert "Stability study" in out.read_text()


def test_nli_report_measures_and_comparison(nli_results):
    _, ra, rb, comp = nli_results
    html = render_nli_report([ra, rb], comp)
    page = Page(html)
    assert html.count('<section class="audit nli"') == 2
    assert len(page.all("img")) == 4  # stacked bars and measures, per model
    n_rows = len(ra.table.drop_duplicates(["level", "domain", "subtopic"]))
    assert n_rows == 20  # overall, 3 domains, 16 subtopics
    assert html.count("man_is_to_programmer") >= 2
    est = ra.estimate("bias_score")
    assert f"{est:.3f}" in html
    assert "Paired comparison: overlap vs always-neutral" in html
    row = comp.table[(comp.table.level == "overall") & (comp.table.measure == "accuracy")]
    assert row["verdict"].iloc[0] in html


def test_nli_report_errors(nli_results, tmp_path):
    _, ra, _, comp = nli_results
    with pytest.raises(FairboundError, match="result must be an NLIBiasResult; got dict"
                       .replace("NLIBiasResult;", r"NLIBiasResult \(fairbound.nli.audit_nli\);")):
        render_nli_report({})
    with pytest.raises(FairboundError, match="comparison must be an NLIComparisonResult"):
        render_nli_report(ra, ra)
    with pytest.raises(FairboundError, match="result: the list is empty"):
        render_nli_report([])
    assert write_nli_report(ra, tmp_path / "n.html", figures=False).is_file()


def test_nli_cli_html(nli_results, tmp_path):
    s, ra, _, _ = nli_results
    samples = tmp_path / "samples.csv"
    preds = tmp_path / "preds.csv"
    s.to_csv(samples, index=False)
    s[["sample_id"]].assign(prediction=overlap_nli(s["premise"].tolist(),
                                                s["hypothesis"].tolist())).to_csv(
        preds, index=False)
    out = tmp_path / "nli.html"
    rc = main(["nli", "audit", "--samples", str(samples), "-p", str(preds), "--n-resamples",
               "100", "--html", str(out), "--format", "csv"])
    assert rc == 0
    html = out.read_text()
    assert "BBNLI audit" in html and "stereotype" in html


def test_nli_report_without_intervals_or_breakdowns(nli_results):
    from fairbound.nli import audit_nli

    s = nli_results[0]
    r = audit_nli(s, ["entailment"] * len(s), n_resamples=0, by=())
    html = render_nli_report(r, figures=False)
    assert "0 resamples" in html
    assert html.count('<tr><td data-label="breakdown">all</td>') == 1  # only the overall row
    r = audit_nli(s, ["contradiction"] * len(s), n_resamples=50, by=("domain",))
    html = render_nli_report(r, figures=False)
    for domain in ("gender", "race", "religion"):
        assert f'<tr><td data-label="breakdown">{domain}</td>' in html


def test_nli_model_name_is_escaped(nli_results):
    from fairbound.nli import audit_nli

    from .conftest import XSS

    s = nli_results[0]
    r = audit_nli(s, ["neutral"] * len(s), n_resamples=20, model=XSS)
    html = render_nli_report(r, figures=False)
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert Page(html).all("script") == []


def test_stability_report_single_run_and_conditions():
    import warnings

    from fairbound.datasets import load_adult
    from fairbound.stability import TabularTrainer, run_study

    features = ("age", "education_num", "hours_per_week", "capital_gain")
    data = load_adult("test")[[*features, "sex", "income"]]
    kw = dict(label="income", group="sex", trainer=TabularTrainer(columns=features),
              sizes=[1500], progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = run_study(data, n_repeats=1, **kw)
        two = run_study(data, n_repeats=3, conditions={
            "original": None, "older": lambda d: d.assign(age=d["age"] + 1)}, **kw)
    html = render_stability_report(one, figures=False)
    assert "Tests between sample sizes" not in html  # one size: nothing to test
    html = render_stability_report(two, figures=False)
    assert "Between conditions" in html and "Tests between conditions." in html
