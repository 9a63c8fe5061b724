"""Jourdan et al. (2023): score boxplots, heatmaps of every condition, occupations by group
share, and the paper's filter of cells with too few rows per group (library, CLI, reports).

Figures are checked on small frames (no drawing); one real 2-condition study (the toy text
of test_stability_study, original vs debiased) feeds the report and CLI checks.
"""

from __future__ import annotations

import json
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from fairbound.cli import main  # noqa: E402
from fairbound.errors import FairboundError  # noqa: E402
from fairbound.stability import TextDebias, load_study, run_study, summarize_gaps  # noqa: E402
from fairbound.viz.stability import (  # noqa: E402
    plot_condition_heatmaps,
    plot_gap_boxplots,
    plot_group_share,
    plot_score_boxplots,
)

from .test_stability_study import KW, toy_text  # noqa: E402

CONDS = ("original", "debiased")
CLASSES = ("nurse", "surgeon", "teacher")


def fake_gaps(conditions=CONDS, small="nurse"):
    """Per-run gaps; the class ``small`` has only 6 women behind its rates at size 100."""
    rng = np.random.default_rng(0)
    rows = []
    for c in conditions:
        for s in (100, 400):
            for r in range(6):
                for m in ("demographic_parity", "equal_opportunity"):
                    for i, k in enumerate(CLASSES):
                        n_a = 6 if (k == small and s == 100) else s // 8 * (i + 1)
                        rows.append({"condition": c, "size": s, "repeat": r, "metric": m,
                                     "class": k, "group_a": "female", "group_b": "male",
                                     "gap": rng.normal(0.1 * (i - 1), 0.05), "low": -0.1,
                                     "high": 0.1, "n_a": n_a, "n_b": s // 4})
    return pd.DataFrame(rows)


def panels(fig):
    return [a for a in fig.axes if a.images]


# ----------------------------------------------------------------------------- the filter


def test_filter_marks_cells_with_the_reason_and_keeps_at_least_the_threshold():
    g = fake_gaps()
    s = summarize_gaps(g, min_per_group=11)
    f = s[s["filtered"]]
    assert set(f["class"]) == {"nurse"} and set(f["size"]) == {100}
    assert len(f) == 2 * 2  # conditions x metrics
    tpr = f[f["metric"] == "equal_opportunity"].iloc[0]
    assert tpr["filter_reason"] == ("filtered: fewer than 11 true members of the class per "
                                    "group in some run (female: 6, male: 25)")
    assert tpr["min_n_a"] == 6 and tpr["min_n_b"] == 25
    assert (s.loc[~s["filtered"], "filter_reason"] == "").all()
    # "at least": a cell with exactly the threshold is kept, one fewer is filtered
    assert not summarize_gaps(g, min_per_group=6)["filtered"].any()
    assert summarize_gaps(g, min_per_group=7)["filtered"].sum() == 4
    for off in (None, 0):
        assert not summarize_gaps(g, min_per_group=off)["filtered"].any()
    with pytest.raises(FairboundError, match="min_per_group must be a non-negative integer"):
        summarize_gaps(g, min_per_group=-1)
    with pytest.raises(FairboundError, match="min_per_group must be a non-negative integer"):
        summarize_gaps(g, min_per_group=2.5)


# ----------------------------------------------------------------------------- figures


def test_score_boxplots_one_panel_per_score():
    runs = pd.DataFrame({"condition": np.repeat(CONDS, 8), "size": [100, 400] * 8,
                         "accuracy": np.linspace(0.6, 0.9, 16),
                         "macro_f1": np.linspace(0.5, 0.8, 16)})
    fig = plot_score_boxplots(runs)
    assert [a.get_title() for a in fig.axes] == ["accuracy", "macro-F1"]
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["100", "400"]
    assert len(fig.axes[0].patches) == 2 * 2  # a box per size and condition
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(CONDS)
    assert len(plot_score_boxplots(runs, scores="accuracy").axes) == 1
    with pytest.raises(FairboundError, match="scores: no column 'f1'"):
        plot_score_boxplots(runs, scores=["f1"])


def test_heatmaps_of_every_condition_side_by_side_on_one_scale():
    s = summarize_gaps(fake_gaps(("original", "debiased", "neutral")))
    fig = plot_condition_heatmaps(s, kind="mean")
    ps = panels(fig)
    assert len(ps) == 3  # one panel per condition
    assert [a.get_title() for a in ps] == ["original: mean gap, size 400",
                                           "debiased: mean gap, size 400",
                                           "neutral: mean gap, size 400"]
    assert ps[0].images[0].get_array().shape == (3, 2)  # classes x metrics
    norms = {(a.images[0].norm.vmin, a.images[0].norm.vmax) for a in ps}
    assert len(norms) == 1  # one colour scale for all conditions
    fig = plot_condition_heatmaps(s, kind="variance")
    ps = panels(fig)
    assert len(ps) == 2 * 3  # metrics x conditions
    assert ps[1].get_title() == "debiased: var of GP gap"
    assert ps[0].images[0].get_array().shape == (3, 2)  # classes x sizes
    fig = plot_condition_heatmaps(s, kind="variance", metrics=["equal_opportunity"],
                                  conditions=["debiased", "original"])
    assert [a.get_title() for a in panels(fig)] == ["debiased: var of TPR gap",
                                                    "original: var of TPR gap"]
    with pytest.raises(FairboundError, match="kind must be one of variance, mean"):
        plot_condition_heatmaps(s, kind="median")
    with pytest.raises(FairboundError, match="conditions: no condition 'x'"):
        plot_condition_heatmaps(s, conditions=["x"])


def test_filtered_cells_are_drawn_as_filtered_never_as_numbers():
    s = summarize_gaps(fake_gaps(), min_per_group=11)
    fig = plot_condition_heatmaps(s, kind="variance", metrics=["equal_opportunity"])
    for ax in panels(fig):
        arr = ax.images[0].get_array()
        row = list(ax.get_yticks()).index(0)  # classes are sorted: nurse is the first row
        assert [t.get_text() for t in ax.get_yticklabels()][row] == "nurse"
        # filtered at size 100 only, but the paper drops the occupation from the figure:
        # the whole row is filtered (Fig. 5: "for all samplings")
        for col in (0, 1):
            assert np.ma.is_masked(arr[0, col]) or not np.isfinite(arr[0, col])
        assert np.isfinite(np.asarray(arr[1:], float)).all()  # the other classes are kept
        texts = [(t.get_position(), t.get_text()) for t in ax.texts]
        assert ((0, 0), "filtered") in texts and ((1, 0), "filtered") in texts
        assert all(txt == "filtered" for pos, txt in texts if pos[1] == 0)
    fig = plot_gap_boxplots(fake_gaps(), min_per_group=11, metrics=["equal_opportunity"])
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[-1] == "filtered: fewer than 11 per group"


def test_group_share_figure_one_panel_per_condition_filtered_classes_hollow():
    s = summarize_gaps(fake_gaps(), min_per_group=11)
    fig = plot_group_share(s, size=100)
    assert len(fig.axes) == 2
    ax = fig.axes[0]
    assert ax.get_xlabel() == "share of female among the class (test sets)"
    assert ax.get_ylabel() == "mean TPR gap (female - male)"
    assert ax.get_title().startswith("original, size 100")
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {
        "kept (2)", "filtered (1): too few per group"}
    tpr = s[(s["metric"] == "equal_opportunity") & (s["size"] == 100)
            & (s["condition"] == "original")].set_index("class")
    hollow = ax.collections[-1]
    assert hollow.get_offsets()[0][0] == pytest.approx(
        tpr.loc["nurse", "mean_n_a"] / (tpr.loc["nurse", "mean_n_a"]
                                        + tpr.loc["nurse", "mean_n_b"]))
    assert hollow.get_facecolors().size == 0 or hollow.get_facecolors()[0][3] == 0
    s2 = summarize_gaps(fake_gaps())
    assert len(plot_group_share(s2, conditions=["debiased"]).axes) == 1
    assert "Pearson r" in plot_group_share(s2).axes[0].get_title()
    with pytest.raises(FairboundError, match="equal_opportunity"):
        plot_group_share(s2[s2["metric"] != "equal_opportunity"])


# ------------------------------------------------------------------- a real 2-condition study


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    store = tmp_path_factory.mktemp("jourdan") / "store"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_study(toy_text(600), sizes=[100, 400], n_repeats=3, store=store,
                         conditions={"original": None, "debiased": TextDebias("text")},
                         min_per_group=11, **KW)


class Page(HTMLParser):
    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.imgs, self.text = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.imgs.append(dict(attrs))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def page(study, tmp_path_factory):
    from fairbound.report import write_stability_report

    return write_stability_report(study, tmp_path_factory.mktemp("html") / "study.html")


def test_study_keeps_the_threshold_and_filters(study):
    assert study.config.min_per_group == 11
    assert json.loads((study.store / "study.json").read_text())["min_per_group"] == 11
    f = study.filtered()
    assert len(f) and set(f["size"]) == {100}
    assert f["filter_reason"].str.startswith("filtered: fewer than 11 ").all()
    assert study.filtered(min_per_group=1).empty  # overridden per call
    assert not study.summary(min_per_group=0)["filtered"].any()
    with pytest.raises(FairboundError, match="min_per_group must be a non-negative integer"):
        run_study(toy_text(200), sizes=[100], n_repeats=1, min_per_group=-3, **KW)


def test_report_of_two_conditions_shows_both_heatmaps_boxplots_and_the_filter(study, page):
    html = page.read_text()
    p = Page(html)
    alts = [i["alt"] for i in p.imgs]
    assert alts[0].startswith("Boxplots of accuracy and macro-F1") and "debiased" in alts[0]
    assert "Variance heatmaps f vs m, one per condition: original, debiased" in alts
    assert "Mean-gap heatmaps f vs m, one per condition: original, debiased" in alts
    assert "Boxplots of the gaps f vs m per size" in alts
    assert "Classes by the share of f: mean TPR gap f vs m" in alts
    assert alts[1].startswith("Boxplots of the F1-score of ")  # Fig. 2
    assert alts[2] == "Bars of the rows of each class by group"  # Fig. 7
    assert len(alts) == 7
    text = " ".join(p.text)
    assert "Filtered cells" in text and "filtered: fewer than 11 " in text
    assert "Filter (Jourdan et al. 2023, per occupation)" in text
    # a filtered cell's numbers are not in the summary table: its row reads "filtered"
    s = study.summary()
    assert ">filtered</td>" in html
    kept = s[~s["filtered"]].iloc[0]
    assert f"{kept['mean']:.3f}" in html


def test_report_in_a_real_browser(page, tmp_path):
    from tests.report.browser import Chromium, find_chromium

    binary = find_chromium()
    if binary is None:
        pytest.skip("chromium is not installed")
    b = Chromium(binary)
    try:
        b.open(page)
        assert b.problems() == []
        assert [u for u in b.requests() if not u.startswith(("file:", "data:"))] == []
        imgs = json.loads(b.evaluate(
            "JSON.stringify([...document.images].map(i => [i.alt, i.complete, "
            "i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width]))"))
        assert len(imgs) == 7
        for alt, complete, w, h, shown in imgs:
            assert complete and w > 150 and h > 150 and shown > 150, alt
        heat = [i for i in imgs if i[0].startswith("Variance heatmaps")][0]
        assert heat[2] > heat[3] * 0.8  # two conditions side by side: wider than tall-ish
        body = b.evaluate("document.body.innerText")
        assert "filtered: fewer than 11" in body
    finally:
        b.close()


def test_cli_min_per_gender_on_run_summary_and_report(tmp_path, capsys):
    toy_text(400).to_csv(tmp_path / "toy.csv", index=False)
    store = tmp_path / "s"
    assert main(["stability", "run", str(tmp_path / "toy.csv"), "--label", "label",
                 "--group", "gender", "--text-column", "text", "--reference", "m",
                 "--sizes", "80", "--repeats", "2", "--store", str(store), "--no-progress",
                 "--min-per-gender", "11"]) == 0
    assert load_study(store).config.min_per_group == 11
    capsys.readouterr()
    assert main(["stability", "summary", str(store), "--format", "csv"]) == 0
    s = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert s["filtered"].any() and s["filter_reason"].fillna("").str.contains("fewer than 11").any()
    assert main(["stability", "summary", str(store)]) == 0
    assert "cells filtered" in capsys.readouterr().out
    assert main(["stability", "summary", str(store), "--format", "csv",
                 "--min-per-group", "0"]) == 0
    assert not pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))["filtered"].any()
    assert main(["stability", "report", str(store), "--out", str(tmp_path / "r"),
                 "--format", "none", "--html", str(tmp_path / "r.html")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert "### Filtered cells (fewer than 11 per group in some run)" in md
    assert (tmp_path / "r" / "filtered.csv").exists()
    assert "filtered: fewer than 11" in (tmp_path / "r.html").read_text()
    assert main(["stability", "report", str(store), "--out", str(tmp_path / "r"),
                 "--format", "none", "--min-per-gender", "-1"]) == 2
    assert "min_per_group must be a non-negative integer" in capsys.readouterr().err


# --------------------------------------------------- the paper's filter, colours, Figs. 2, 7


def paper_gaps(pp_women_nurse=(5, 20), small="nurse"):
    """Per-run gaps with the paper's three metrics; ``small`` has few predictions of women
    at size 100 (the counts in ``pp_women_nurse`` per run, cycled)."""
    rng = np.random.default_rng(1)
    rows = []
    for s in (100, 400):
        for r in range(4):
            for i, k in enumerate(CLASSES):
                few = k == small and s == 100
                pred_f = pp_women_nurse[r % len(pp_women_nurse)] if few else 40 * (i + 1)
                for m, n_a, count_a in (("demographic_parity", 200, pred_f),
                                        ("equal_opportunity", 60, 30),
                                        ("predictive_parity", pred_f, pred_f // 2)):
                    rows.append({"condition": "original", "size": s, "repeat": r,
                                 "metric": m, "class": k, "group_a": "female",
                                 "group_b": "male", "gap": rng.normal(0.05 * (i - 1), 0.03),
                                 "low": -0.2, "high": 0.2, "n_a": n_a, "n_b": 200,
                                 "count_a": count_a, "count_b": 100})
    return pd.DataFrame(rows)


def test_filter_is_per_occupation_on_the_predictions():
    g = paper_gaps()
    s = summarize_gaps(g, min_per_group=11)
    f = s[s["filtered"]]
    # GP (200 women per run) goes with TPR and PP: the class had 5 predictions of women
    assert set(f["class"]) == {"nurse"} and set(f["size"]) == {100}
    assert set(f["metric"]) == {"demographic_parity", "equal_opportunity",
                                "predictive_parity"}
    assert (f["min_pred_a"] == 5).all()
    assert f["filter_reason"].iloc[0] == ("filtered: fewer than 11 predictions of the class "
                                          "per group in some run (female: 5, male: 200)")
    # the paper's Fig. 5 threshold, "at least one": kept
    assert not summarize_gaps(g, min_per_group=1)["filtered"].any()
    assert summarize_gaps(paper_gaps((0, 3)), min_per_group=1)["filtered"].sum() == 3
    # per cell, the old reading: GP stays (200 women behind it), TPR (60) too, PP goes
    c = summarize_gaps(g, min_per_group=11, filter_by="cell")
    assert set(c.loc[c["filtered"], "metric"]) == {"predictive_parity"}
    with pytest.raises(FairboundError, match="filter_by must be one of class, cell"):
        summarize_gaps(g, filter_by="run")


def test_figures_5_and_6_use_their_own_thresholds_and_red_favours_males():
    from fairbound.report.stability_report import FIG5_MIN_PER_GROUP
    from fairbound.stability.summary import PAPER_THRESHOLDS

    assert PAPER_THRESHOLDS == {"variance": 1, "mean": 11}
    assert FIG5_MIN_PER_GROUP == PAPER_THRESHOLDS["variance"]  # the report's copy
    g = paper_gaps()
    fig5 = plot_condition_heatmaps(summarize_gaps(g, min_per_group=1), kind="variance",
                                   metrics=["demographic_parity"])
    assert not any(t.get_text() == "filtered" for a in panels(fig5) for t in a.texts)
    fig6 = plot_condition_heatmaps(summarize_gaps(g, min_per_group=11), kind="mean",
                                   size=100)
    (ax,) = panels(fig6)
    rows = [t.get_text() for t in ax.get_yticklabels()]
    cells = [t for t in ax.texts if t.get_position()[1] == rows.index("nurse")]
    assert {t.get_text() for t in cells} == {"filtered"}  # GP, TPR and PP of nurse
    # female - male: a positive gap favours women, drawn blue; negative (men) red
    im = ax.images[0]
    assert im.get_cmap().name == "RdBu"
    red, blue = im.cmap(im.norm(-0.1)), im.cmap(im.norm(0.1))
    assert red[0] > red[2] and blue[2] > blue[0]
    assert fig6.axes[-1].get_ylabel() == "mean gap female - male\nred favours male, blue female"
    flipped = g.assign(group_a="male", group_b="female", gap=-g["gap"])
    fig = plot_condition_heatmaps(summarize_gaps(flipped), kind="mean")
    assert panels(fig)[0].images[0].get_cmap().name == "RdBu_r"  # male - female
    with pytest.raises(FairboundError, match="red: 'x' is neither group"):
        plot_condition_heatmaps(summarize_gaps(g), kind="mean", red="x")


def test_figure_2_f1_of_named_classes_top_to_bottom():
    from fairbound.viz.stability import plot_class_f1

    runs = pd.DataFrame({"condition": "o", "size": np.repeat([100, 400], 6),
                         "f1[surgeon]": np.linspace(0.2, 0.8, 12),
                         "f1[physician]": np.linspace(0.5, 0.9, 12)})
    fig = plot_class_f1(runs, classes=["surgeon", "physician"])
    assert [a.get_title() for a in fig.axes] == ["F1-score: surgeon", "F1-score: physician"]
    assert fig.axes[0].get_position().y0 > fig.axes[1].get_position().y0  # surgeon on top
    assert len(fig.axes[0].patches) == 2  # one box per size
    assert [t.get_text() for t in fig.axes[1].get_xticklabels()] == ["100", "400"]
    with pytest.raises(FairboundError, match="classes: no class 'nurse' in the runs"):
        plot_class_f1(runs, classes=["nurse"])


def test_figure_7_rows_of_each_class_by_group_as_bars(study):
    from fairbound.viz.stability import plot_class_counts

    counts = study.config.class_count_frame()
    assert set(counts.columns) == {"class", "group", "n"} and counts["n"].sum() == 600
    fig = plot_class_counts(counts)
    ax = fig.axes[0]
    assert len(ax.patches) == len(counts)  # one bar per class and group
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == sorted(counts["n"].astype(float))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == sorted(set(counts["group"]))
    with pytest.raises(FairboundError, match="counts: need the columns class, group and n"):
        plot_class_counts(counts.drop(columns="n"))


def test_report_names_metrics_in_full_and_cautions_few_runs(study, page):
    from fairbound.report.stability_report import FEW_RUNS, few_runs_caution

    html = page.read_text()
    text = " ".join(Page(html).text)
    assert "demographic_parity (GP)" in text and "predictive_parity (PP)" in text
    assert ">GP<" not in html and ">PP<" not in html and ">TPR<" not in html
    assert FEW_RUNS == 10
    caution = few_runs_caution(3)
    assert caution.startswith("Caution: only 3 runs per size (fewer than 10).")
    assert "25%" in caution and "50 per size" in caution
    assert caution in text
    # with 3 runs no finding is red ("bad"): a sign seen in 3 of 3 runs is provisional
    assert 'class="bad"' not in html
