"""The one contract every audit result and comparison row follows (as tests/metrics/test_common).

Each result type is registered once, with a factory that builds a small seeded instance
through the public function; every entry runs through the same tests.  See
:mod:`fairbound.audits.contract` for the contract.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.errors import FairboundError
from fairbound.stats.base import ConfidenceInterval
from tests.conftest import make_predictions

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

#: The ``kind`` of each result's JSON (:data:`fairbound.audits.contract.KINDS`).
KINDS = ("gaps", "disagreement", "ppi", "scores", "impact_ratios", "ll144", "proxies",
         "discover")
#: What every comparison row has (:data:`fairbound.audits.contract.ROW_FIELDS`).
ROW_FIELDS = ("group_a", "group_b", "estimate", "low", "high", "interval_level", "verdict",
              "note")


# ----------------------------------------------------------------------------- factories
def _gaps():
    df = make_predictions(3000, tpr={"a": 0.9, "b": 0.7, "c": 0.8},
                          fpr={"a": 0.1, "b": 0.3, "c": 0.2}, seed=3)
    return fairbound.audit(df, group="g", label="y", prediction="p",
                           metrics=["demographic_parity", "equal_opportunity"])


def _disagreement():
    from fairbound.audits.disagreement.audit import disagreement_audit

    rng = np.random.default_rng(1)
    n = 600
    g = rng.choice(["a", "b"], n)
    yes = rng.binomial(3, np.where(g == "a", 0.6, 0.9))
    return disagreement_audit(pd.DataFrame({"g": g, "yes": yes, "no": 3 - yes}), group="g",
                              votes=["yes", "no"])


def _ppi():
    from fairbound.audits.ppi.audit import ppi_audit

    rng = np.random.default_rng(0)
    n = 4000
    g = np.where(rng.random(n) < 0.5, "a", "b")
    y = (rng.random(n) < np.where(g == "a", 0.4, 0.3)).astype(float)
    proxy = np.where(rng.random(n) < 0.9, y, 1 - y)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    gold = np.where(rng.random(n) < 0.25, y, np.nan)
    df = pd.DataFrame({"g": g, "gold": gold, "judge": proxy, "pred": pred})
    return ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                     metrics=["demographic_parity", "equal_opportunity", "accuracy_parity"])


def _scores():
    from fairbound.audits.scores.audit import score_audit

    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b"], 2000)
    y = rng.random(2000) < 0.4
    s = np.round(rng.normal(size=2000) + np.where(g == "a", 1.5, 0.3) * y, 1)
    return score_audit(pd.DataFrame({"g": g, "y": y.astype(int), "s": s}), group="g",
                       label="y", score="s")


def _hiring():
    rng = np.random.default_rng(2)
    n = 1500
    sex = rng.choice(["f", "m"], n)
    race = rng.choice(["x", "y", "z"], n)
    hired = (rng.random(n) < np.where(sex == "f", 0.3, 0.45)).astype(int)
    return pd.DataFrame({"sex": sex, "race": race, "hired": hired})


def _impact_ratios():
    from fairbound.audits.ratios.audit import impact_ratios

    return impact_ratios(_hiring(), group="race", prediction="hired")


def _ll144():
    from fairbound.audits.ratios.audit import ll144_audit

    return ll144_audit(_hiring(), group=["sex", "race"], prediction="hired")


def _proxies(annotated=600):
    from fairbound.audits.proxies.audit import proxy_audit
    from fairbound.audits.proxies.simulate import simulate_proxy_data

    df = simulate_proxy_data(6000, annotated=annotated, gap=0.1, cells=40, seed=4)
    if not annotated:
        df = df.drop(columns=["group"])
    return proxy_audit(df, group_probabilities={"a": "p_a", "b": "p_b"}, label="y",
                       prediction="pred", group="group" if annotated else None,
                       cell=None if annotated else "cell",
                       metrics=["demographic_parity", "equal_opportunity"])


def _discover():
    rng = np.random.default_rng(4)
    n = 3000
    df = pd.DataFrame({"sex": rng.choice(["f", "m"], n), "region": rng.choice(list("nsew"), n),
                       "y": rng.integers(0, 2, n)})
    harmed = (df.sex == "f") & (df.region == "s")
    df["p"] = np.where(rng.random(n) < np.where(harmed, 0.35, 0.1), 1 - df.y, df.y)
    return fairbound.discover(df, ["sex", "region"], label="y", prediction="p")


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str
    factory: Any


#: Every result type, once.
RESULTS = [
    Entry("AuditResult", "gaps", _gaps),
    Entry("AuditResult (disagreement)", "disagreement", _disagreement),
    Entry("PPIAuditResult", "ppi", _ppi),
    Entry("ScoreAuditResult", "scores", _scores),
    Entry("ImpactRatioResult", "impact_ratios", _impact_ratios),
    Entry("LL144Audit", "ll144", _ll144),
    Entry("DiscoverResult", "discover", _discover),
    Entry("ProxyAuditResult", "proxies", _proxies),
    Entry("ProxyAuditResult (bounds)", "proxies", lambda: _proxies(0)),
]
IDS = [e.name for e in RESULTS]
_BUILT: dict[str, Any] = {}


@pytest.fixture(params=RESULTS, ids=IDS)
def entry(request):
    e = request.param
    if e.name not in _BUILT:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # small-group and sampling warnings
            _BUILT[e.name] = e.factory()
    return e, _BUILT[e.name]


def _rows(res) -> tuple:
    return tuple(res.comparisons)


def _same(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# ----------------------------------------------------------------------------- rows
def test_registry_covers_every_kind():
    from fairbound.audits.contract import KINDS as kinds
    from fairbound.audits.contract import ROW_FIELDS as fields

    assert {e.kind for e in RESULTS} == set(KINDS) == set(kinds)
    assert fields == ROW_FIELDS


def test_rows_have_the_contract_attributes(entry):
    _, res = entry
    rows = _rows(res)
    assert rows
    for r in rows:
        for name in ROW_FIELDS:
            assert hasattr(r, name), f"{type(r).__name__} lacks {name}"
        assert isinstance(r.verdict, str)
        assert 0.0 < float(r.interval_level) < 1.0


def test_row_confidence_interval_unpacks(entry):
    _, res = entry
    for r in _rows(res):
        ci = r.confidence_interval()
        assert isinstance(ci, ConfidenceInterval)
        lo, hi = ci
        assert _same([lo, hi], [r.low, r.high])


def test_row_confidence_interval_at_a_level_recomputes_or_says_why(entry):
    _, res = entry
    for r in _rows(res):
        try:
            lo, hi = r.confidence_interval(0.9)
        except FairboundError as exc:
            assert "\n" not in str(exc) and "recompute" in str(exc)
            continue
        if r.verdict != "not estimable" and math.isfinite(lo) and math.isfinite(hi):
            assert hi - lo > 0


# ----------------------------------------------------------------------------- results
def test_result_confidence_interval_is_arrays_matching_the_rows(entry):
    _, res = entry
    ci = res.confidence_interval()
    assert isinstance(ci, ConfidenceInterval)
    lo, hi = ci
    assert isinstance(lo, np.ndarray) and isinstance(hi, np.ndarray)
    rows = _rows(res)
    assert _same(lo, [r.low for r in rows]) and _same(hi, [r.high for r in rows])


def test_to_json_carries_kind_and_schema(entry):
    e, res = entry
    d = json.loads(res.to_json())
    assert d["kind"] == e.kind
    assert isinstance(d["schema"], str) and d["schema"].startswith("fairbound.")
    assert d["schema"].rsplit("/", 1)[-1].isdigit()


def test_to_json_writes_the_file_and_indents(entry, tmp_path):
    _, res = entry
    text = res.to_json(tmp_path / "r.json", indent=2)
    assert (tmp_path / "r.json").read_text(encoding="utf-8").strip() == text.strip()
    assert json.loads(res.to_json(indent=None)) == json.loads(text)


def test_to_dict_round_trips_through_json(entry):
    _, res = entry
    d = res.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d


def test_select_filters(entry):
    _, res = entry
    rows = _rows(res)
    for v in {r.verdict for r in rows}:
        picked = res.select(verdict=v)
        assert picked and all(r.verdict == v for r in picked)
        assert len(picked) == sum(1 for r in rows if r.verdict == v)
    assert len(res.select()) == len(rows)


def test_to_frame_has_one_row_per_comparison(entry):
    _, res = entry
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == len(_rows(res))


def test_summary_is_text(entry):
    _, res = entry
    s = res.summary()
    assert s and all(isinstance(x, str) and x for x in s)


def _no_scan(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("recompute read the data again")

    import importlib

    for module, name in (("fairbound.engines", "aggregate"),
                         ("fairbound.audits.gaps.build", "aggregate"),
                         ("fairbound.audits.ratios.audit", "aggregate"),
                         ("fairbound.engines.ppi", "ppi_counts"),
                         ("fairbound.engines.scores", "score_histograms"),
                         ("fairbound.engines.discover", "count_slices"),
                         ("fairbound.engines.proxies", "proxy_statistics")):
        monkeypatch.setattr(importlib.import_module(module), name, boom)


def test_recompute_narrows_without_reading_data(entry, monkeypatch):
    _, res = entry
    _no_scan(monkeypatch)
    again = res.recompute()
    assert type(again) is type(res)
    assert _same(again.confidence_interval().low, res.confidence_interval().low)
    narrower = res.recompute(confidence_level=0.9)
    assert type(narrower) is type(res)
    (lo, hi), (lo9, hi9) = res.confidence_interval(), narrower.confidence_interval()
    ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(lo9) & np.isfinite(hi9)
    assert ok.any()
    assert np.all((hi9 - lo9)[ok] <= (hi - lo)[ok] + 1e-12)
    assert np.any((hi9 - lo9)[ok] < (hi - lo)[ok] - 1e-9)
    assert _same(res.confidence_interval(0.9).low, lo9)


def test_report_writes_a_page(entry, tmp_path):
    _, res = entry
    out = res.report(tmp_path / "r.html")
    assert (tmp_path / "r.html").is_file()
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and out is not None


def test_plot_returns_a_figure(entry):
    from matplotlib.figure import Figure

    _, res = entry
    fig = res.plot()
    assert isinstance(fig, Figure)
    import matplotlib.pyplot as plt

    plt.close(fig)


# ----------------------------------------------------------------------------- saved JSON
def _reader(kind):
    """The report writer that reads a saved JSON file of this kind."""
    if kind in ("gaps", "disagreement"):
        from fairbound.report import write_audit_report

        return lambda p, o: write_audit_report([p], o)
    if kind == "ppi":
        from fairbound.report.ppi_report import write_ppi_report

        return write_ppi_report
    if kind == "proxies":
        from fairbound.report.proxies_report import write_proxy_report

        return write_proxy_report
    if kind == "discover":
        from fairbound.audits.discover.report import write_discover_report

        return write_discover_report
    if kind == "scores":
        from fairbound.report.score_report import write_score_report

        return write_score_report
    from fairbound.report.ll144 import write_ll144_report

    return write_ll144_report


@pytest.mark.parametrize("with_kind", [True, False], ids=["with-kind", "without-kind"])
def test_reports_read_saved_json_with_and_without_kind(entry, tmp_path, with_kind):
    e, res = entry
    d = json.loads(res.to_json())
    if not with_kind:
        d.pop("kind")
        for c in d.get("categories", []):
            c.pop("kind", None)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    _reader(e.kind)(path, tmp_path / "r.html")
    assert (tmp_path / "r.html").is_file()


def test_audit_json_validates_against_the_schema_with_and_without_kind():
    from fairbound.report import validate_audit_json

    d = json.loads(_gaps().to_json())
    validate_audit_json(d)
    d.pop("kind")
    validate_audit_json(d)


# ----------------------------------------------------------------------------- deprecations
def test_score_row_interval_read_as_a_tuple_warns():
    res = _BUILT.get("ScoreAuditResult") or _scores()
    c = res.comparisons[0]
    with pytest.warns(DeprecationWarning, match=r"confidence_interval\(\)"):
        lo, hi = c.confidence_interval
    assert (lo, hi) == (c.low, c.high)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(c.confidence_interval()) == (c.low, c.high)


def test_score_result_interval_at_a_level_still_answers_as_a_result():
    res = _BUILT.get("ScoreAuditResult") or _scores()
    ci = res.confidence_interval(confidence_level=0.9)
    lo, hi = ci
    assert _same(lo, res.recompute(confidence_level=0.9).confidence_interval().low)
    with pytest.warns(DeprecationWarning, match=r"recompute\(confidence_level"):
        assert ci.confidence_level == 0.9
