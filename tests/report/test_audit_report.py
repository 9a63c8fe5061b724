"""The audit page answers first: counts that agree, and no impossible sample sizes."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import pytest

from fairbound.report import comparison_sentence, render_audit_report
from fairbound.report._common import UNREACHABLE_FACTOR
from fairbound.report.audit_report import (
    detectable_gap,
    error_control_sentence,
    far_sentence,
    need_cell,
)
from fairbound.report.audit_report import tested_rows as rows_tested


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)


def _text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return " ".join(" ".join(p.parts).split())


@pytest.fixture(scope="module")
def race(adult_audits):
    return adult_audits[1]


@pytest.fixture(scope="module")
def pages(adult_audits):
    return [render_audit_report(r, figures=False) for r in adult_audits]


def test_counts_say_what_they_count_and_agree(adult_audits, pages):
    # issue 27: the badge said "7 comparisons" and the error control "6" (race: 28 vs 24)
    for res, html in zip(adult_audits, pages, strict=True):
        d = res.to_dict()
        text = _text(html)
        tested = len(rows_tested(d))
        summaries = sum(c["component"] == "max" for c in d["comparisons"])
        assert tested == d["n_tests"] and summaries > 0
        assert f"{tested} comparisons tested:" in text
        assert f"over {tested} comparisons" in error_control_sentence(d)
        assert error_control_sentence(d) in text
        assert (f"plus {summaries} max |gap| summary row{'s' if summaries > 1 else ''} "
                "(equalized_odds), not a separate test") in text
        # the badges add up to the comparisons tested
        counts = html[html.index('<p class="counts">'):]
        counts = counts[:counts.index("</p>")]
        badges = [int(n) for n in re.findall(r'class="badge \w+">(\d+) ', counts)]
        assert sum(badges) == tested
        # and every row of the table is one of them or a summary row
        assert html.count('<td data-label="metric">') == tested + summaries
    assert [len(rows_tested(r.to_dict())) for r in adult_audits] == [6, 24]


def test_error_control_names_the_summary_rows():
    rows = [{"component": "tpr", "verdict": "A disadvantaged", "interval_level": 0.99},
            {"component": "fpr", "verdict": "not enough evidence", "interval_level": 0.99},
            {"component": "max", "verdict": "unequal", "interval_level": 0.99}]
    d = {"error_control": "family", "n_tests": 2, "confidence_level": 0.98,
         "comparisons": rows}
    s = error_control_sentence(d)
    assert "over 2 comparisons" in s
    assert "The 1 summary row giving the largest absolute gap" in s and "is not counted" in s
    d["comparisons"] = rows[:2]
    assert "summary row" not in error_control_sentence(d)


def _far(race):
    d = race.to_dict()
    return [c for c in d["comparisons"] if c["component"] != "max"
            and c["verdict"] == "not enough evidence"
            and c["required_n"] > UNREACHABLE_FACTOR * (c["n_a"] + c["n_b"])], d


def test_impossible_sample_sizes_are_not_asked_for(race, pages):
    far, d = _far(race)
    assert len(far) >= 2  # equal opportunity and equalized odds[tpr], Amer-Indian-Eskimo
    text = _text(pages[1])
    summary = race.summary()  # what the console prints
    for c in far:
        rows = c["n_a"] + c["n_b"]
        s = comparison_sentence(c, result=d)
        assert "not reachable with data like this" in s
        assert "more annotated examples" not in s
        assert f"{math.ceil(c['required_n'] - rows):,}" not in s
        g = detectable_gap(c)
        assert 0 < g < 1 and f"could show a gap of {g:.3f} or more" in s
        assert f"10 times as many ({10 * rows:,})" in s
        assert s in summary
        assert far_sentence(c, result=d) in text  # one compact line in the page
        assert need_cell(c) == "not reachable"
    assert not re.search(r"\d{1,3},\d{3},\d{3} more annotated", text)  # no millions asked
    assert pages[1].count('<ul class="findings compact">') >= 1
    # reachable ones still say how many more examples would settle them
    near = [c for c in d["comparisons"] if c["verdict"] == "not enough evidence"
            and c["component"] != "max" and c not in far]
    assert near and all("more annotated examples would be needed" in
                        comparison_sentence(c, result=d) for c in near)


def test_smallest_gap_is_where_ten_times_the_rows_would_settle_it(race):
    from fairbound.stats import get_method
    from fairbound.stats.base import GroupStats

    far, _ = _far(race)
    for c in far:
        g, rows = detectable_gap(c), c["n_a"] + c["n_b"]
        sign = 1 if c["rate_gap"] >= 0 else -1
        ra, rb = c["rate_b"] + sign * g, c["rate_b"]
        a = GroupStats(n=c["n_a"], total=c["n_a"] * ra, total_sq=c["n_a"] * ra, binary=True)
        b = GroupStats(n=c["n_b"], total=c["n_b"] * rb, total_sq=c["n_b"] * rb, binary=True)
        need = get_method(c["method"]).required_n(a, b, c["interval_level"])
        # the planner that gave "n needed" plans 10x the rows at that gap
        assert need == pytest.approx(10 * rows, rel=1e-3)
        assert g > abs(c["rate_gap"])  # a gap the data now cannot show


def test_smallest_gap_uses_the_power_planner_without_a_planner():
    from fairbound.planning.power import minimum_detectable_gap

    c = {"component": "tpr", "method": "newcombe", "n_a": 40, "n_b": 400, "rate_a": 0.52,
         "rate_b": 0.5, "rate_gap": 0.02, "interval_level": 0.95}
    want = minimum_detectable_gap("newcombe", n_total=4400, power=0.5, rate_b=0.5,
                                  share=40 / 440, confidence_level=0.95).gap
    assert detectable_gap(c) == pytest.approx(want)
    # at the minimum detectable gap with 50% power, the interval's half-width is the gap:
    # with 400 and 4,000 rows at rates near 0.5, 1.96 * sqrt(0.25 (1/400 + 1/4000)) = 0.0514
    assert want == pytest.approx(0.0514, rel=0.05)
    assert math.isnan(detectable_gap({**c, "component": "cost"}))
    assert math.isnan(detectable_gap({**c, "n_a": 0}))


@pytest.mark.parametrize("method, says_gamma", [("auto", False), ("newcombe", False),
                                                ("hoeffding", True), ("bbu-corrected", True)])
def test_methods_box_names_gamma_only_for_methods_that_assume_it(method, says_gamma):
    """Issue 27 item 9: the exact interval's box lists no Bernstein / gamma assumption."""
    import numpy as np
    import pandas as pd

    import fairbound

    rng = np.random.default_rng(0)
    n = 600
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                       "p": rng.integers(0, 2, n)})
    res = fairbound.audit(df, group="g", label="y", prediction="p", method=method,
                          metrics="demographic_parity")
    text = _text(render_audit_report([res], figures=False))
    assert ("at least gamma" in text) == says_gamma
