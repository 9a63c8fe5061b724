"""Shared report pieces: the one rule for "n needed" sentences, figures for phones."""

from __future__ import annotations

import base64
import math
import re

import pytest

from fairbound.report._common import (
    MORE_DATA_FACTOR,
    NARROW_INCHES,
    UNREACHABLE_FACTOR,
    figure_img,
    need_phrase,
    unreachable,
)


def test_need_phrase_draws_the_line_at_100_times_the_rows():
    said = "about 10 more would settle it"
    assert need_phrase(100 * 500, 500, said) == said          # exactly 100x: still asked
    far = need_phrase(100 * 500 + 1, 500, said, smallest_gap=0.08123)
    assert far.startswith("not reachable with data like this")
    assert "over 100 times the 500 annotated examples compared" in far
    assert far.endswith("10 times as many (5,000) could show a gap of 0.081 or more")
    assert need_phrase(math.inf, 500, said) == said            # a zero gap says so elsewhere
    assert need_phrase(math.nan, 500, said) == said
    assert need_phrase(10**9, 0, said) == said                 # nothing compared: no ratio
    assert "could show" not in need_phrase(10**9, 500, said)   # no gap known: none invented
    assert need_phrase(10**9, 20, said, noun="gold labels",
                       shown="an impact ratio below 0.7").endswith(
        "the 20 gold labels compared); 10 times as many (200) could show an impact ratio "
        "below 0.7")
    assert (UNREACHABLE_FACTOR, MORE_DATA_FACTOR) == (100, 10)
    assert unreachable(50_001, 500) and not unreachable(50_000, 500)


def test_ppi_sentence_follows_the_same_rule():
    from fairbound.report.ppi_report import ppi_sentence

    c = {"metric": "equal_opportunity", "rate": "TPR", "group_a": "a", "group_b": "b",
         "rate_a": 0.8, "rate_b": 0.79, "gap": 0.01, "low": -0.1, "high": 0.12,
         "labeled_low": -0.2, "labeled_high": 0.22, "verdict": "not enough evidence",
         "interval_level": 0.95, "method": "ppi++", "labeled_a": 60, "labeled_b": 40,
         "note": ""}
    near = ppi_sentence({**c, "gold_labels_needed": 9_000})
    assert "about 9,000 gold labels in all would settle it" in near
    far = ppi_sentence({**c, "gold_labels_needed": 250_000})
    assert "250,000" not in far and "not reachable with data like this" in far
    # the half-width 0.11 shrinks as 1/sqrt(n): 0.11 / sqrt(10) at ten times the labels
    assert f"10 times as many (1,000) could show a gap of {0.11 / math.sqrt(10):.3f}" in far


def test_impact_ratio_sentence_follows_the_same_rule():
    from fairbound.report.ll144 import ratio_sentence

    cat = {"category": "race", "rate_name": "selection rate", "versus": "highest",
           "highest": "x", "threshold": 0.8, "confidence_level": 0.95,
           "error_control": "family"}
    r = {"group": "y", "versus": "x", "rate": 0.39, "rate_versus": 0.4, "ratio": 0.975,
         "low": 0.7, "high": 1.0, "verdict": "not enough evidence", "n": 40, "n_versus": 50}
    assert "About 1,200 applicants" in ratio_sentence(cat, {**r, "required_n": 1_200})
    far = ratio_sentence(cat, {**r, "required_n": 2_000_000})
    assert "2,000,000" not in far and "Not reachable with data like this" in far
    assert re.search(r"10 times as many \(900\) could show an impact ratio below 0\.\d{3} "
                     r"or above 0\.\d{3} against 0\.8\.$", far)


def _fig(width: float):
    import matplotlib.figure

    fig = matplotlib.figure.Figure(figsize=(width, 2.5))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    ax.set_yticks([0, 1], ["Amer-Indian-Eskimo vs White  (TPR)", "Black vs White  (FPR)"],
                  fontsize=7.5)
    ax.set_xlabel("gap", fontsize=8.5)
    fig.tight_layout()
    return fig


def test_wide_figures_are_drawn_again_for_phones():
    pytest.importorskip("matplotlib")
    html = str(figure_img(_fig(7.5), "a forest plot"))
    assert html.startswith("<picture><source media=\"(max-width: 40rem)\"")
    assert html.count("data:image/svg+xml;base64,") == 2
    assert 'alt="a forest plot"' in html and html.count('data-min-font-pt="7.5"') == 2
    small, wide = re.findall(r'(?:srcset|src)="data:image/svg\+xml;base64,([^"]+)"', html)
    widths = [float(re.search(rb'<svg[^>]* width="([\d.]+)pt"', base64.b64decode(s))[1])
              for s in (small, wide)]
    # SVG widths in points (72 an inch): the phone drawing is about NARROW_INCHES wide
    assert widths[0] <= NARROW_INCHES * 72 * 1.15 < widths[1]
    # a figure that is narrow already is drawn once
    one = str(figure_img(_fig(4.0), "small"))
    assert one.startswith("<img") and one.count("data:image/svg+xml") == 1
    assert 'data-min-font-pt="7.5"' in one
