"""The proxy-group audit's page: what it says for each mode, and saved JSON gives the same."""

from __future__ import annotations

import pytest

from fairbound.audits.proxies.audit import proxy_audit
from fairbound.audits.proxies.simulate import simulate_proxy_data
from fairbound.report.proxies_report import proxy_sentence, render_proxy_report

pytest.importorskip("matplotlib")


def _res(annotated):
    df = simulate_proxy_data(3000, annotated=annotated, gap=0.1, cells=30, seed=2)
    if not annotated:
        df = df.drop(columns=["group"])
    return proxy_audit(df, group_probabilities={"a": "p_a", "b": "p_b"}, label="y",
                       prediction="pred", group="group" if annotated else None,
                       cell=None if annotated else "cell", metrics="equal_opportunity")


def test_page_of_each_mode_and_from_saved_json(tmp_path):
    ppi, bounds = _res(400), _res(0)
    page = render_proxy_report(ppi, figures=False)
    assert "annotated rows only" in page and "probability-weighted (biased)" in page
    assert "never for decisions about individuals" in page
    bpage = render_proxy_report(bounds, figures=False)
    assert "identified set" in bpage and "not identified from these proxies" in bpage
    path = tmp_path / "b.json"
    bounds.to_json(path)
    assert render_proxy_report(str(path), figures=False).count("identified set") == \
        bpage.count("identified set")


def test_sentences_name_the_interval_of_each_mode():
    c = _res(400).comparisons[0].to_dict()
    s = proxy_sentence(c, mode="ppi")
    assert s.startswith("TPR of a minus b: ") and "annotated rows alone" in s
