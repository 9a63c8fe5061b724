"""The HTML report: contents, escaping, self-containment, errors (no browser needed)."""

from __future__ import annotations

import base64
import re
import warnings
from html.parser import HTMLParser

import pytest

from fairbound.errors import FairboundError
from fairbound.report import (
    comparison_sentence,
    render_audit_report,
    render_plan_report,
    write_audit_report,
)
from fairbound.report.audit_report import far_sentence

from .conftest import IMG_XSS, XSS


class Page(HTMLParser):
    """Collect tags, attributes and text of a page."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def all(self, tag):
        return [a for t, a in self.tags if t == tag]


@pytest.fixture(scope="module")
def two_audits_html(adult_audits):
    return render_audit_report(list(adult_audits), title="Adult rule: audit")


def test_report_is_self_contained(two_audits_html):
    page = Page(two_audits_html)
    assert page.all("script") == [] and page.all("link") == [] and page.all("iframe") == []
    for tag, attrs in page.tags:
        for name in ("src", "href", "action", "data", "poster"):
            v = attrs.get(name)
            if v is not None:
                assert v.startswith(("data:image/svg+xml;base64,", "#")), (tag, name, v[:60])
    csp = [a for a in page.all("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]
    assert "@import" not in two_audits_html and "url(" not in two_audits_html.split("<body")[0]
    assert "@media print" in two_audits_html


def test_report_has_what_was_audited(adult_audits, two_audits_html):
    text = " ".join(Page(two_audits_html).text)
    sex, race = adult_audits
    for fact in ("Data source", "Rows scanned", "Rows excluded", "Interval method",
                 "Confidence level", "Seed", "fairbound version", "Audit run at"):
        assert fact in text
    assert f"{sex.n_rows:,}" in text
    for g, n in race.groups:
        assert str(g) in text and f"{n:,}" in text
    assert f"{sex.method} ({sex.to_dict()['guarantee']})" in text
    assert "Does not guarantee." in text and "Guarantees." in text


def test_summary_sentences_match_the_core(adult_audits, two_audits_html):
    text = " ".join(" ".join(Page(two_audits_html).text).split())
    for res in adult_audits:
        d = res.to_dict()
        for c, cd in zip(res.comparisons, d["comparisons"], strict=True):
            # the report's sentence uses the audit's columns and favourable side
            mine = comparison_sentence(cd, result=d)
            if "not reachable with data like this" in mine:
                # out of reach: the report keeps the row to one compact line
                assert far_sentence(cd, result=d) in text
            else:
                assert mine in text
            assert comparison_sentence(cd, result=res) == mine  # live result: same words
            # without the audit, Comparison.summary() reads the same verdict with generic words
            bare = comparison_sentence(cd)
            assert bare == c.summary()
            assert bare.split(":")[0] == mine.split(":")[0]
            assert "about 0 more" not in mine


def test_every_comparison_is_in_the_table(adult_audits, two_audits_html):
    page = Page(two_audits_html)
    n_rows = two_audits_html.count("<tr><td data-label=") - sum(
        len(r.groups) for r in adult_audits)  # group tables
    rate_rows = sum(len({(c.rate, c.cls, g) for c in r.comparisons if c.a is not None
                         for g in (c.group_a, c.group_b)}) for r in adult_audits)
    assert n_rows == sum(len(r.comparisons) for r in adult_audits) + rate_rows
    imgs = page.all("img")
    assert len(imgs) == 3 * len(adult_audits)
    for img in imgs:
        svg = base64.b64decode(img["src"].split(",", 1)[1])
        assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg and len(svg) > 5000
        assert int(img["width"]) > 100 and int(img["height"]) > 100
        assert img["alt"]


def test_hostile_group_names_are_escaped(hostile_audit):
    html = render_audit_report(hostile_audit)
    assert XSS not in html and IMG_XSS not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    page = Page(html)
    assert page.all("script") == []
    assert [a for a in page.all("img") if not a["src"].startswith("data:image/svg+xml")] == []
    text = "".join(page.text)
    assert XSS in text and IMG_XSS in text  # shown literally, as text
    assert "-->\"'&amp;" in text


def test_no_figures_without_matplotlib(adult_audits, monkeypatch):
    import fairbound.report.audit_report as ar

    monkeypatch.setattr(ar, "have_matplotlib", lambda: False)
    html = render_audit_report(adult_audits[0])
    assert "<img" not in html
    assert 'pip install "fairbound[plot]"' in html.replace("&#34;", '"')
    assert html.count("<tr><td data-label=") > len(adult_audits[0].comparisons)


def test_write_audit_report_and_method(adult_audits, tmp_path):
    p = write_audit_report(list(adult_audits), tmp_path / "r.html", figures=False)
    assert p.read_text().startswith("<!DOCTYPE html>")
    q = adult_audits[0].report(tmp_path / "s.html", title="By sex")
    assert "<title>By sex</title>" in q.read_text()


def test_report_from_saved_json_equals_live(adult_audits, tmp_path):
    res = adult_audits[1]
    p = tmp_path / "race.json"
    res.to_json(p)

    def body(h):
        return re.sub(r"Generated [^.]+\.", "", h)

    assert body(render_audit_report(p, figures=False)) == body(
        render_audit_report(res, figures=False))


def test_not_estimable_and_small_groups_are_reported():
    import pandas as pd

    from fairbound import audit

    df = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 6, "y": [1, 1, 1, 0, 0, 0] + [0] * 6,
                       "p": [1, 0, 1, 0, 1, 0] * 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit(df, group="g", label="y", prediction="p", metrics="equal_opportunity")
    html = render_audit_report(res, figures=False)
    assert "Not estimable" in html and "not estimable" in html
    assert "has no rows in this metric" in html


def test_plan_report_numbers():
    from fairbound.planning import plan_bbu

    html = render_plan_report(plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5))
    assert "n = 11,903 annotated examples" in html
    assert "<img" in html
    h2 = render_plan_report(plan_bbu(n=3160, confidence_level=0.95), figures=False)
    assert "smallest claimable bias is 0.0975" in h2
    h3 = render_plan_report(plan_bbu(n=3160, bias=0.0975, gamma=0.5), figures=False)
    assert "the Bernstein bound gives 0.9503 confidence" in h3
    h4 = render_plan_report(plan_bbu(bias=0.05, confidence_level=0.95, corrected=True),
                            figures=False)
    assert "n = 11,952 annotated examples" in h4 and "(corrected)" in h4


@pytest.mark.parametrize("bad, match", [
    (None, "results: got None"),
    ([], "results: the list is empty"),
    (3, "results must be an AuditResult or a list of them; got int"),
    ([{"schema": "nope"}], "expected schema 'fairbound.audit/1'; got 'nope'"),
])
def test_render_errors(bad, match):
    with pytest.raises(FairboundError, match=match):
        render_audit_report(bad)


def test_title_and_path_errors(adult_audits, tmp_path):
    with pytest.raises(FairboundError, match="title must be a non-empty string; got ''"):
        render_audit_report(adult_audits[0], title="")
    with pytest.raises(FairboundError, match=r"path: '.*r\.pdf' should end in \.html or \.htm"):
        write_audit_report(adult_audits[0], tmp_path / "r.pdf")
    with pytest.raises(FairboundError, match="is a folder"):
        write_audit_report(adult_audits[0], tmp_path)
    with pytest.raises(FairboundError, match="plan must be a BBUPlan"):
        render_plan_report({"n": 3})


def test_hostile_column_names_are_escaped(adult_rule):
    from fairbound import audit

    df = adult_rule.rename(columns={"sex": "<b>sex</b>", "income": "y&<i>"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit(df, group="<b>sex</b>", label="y&<i>", prediction="prediction",
                    metrics="equal_opportunity")
    html = render_audit_report(res, figures=False)
    assert "<b>sex</b>" not in html and "<i>" not in html
    assert "Audit by &lt;b&gt;sex&lt;/b&gt;" in html
    assert "label: y&amp;&lt;i&gt;" in html


def test_saved_json_missing_fields_is_a_one_line_error(adult_audits, tmp_path):
    import json

    d = adult_audits[0].to_dict()
    del d["groups"]
    p = tmp_path / "old.json"
    p.write_text(json.dumps(d))
    with pytest.raises(FairboundError, match=r"^data: \$ misses the required key 'groups'$"):
        render_audit_report(p)
    d = adult_audits[0].to_dict()
    d["added_in_a_later_version"] = 1  # accepted when rendering, rejected by strict checks
    assert "<html" in render_audit_report(d, figures=False)


def test_sentence_when_the_planned_n_is_already_reached(adult_audits):
    c = next(c for c in adult_audits[0].to_dict()["comparisons"] if c["component"] != "max")
    c = dict(c, verdict="not enough evidence", rate_gap_low=-0.01, rate_gap_high=0.02,
             required_n=c["n_a"] + c["n_b"] - 5)
    s = comparison_sentence(c)
    assert "about 0 more" not in s
    # never a number below what is already there (an old file may hold one)
    assert f"{c['required_n']:,}" not in s and "edge of what these data can resolve" in s
    c["required_n"] = c["n_a"] + c["n_b"] + 1000
    assert "about 1,000 more annotated examples" in comparison_sentence(c)


def test_written_report_is_readable_by_others(adult_audits, tmp_path):
    import os
    import stat

    p = write_audit_report(adult_audits[0], tmp_path / "r.html", figures=False)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask
