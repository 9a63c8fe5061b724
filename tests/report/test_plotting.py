"""Figures from results and from their JSON: content, Wilson references, errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib.pyplot as plt  # noqa: E402

from fairbound.errors import FairboundError, MissingDependencyError  # noqa: E402
from fairbound.viz import audit as plotting  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_forest_has_one_row_per_comparison_and_the_zero_line(adult_audits):
    res = adult_audits[1]
    fig = res.plot("forest")
    ax = fig.axes[0]
    assert len(ax.get_yticks()) == len(res.comparisons)
    vertical = [ln for ln in ax.get_lines()
                if list(ln.get_xdata()) == [0, 0] and ln.get_color() == "black"]
    assert len(vertical) == 1
    # every estimable interval is drawn where the rate gap says
    c = next(c for c in res.comparisons if c.component != "max" and c.estimable)
    g, lo, hi = c.rate_gap
    xs = [tuple(ln.get_xdata()) for ln in ax.get_lines()]
    assert any(np.allclose(x, (lo, hi)) for x in xs if len(x) == 2)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert f"{c.group_a} vs {c.group_b}  ({c.rate})" in labels


def test_result_dict_and_file_give_the_same_figure(adult_audits, tmp_path):
    res = adult_audits[0]
    p = tmp_path / "a.json"
    res.to_json(p)
    figs = [plotting.plot_forest(x) for x in (res, res.to_dict(), p, str(p))]
    lines = [[tuple(ln.get_xdata()) for ln in f.axes[0].get_lines()] for f in figs]
    assert all(ls == lines[0] for ls in lines)


def test_group_rates_match_statsmodels_wilson(adult_audits):
    from statsmodels.stats.proportion import proportion_confint

    rows = plotting.group_rate_rows(adult_audits[1], confidence_level=0.9)
    assert {r["group"] for r in rows} == {g for g, _ in adult_audits[1].groups}
    for r in rows:
        k = round(r["value"] * r["n"])
        lo, hi = proportion_confint(k, r["n"], alpha=0.1, method="wilson")
        assert r["low"] == pytest.approx(lo, abs=1e-12)
        assert r["high"] == pytest.approx(hi, abs=1e-12)


def test_group_rates_one_panel_per_rate(adult_audits):
    res = adult_audits[0]
    fig = plotting.plot_group_rates(res)
    visible = [a for a in fig.axes if a.get_visible()]
    rates = {(c.rate, c.cls) for c in res.comparisons if c.component != "max"}
    assert len(visible) == len(rates)
    assert {a.get_title(loc="left") for a in visible} == {r for r, _ in rates}


def test_vs_rest_does_not_show_rest_as_a_group(adult_rule):
    from fairbound import audit

    res = audit(adult_rule, group="sex", label="income", prediction="prediction",
                metrics="demographic_parity", comparison="vs-rest")
    groups = {r["group"] for r in plotting.group_rate_rows(res)}
    assert groups == {"Female", "Male"}


def test_sample_size_marks_current_and_needed_n(adult_audits):
    res = adult_audits[1]
    fig = plotting.plot_sample_size(res)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    total = sum(n for _, n in res.groups)
    assert any(list(ln.get_ydata()) == [total, total] for ln in ax.get_lines())
    segments = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2
                and ln.get_xdata()[0] == ln.get_xdata()[1]]
    expected = [c for c in res.comparisons if c.component != "max"
                and math.isfinite(c.rate_gap[0]) and math.isfinite(c.required_n)]
    assert len(segments) == len(expected) > 0
    needs = sorted(max(ln.get_ydata()) for ln in segments)
    want = sorted(max(c.required_n, c.a.n + c.b.n) for c in expected)
    assert np.allclose(needs, want)


def test_sample_size_of_a_plan_marks_its_n():
    from fairbound.planning import plan_bbu

    fig = plotting.plot_sample_size(plan_bbu(bias=0.05, confidence_level=0.95))
    ax = fig.axes[0]
    assert any(list(ln.get_ydata()) == [11903, 11903] for ln in ax.get_lines())


def test_user_strings_with_dollar_signs_are_literal(hostile_audit):
    fig = plotting.plot_group_rates(hostile_audit)
    fig.canvas.draw()  # mathtext would fail or change the text here
    labels = {t.get_text() for a in fig.axes for t in a.get_yticklabels()}
    assert "\\$\\alpha\\$ | *b* _c_" in labels


def test_plot_errors(adult_audits):
    with pytest.raises(FairboundError, match="kind must be one of forest, rates, sample-size; "
                                             "got 'pie'"):
        adult_audits[0].plot("pie")
    with pytest.raises(FairboundError, match="ncols must be a positive integer; got 0"):
        plotting.plot_group_rates(adult_audits[0], ncols=0)
    with pytest.raises(FairboundError, match="ax must be a matplotlib Axes; got str"):
        plotting.plot_forest(adult_audits[0], ax="left")
    with pytest.raises(FairboundError, match="expected schema 'fairbound.audit/1'; got 'x/9'"):
        plotting.plot_forest({"schema": "x/9", "comparisons": []})
    with pytest.raises(FairboundError, match="no such audit JSON file 'nope.json'"):
        plotting.plot_forest("nope.json")
    with pytest.raises(FairboundError, match="result must be an AuditResult.*got int"):
        plotting.plot_forest(3)


def test_bad_json_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{")
    with pytest.raises(FairboundError, match="is not JSON"):
        plotting.audit_dict(p)


def test_missing_matplotlib_names_the_extra(adult_audits, monkeypatch):
    import fairbound.errors as errors

    real = errors.require

    def fake(module, extra):
        if module.startswith("matplotlib"):
            raise MissingDependencyError(f'matplotlib is required for this feature: '
                                         f'pip install "fairbound[{extra}]"')
        return real(module, extra)

    from fairbound.viz import _figure  # where every figure imports matplotlib

    monkeypatch.setattr(_figure, "require", fake)
    with pytest.raises(MissingDependencyError, match=r'pip install "fairbound\[plot\]"'):
        adult_audits[0].plot()


def test_ax_is_used(adult_audits):
    fig, ax = plt.subplots()
    assert plotting.plot_forest(adult_audits[0], ax=ax) is fig
    assert json.loads(adult_audits[0].to_json())["schema"] == "fairbound.audit/1"


def test_forest_max_rows_keeps_verdicts_first(adult_audits):
    res = adult_audits[1]
    gaps = [c for c in res.comparisons if c.verdict in ("A disadvantaged", "B disadvantaged",
                                                         "unequal")]
    k = len(gaps) + 2
    fig = plotting.plot_forest(res, max_rows=k)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == k
    for c in gaps:
        rate = "max |gap|" if c.component == "max" else c.rate
        assert f"{c.group_a} vs {c.group_b}  ({rate})" in labels
    with pytest.raises(FairboundError, match="max_rows must be a positive integer; got 0"):
        plotting.plot_forest(res, max_rows=0)


def test_many_comparisons_are_capped_in_the_report(rng):
    import warnings

    import pandas as pd

    from fairbound import audit
    from fairbound.report import render_audit_report

    n = 6000
    df = pd.DataFrame({"g": rng.choice([f"g{i}" for i in range(10)], n),
                       "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit(df, group="g", label="y", prediction="p", method="agresti-caffo",
                    metrics=["equalized_odds", "demographic_parity", "accuracy_parity"])
    assert len(res.comparisons) > 150
    html = render_audit_report(res)
    assert f"shows 150 of the {len(res.comparisons)} comparisons" in html


def test_comparison_plot(adult_audits):
    from statsmodels.stats.proportion import proportion_confint

    c = next(c for c in adult_audits[0].comparisons if c.metric == "equal_opportunity")
    fig = c.plot()
    left, right = fig.axes
    lines = [tuple(ln.get_xdata()) for ln in left.get_lines() if len(ln.get_xdata()) == 2]
    lo, hi = proportion_confint(round(c.rate_a * c.a.n), c.a.n, alpha=0.05, method="wilson")
    assert any(np.allclose(x, (lo, hi)) for x in lines)
    g, glo, ghi = c.rate_gap
    assert any(np.allclose(tuple(ln.get_xdata()), (glo, ghi)) for ln in right.get_lines()
               if len(ln.get_xdata()) == 2)
    assert c.verdict in right.get_title(loc="left")
    mx = next(c for c in adult_audits[0].comparisons if c.component == "max")
    with pytest.raises(FairboundError, match="a 'max' component has no group rates"):
        mx.plot()
    with pytest.raises(FairboundError, match="comparison must be a Comparison"):
        plotting.plot_comparison(3)


def test_forest_labels_the_interval_level_and_draws_the_tolerance_band(adult_rule):
    import warnings

    from fairbound import audit
    from fairbound.report._common import fmt_level

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit(adult_rule, group="sex", label="income", prediction="prediction",
                    metrics=["equal_opportunity", "accuracy_parity"], tolerance=0.2,
                    method="newcombe")
    each = fmt_level(res.comparisons[0].interval_level)
    fig = plotting.plot_forest(res)
    ax = fig.axes[0]
    assert ax.get_xlabel() == f"gap = rate(A) - rate(B), with {each} intervals (family-wise 95%)"
    xs = [v for p in ax.patches  # the band: a Rectangle or a Polygon, by matplotlib version
          for v in ([p.get_x()] if hasattr(p, "get_x") else np.asarray(p.get_xy())[:, 0])]
    assert np.isclose(min(xs), -0.2)
    no_gap = [c for c in res.comparisons if c.verdict == "no meaningful gap"]
    assert no_gap and sum(ln.get_marker() == "s" for ln in ax.get_lines()) == len(no_gap)
    c = res.comparisons[0]
    assert c.plot().axes[1].get_xlabel() == f"{each} interval ({c.method})"
    none = res.recompute(error_control="none")
    assert plotting.plot_forest(none).axes[0].get_xlabel() == \
        "gap = rate(A) - rate(B), with 95% intervals"
