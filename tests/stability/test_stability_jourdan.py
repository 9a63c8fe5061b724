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
        assert np.ma.is_masked(arr[0, 0]) or not np.isfinite(arr[0, 0])  # size 100
        assert np.isfinite(arr[0, 1])  # size 400 is kept
        texts = [(t.get_position(), t.get_text()) for t in ax.texts]
        assert ((0, 0), "filtered") in texts
        assert all(txt == "filtered" for pos, txt in texts if pos == (0, 0))
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
    assert len(alts) == 5
    text = " ".join(p.text)
    assert "Filtered cells" in text and "filtered: fewer than 11 " in text
    assert "Filter (Jourdan et al. 2023)" in text
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
        assert len(imgs) == 5
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
                 "--formats", "none", "--html", str(tmp_path / "r.html")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert "### Filtered cells (fewer than 11 rows of a group in some run)" in md
    assert (tmp_path / "r" / "filtered.csv").exists()
    assert "filtered: fewer than 11" in (tmp_path / "r.html").read_text()
    assert main(["stability", "report", str(store), "--out", str(tmp_path / "r"),
                 "--formats", "none", "--min-per-gender", "-1"]) == 2
    assert "min_per_group must be a non-negative integer" in capsys.readouterr().err
