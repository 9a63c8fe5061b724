"""Markdown export for model cards."""

from __future__ import annotations

import pytest

from fairbound.errors import FairboundError
from fairbound.report import to_markdown, write_markdown
from fairbound.report._common import fmt_level
from fairbound.report.markdown import md_escape

from .conftest import XSS


def test_table_has_every_comparison(adult_audits):
    res = adult_audits[1]
    md = to_markdown(res)
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and "---" not in ln]
    assert len(rows) == len(res.comparisons) + 1  # + header
    assert md.startswith("## Fairness audit by race")
    findings = [ln for ln in md.splitlines() if ln.startswith("- ") and "**" not in ln]
    assert len(findings) == len(res.comparisons)
    for r in rows[1:]:
        assert r.count(" | ") == 12  # 13 cells (with the interval's level)


def test_numbers_match_the_result(adult_audits):
    res = adult_audits[0]
    md = to_markdown(res)
    c = next(c for c in res.comparisons if c.metric == "equal_opportunity")
    g, lo, hi = c.rate_gap
    assert f"| {g:+.3f} | [{lo:+.3f}, {hi:+.3f}] | {fmt_level(c.interval_level)} |" in md
    assert f"{c.a.n:,}" in md


def test_hostile_names_stay_text(hostile_audit):
    md = to_markdown(hostile_audit)
    assert XSS not in md and "<img" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md
    # a '|' in a group name must not add table cells
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and "---" not in ln]
    for r in rows:
        assert r.replace("\\|", "").count(" | ") == 12


def test_escape_rules():
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("*x* [l](u) `c`") == "\\*x\\* \\[l\\](u) \\`c\\`"
    assert md_escape("demographic_parity") == "demographic_parity"
    assert md_escape("_x_") == "\\_x\\_"
    assert md_escape("two\nlines") == "two lines"


def test_write_and_errors(adult_audits, tmp_path):
    p = write_markdown(list(adult_audits), tmp_path / "card.md")
    text = p.read_text()
    assert text.count("## Fairness audit by") == 2
    with pytest.raises(FairboundError, match=r"should end in \.md or \.markdown"):
        write_markdown(adult_audits[0], tmp_path / "card.txt")
    with pytest.raises(FairboundError, match="max_rows must be a non-negative integer; got -1"):
        to_markdown(adult_audits[0], max_rows=-1)
    assert "more rows in the JSON export" in to_markdown(adult_audits[1], max_rows=3)
