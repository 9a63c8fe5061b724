"""Score audits (fairbound.score_audit, ``fairbound scores``): AUC, calibration, sweeps."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits.scores.audit import (
    METRICS,
    ScoreAuditResult,
    score_audit,
    score_audit_histograms,
)
from fairbound.audits.verdicts import GAP_VERDICTS
from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.stats.scores import ScoreHistogram

REPO = Path(__file__).resolve().parents[3]
COMPAS = REPO.parent / "shared" / "data" / "compas" / "compas-scores-two-years.csv"


@pytest.fixture(scope="module")
def compas() -> Path:
    if not COMPAS.is_file():
        pytest.skip("../shared/data/compas/compas-scores-two-years.csv is not present")
    return COMPAS


@pytest.fixture(scope="module")
def compas_result(compas) -> ScoreAuditResult:
    with pytest.warns(fairbound.SmallGroupWarning, match="Native American"):
        return score_audit(str(compas), group="race", label="two_year_recid",
                           score="decile_score")


def planted(n: int = 3000, seed: int = 0, probabilities: bool = False) -> pd.DataFrame:
    """Group a's scores separate the classes well, group b's poorly (an AUC gap)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b"], dtype=object), n)
    y = (rng.random(n) < 0.4).astype(int)
    s = rng.normal(size=n) + np.where(g == "a", 1.5, 0.4) * y
    if probabilities:
        s = 1 / (1 + np.exp(-s))
    return pd.DataFrame({"g": g, "y": y, "s": np.round(s, 2)})


def null_data(seed: int, n: int = 2000) -> pd.DataFrame:
    """Five groups, calibrated probability scores from one distribution (no gap anywhere)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(list("abcde"), dtype=object), n)
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(int)
    return pd.DataFrame({"g": g, "y": y, "s": s})


# ----------------------------------------------------------------------------- COMPAS


def test_compas_auc_per_race_equals_sklearn(compas, compas_result):
    metrics = pytest.importorskip("sklearn.metrics")
    raw = pd.read_csv(compas, usecols=["race", "two_year_recid", "decile_score"])
    assert compas_result.exact
    assert [g.group for g in compas_result.groups] == sorted(raw["race"].unique())
    for g in compas_result.groups:
        rows = raw[raw["race"] == g.group]
        want = metrics.roc_auc_score(rows["two_year_recid"], rows["decile_score"])
        assert g.auc.estimate == pytest.approx(want, abs=1e-12)
        assert (g.n, g.positives) == (len(rows), int(rows["two_year_recid"].sum()))
        assert not g.approximate and g.error_bound == 0.0
        assert g.auc.low <= g.auc.estimate <= g.auc.high
    # the pairwise AUC gaps are differences of these
    c = compas_result.select(metric="auc")[0]
    a, b = compas_result.group(c.group_a), compas_result.group(c.group_b)
    assert c.estimate == pytest.approx(a.auc.estimate - b.auc.estimate, abs=1e-15)


def test_compas_calibration_is_skipped_with_a_note(compas_result):
    r = compas_result
    assert r.calibration is False
    assert "not probabilities in [0, 1]" in r.calibration_note
    assert "[1, 10]" in r.calibration_note
    assert all(g.calibration is None and g.reliability is None for g in r.groups)
    assert not r.select(metric="calibration_in_the_large")
    d = r.to_dict()
    assert d["calibration_note"] == r.calibration_note
    assert all(g["calibration_in_the_large"] is None for g in d["groups"])  # never 0


def test_compas_family_and_sweeps(compas_result):
    r = compas_result
    pairs = 15  # 6 races, pairwise
    assert len(r.comparisons) == pairs * 4  # auc + three sweeps each
    assert r.n_tests == 60
    level = 1 - 0.05 / 60
    assert all(c.interval_level == pytest.approx(level) for c in r.comparisons)
    sw = r.select(metric="selection_rate_sweep")[0].sweep
    assert sw.thresholds.tolist() == list(range(1, 11))
    assert sw.guarantee == "finite-sample"
    # African-American vs Caucasian: the selection rate differs at some thresholds
    row = next(c for c in r.select(metric="selection_rate_sweep")
               if (c.group_a, c.group_b) == ("African-American", "Caucasian"))
    assert row.verdict == "unequal" and row.low > 0
    assert "established" in row.note


# ----------------------------------------------------------------------------- verdicts


def test_planted_auc_gap_gets_a_verdict():
    r = score_audit(planted(), group="g", label="y", score="s")
    c = r.select(metric="auc")[0]
    assert (c.group_a, c.group_b) == ("a", "b")
    assert c.low > 0 and c.verdict == "B disadvantaged"
    assert c in r.biased and c.verdict in GAP_VERDICTS
    # the same pair with a as the reference: a is on the B side, so A (b) is disadvantaged
    r2 = score_audit(planted(), group="g", label="y", score="s", reference="a")
    c2 = r2.select(metric="auc")[0]
    assert (c2.group_a, c2.group_b) == ("b", "a") and r2.comparison == "vs-reference"
    assert c2.verdict == "A disadvantaged"
    assert c2.estimate == pytest.approx(-c.estimate)


def test_planted_gap_exact_auc_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    df = planted()
    r = score_audit(df, group="g", label="y", score="s")
    for g in r.groups:
        rows = df[df["g"] == g.group]
        assert g.auc.estimate == pytest.approx(metrics.roc_auc_score(rows["y"], rows["s"]),
                                               abs=1e-12)


def null_histograms(seed: int) -> dict:
    df = null_data(seed)
    return {k: ScoreHistogram.from_arrays(d["s"].to_numpy(), d["y"].to_numpy())
            for k, d in df.groupby("g")}


def test_null_family_wise_false_claims_fast():
    # the builder score_audit runs after its scan, on the same data (the slow test below
    # goes through the scan too)
    reps = 40
    claims = sum(bool(score_audit_histograms(null_histograms(seed)).biased)
                 for seed in range(reps))
    stats = pytest.importorskip("scipy.stats")
    assert stats.binomtest(claims, reps, 0.05, alternative="greater").pvalue > 0.01


@pytest.mark.slow
def test_null_family_wise_false_claims_300_reps():
    reps = 300
    n_tests = set()
    claims = 0
    for seed in range(reps):
        r = score_audit(null_data(10_000 + seed), group="g", label="y", score="s")
        n_tests.add(r.n_tests)
        claims += bool(r.biased)
    assert n_tests == {60}  # 10 pairs x (AUC, 2 calibration, 3 sweeps)
    stats = pytest.importorskip("scipy.stats")
    assert stats.binomtest(claims, reps, 0.05, alternative="greater").pvalue > 0.01


def test_error_control_none_uses_the_stated_level():
    r = score_audit(null_data(1), group="g", label="y", score="s", error_control="none")
    assert r.n_tests == 60
    assert {c.interval_level for c in r.comparisons} == {0.95}


# ----------------------------------------------------------------------------- calibration


def test_probability_scores_get_calibration_rows():
    r = score_audit(planted(probabilities=True), group="g", label="y", score="s")
    assert r.calibration and r.calibration_note is None and r.calibration_bins == 10
    assert [c.metric for c in r.comparisons] == list(METRICS)
    for g in r.groups:
        c = g.calibration
        assert c.low <= c.estimate <= c.high
        assert g.reliability is not None and len(g.reliability.gap) <= 10
    cal = r.select(metric="calibration_in_the_large")[0]
    a, b = r.groups
    assert cal.estimate == pytest.approx(a.calibration.estimate - b.calibration.estimate)


def test_miscalibrated_group_is_found():
    rng = np.random.default_rng(5)
    n = 6000
    g = rng.choice(np.array(["a", "b"], dtype=object), n)
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < np.where(g == "b", 0.6 * s, s)).astype(int)
    r = score_audit(pd.DataFrame({"g": g, "y": y, "s": s}), group="g", label="y", score="s")
    cal = r.select(metric="calibration_in_the_large")[0]
    assert cal.verdict == "unequal" and cal.high < 0
    assert "B's scores over-predict" in cal.note


# ----------------------------------------------------------------------------- API


def test_binned_scores_are_approximate_with_a_bound():
    df = planted(probabilities=True)
    r = score_audit(df, group="g", label="y", score="s", bins=10)
    assert not r.exact and "floor(score * 10)" in r.binning
    for g in r.groups:
        assert g.approximate and 0 < g.error_bound < 0.5
    exact = score_audit(df, group="g", label="y", score="s")
    for gb, ge in zip(r.groups, exact.groups, strict=True):
        assert abs(gb.auc.estimate - ge.auc.estimate) <= gb.error_bound + 1e-12
    c = r.select(metric="auc")[0]
    assert c.approximate and c.error_bound > 0 and "approximate" in c.note


def test_vs_rest_and_vs_reference_pairs():
    df = null_data(3)
    r = score_audit(df, group="g", label="y", score="s", comparison="vs-rest")
    assert [(c.group_a, c.group_b) for c in r.select(metric="auc")] == \
        [(g, "rest") for g in "abcde"]
    rest = df[df["g"] != "a"]
    sw = r.select(metric="selection_rate_sweep")[0].sweep
    assert sw.n_b == len(rest)
    ref = score_audit(df, group="g", label="y", score="s", comparison="vs-reference")
    biggest = df["g"].value_counts().idxmax()
    assert ref.reference == biggest
    assert all(c.group_b == biggest for c in ref.comparisons)


def test_recompute_and_confidence_interval_need_no_data():
    r = score_audit(planted(), group="g", label="y", score="s")
    r90 = r.recompute(confidence_level=0.9)
    assert r90.confidence_level == 0.9 and r.confidence_level == 0.95
    lo, hi = r.confidence_interval(0.9)   # the intervals, as arrays over the rows
    assert list(hi - lo) == [c.high - c.low for c in r90.comparisons]
    a95, a90 = r.select(metric="auc")[0], r90.select(metric="auc")[0]
    assert a90.estimate == a95.estimate
    assert a90.high - a90.low < a95.high - a95.low
    none = r.recompute(error_control="none")
    assert none.select(metric="auc")[0].interval_level == 0.95
    deciles = planted().assign(s=lambda d: np.clip(np.round(d["s"] * 2 + 5), 1, 10))
    dkw = score_audit(deciles, group="g", label="y", score="s")
    supt = dkw.recompute(band="sup-t")
    assert supt.band == "sup-t" and dkw.band == "dkw"
    a, b = dkw.select(metric="tpr_sweep")[0], supt.select(metric="tpr_sweep")[0]
    assert (a.guarantee, b.guarantee) == ("finite-sample", "asymptotic")
    assert b.high - b.low < a.high - a.low


def test_result_is_frozen_and_serialises():
    r = score_audit(planted(probabilities=True), group="g", label="y", score="s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.confidence_level = 0.5  # type: ignore[misc]
    text = repr(r)
    assert text.startswith("ScoreAuditResult(2 groups") and len(text) < 200
    d = json.loads(r.to_json())
    assert d["schema"] == "fairbound.scores/1"
    assert d["groups"][0]["roc"]["fpr"][0] == 0.0
    assert d["comparisons"][3]["sweep"]["thresholds"]
    frame = r.to_frame()
    assert list(frame["metric"]) == list(METRICS)
    assert {"estimate", "low", "high", "verdict", "interval_level"} <= set(frame.columns)
    assert len(r.groups_frame()) == 2
    assert len(r.summary()) == len(r.comparisons)


def test_histograms_front_end_matches_the_data_front_end():
    df = planted()
    hs = {k: ScoreHistogram.from_arrays(d["s"].to_numpy(), d["y"].to_numpy())
          for k, d in df.groupby("g")}
    a = score_audit_histograms(hs)
    b = score_audit(df, group="g", label="y", score="s")
    for x, y in zip(a.comparisons, b.comparisons, strict=True):
        assert (x.metric, x.verdict) == (y.metric, y.verdict)
        assert x.estimate == pytest.approx(y.estimate, abs=1e-12)


def test_top_level_name():
    assert fairbound.score_audit is score_audit
    assert fairbound.ScoreAuditResult is ScoreAuditResult


@pytest.mark.parametrize("kwargs, match", [
    ({"comparison": "all"}, "comparison must be one of pairwise, vs-rest, vs-reference"),
    ({"confidence_level": 1.5}, "confidence_level must be in"),
    ({"error_control": "holm"},   # fdr is accepted: one set of values for every kind
     "error_control must be one of family, fdr, none; got 'holm'"),
    ({"band": "wide"}, "band must be one of dkw, sup-t; got 'wide'"),
    ({"bins": 0}, "bins must be None, a whole number >= 1"),
    ({"reference": "zz"}, "reference: group 'zz' not found"),
    ({"score": "nope"}, "nope"),
    ({"group": ""}, "group must be a column name"),
    ({"where": "g = 'x'"}, "selects none"),
    ({"transform": "log"}, "transform must be one of none, logit"),
])
def test_bad_arguments_are_one_line_errors(kwargs, match):
    args = {"group": "g", "label": "y", "score": "s", **kwargs}
    with pytest.raises(FairboundError, match=match) as info:
        score_audit(planted(500), **args)
    assert "\n" not in str(info.value)


def test_single_group_is_an_error():
    df = planted(500).assign(g="a")
    with pytest.raises(FairboundError, match="single group"):
        score_audit(df, group="g", label="y", score="s")


def test_group_without_a_class_is_not_estimable():
    df = planted(600)
    df.loc[df["g"] == "b", "y"] = 0
    r = score_audit(df, group="g", label="y", score="s")
    assert r.group("b").auc is None and "AUC not estimable" in r.group("b").note
    auc = r.select(metric="auc")[0]
    tpr = r.select(metric="tpr_sweep")[0]
    assert auc.verdict == tpr.verdict == "not estimable"
    assert r.n_tests == 2  # selection-rate and FPR sweeps only


# ----------------------------------------------------------------------------- figures


def test_figures_from_the_result_and_its_json(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from fairbound.viz.scores import plot_reliability, plot_roc, plot_threshold_sweep

    r = score_audit(planted(probabilities=True), group="g", label="y", score="s", bins=20)
    path = tmp_path / "r.json"
    r.to_json(path)
    for src in (r, str(path)):
        assert len(plot_roc(src).axes) == 1
        assert len(plot_reliability(src).axes) == 2
        assert len(plot_threshold_sweep(src, rate="tpr").axes) == 1
    assert r.plot("sweep") is not None
    with pytest.raises(FairboundError, match="kind must be one of"):
        r.plot("pie")


# ----------------------------------------------------------------------------- CLI


@pytest.fixture
def scored_csv(tmp_path) -> Path:
    df = planted(2000, probabilities=True)
    df["g"] = df["g"].map({"a": "<b>a</b>", "b": "b"})
    path = tmp_path / "scored.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_json_html_and_csv(scored_csv, tmp_path, capsys):
    out_json, out_html = tmp_path / "out" / "r.json", tmp_path / "r.html"
    rc = main(["scores", str(scored_csv), "--group", "g", "--label", "y", "--score", "s",
               "--bins", "20", "--json", str(out_json), "--html", str(out_html)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "fairbound scores" in printed and "auc" in printed
    d = json.loads(out_json.read_text())
    assert d["schema"] == "fairbound.scores/1" and d["calibration"] is True
    assert d["columns"] == {"group": ["g"], "label": "y", "score": "s"}
    html = out_html.read_text()
    assert html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html
    assert "&lt;b&gt;a&lt;/b&gt;" in html and "<b>a</b>" not in html
    assert "<script" not in html
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y", "-s", "s", "--format", "json",
               "--comparison", "vs-rest", "--confidence-level", "0.9",
               "--error-control", "none"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["comparison"] == "vs-rest" and d["error_control"] == "none"
    assert d["confidence_level"] == 0.9
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y", "-s", "s", "--format", "csv",
               "--reference", "b"])
    assert rc == 0
    import io

    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(frame["group_b"]) == {"b"} and list(frame["metric"]) == list(METRICS)


def test_cli_where_and_pos_label(tmp_path, capsys):
    df = planted(2000)
    df["y"] = df["y"].map({1: "recid", 0: "none"})
    df["split"] = np.where(np.arange(len(df)) % 2 == 0, "test", "dev")
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    rc = main(["scores", str(path), "-g", "g", "-y", "y", "-s", "s", "--pos-label", "recid",
               "--where", "split = 'test'", "--format", "json"])
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    assert d["positive"] == "recid" and d["n_rows"] == 2000
    assert sum(g["n"] for g in d["groups"]) == 1000


@pytest.mark.parametrize("extra, match", [
    (["--bins", "many"], "--bins must be a whole number"),
    (["--comparison", "everything"], "comparison must be one of"),
    (["--confidence-level", "1.5"], "confidence_level must be in"),
    (["--error-control", "holm"], "error_control must be one of family, fdr, none"),
    (["--reference", "nobody"], "reference: group 'nobody' not found"),
    (["--band", "wide"], "band must be one of dkw, sup-t"),
    (["--format", "xml"], "format must be one of"),
    (["--html", "report.txt"], "--html: unsupported file type"),
    (["--pos-label", "maybe"], "pos_label"),
])
def test_cli_bad_inputs_exit_2_with_one_line(scored_csv, tmp_path, capsys, extra, match):
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y", "-s", "s", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    errors = [line for line in err if line.startswith("error:")]
    assert len(errors) == 1 and match in errors[0]


def test_cli_missing_column_and_file_exit_2(scored_csv, tmp_path, capsys):
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y", "-s", "nope"])
    assert rc == 2 and "nope" in capsys.readouterr().err
    rc = main(["scores", str(tmp_path / "missing.csv"), "-g", "g", "-y", "y", "-s", "s"])
    assert rc == 2 and capsys.readouterr().err.startswith("error:")
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y"])  # no --score
    assert rc == 2 and "--score" in capsys.readouterr().err


def test_cli_writes_all_or_nothing(scored_csv, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out_json = tmp_path / "r.json"
    rc = main(["scores", str(scored_csv), "-g", "g", "-y", "y", "-s", "s",
               "--json", str(out_json), "--html", str(blocker / "r.html")])
    assert rc == 2 and "--html" in capsys.readouterr().err
    assert not out_json.exists()


def test_cli_table_names_the_calibration_note(tmp_path, capsys):
    df = planted(1000)  # scores are not probabilities
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    assert main(["scores", str(path), "-g", "g", "-y", "y", "-s", "s"]) == 0
    out = capsys.readouterr().out
    assert "calibration not computed" in out
    assert not math.isnan(float(json.loads(
        score_audit(df, group="g", label="y", score="s").to_json())["groups"][0]["auc"]))


# ----------------------------------------------------------------------------- speed work


def continuous(n: int = 4000, seed: int = 7) -> pd.DataFrame:
    """Three groups of continuous probability scores: nearly every score distinct."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n, p=[0.5, 0.3, 0.2])
    y = (rng.random(n) < 0.4).astype(int)
    x = rng.normal(size=n) + np.where(g == "a", 1.5, np.where(g == "b", 1.0, 0.6)) * y
    return pd.DataFrame({"g": g, "y": y, "s": 1 / (1 + np.exp(-x))})


def test_exact_auc_of_continuous_scores_equals_sklearn_to_1e12():
    sk = pytest.importorskip("sklearn.metrics")
    df = continuous(4000)
    r = score_audit(df, group="g", label="y", score="s")
    assert r.exact
    for g, d in df.groupby("g"):
        assert abs(r.group(g).auc.estimate - sk.roc_auc_score(d["y"], d["s"])) < 1e-12


def test_default_sweep_is_a_grid_and_all_is_every_distinct_score():
    df = continuous()
    r = score_audit(df, group="g", label="y", score="s")
    full = score_audit(df, group="g", label="y", score="s", sweep_thresholds="all")
    assert r.sweep_thresholds == 1000 and full.sweep_thresholds is None
    assert r.to_dict()["sweep_thresholds"] == 1000
    assert full.to_dict()["sweep_thresholds"] == "all"
    sweeps = [c["sweep"] for c in r.to_dict()["comparisons"] if c.get("sweep")]
    assert sweeps and all(s["grid"] and 0 < s["resolution"] < 0.05 for s in sweeps)
    assert all(not c["sweep"]["grid"] and c["sweep"]["resolution"] == 0
               for c in full.to_dict()["comparisons"] if c.get("sweep"))
    for c, f in zip(r.comparisons, full.comparisons, strict=True):
        if c.sweep is None:  # AUC and calibration do not depend on the sweep grid
            assert (c.estimate, c.low, c.high, c.verdict) == (f.estimate, f.low, f.high,
                                                              f.verdict)
            continue
        n_all = len(np.union1d(r.histograms[c.group_a].values, r.histograms[c.group_b].values))
        assert len(f.sweep.thresholds) == n_all > 1000 >= len(c.sweep.thresholds)
        assert "grid of" in c.method and "grid of" in c.note and "grid" not in f.method
        # the grid's band is the full sweep's at the same thresholds, bit for bit
        at = np.searchsorted(f.sweep.thresholds, c.sweep.thresholds)
        assert np.array_equal(f.sweep.low[at], c.sweep.low)
        assert np.array_equal(f.sweep.high[at], c.sweep.high)
        # the largest gap on the grid is within the stated resolution of the full one
        assert c.estimate <= f.estimate <= c.estimate + c.sweep.resolution + 1e-12
    # recompute from the histograms, without the data, gives the full sweep
    again = r.recompute(sweep_thresholds="all")
    assert [(c.estimate, c.low, c.high) for c in again.comparisons] == \
        [(c.estimate, c.low, c.high) for c in full.comparisons]


def _reference_sweep_bounds(sw):
    """The former per-threshold loop of the sweep row (the reference for the arrays)."""
    ok = np.isfinite(sw.low) & np.isfinite(sw.high)
    bounds = []
    for lo, hi in zip(sw.low[ok].tolist(), sw.high[ok].tolist(), strict=True):
        if lo <= 0 <= hi:
            bounds.append((0.0, max(-lo, hi)))
        else:
            bounds.append((min(abs(lo), abs(hi)), max(abs(lo), abs(hi))))
    return max(b[0] for b in bounds), max(b[1] for b in bounds)


@pytest.mark.parametrize("band", ["dkw", "sup-t"])
def test_sweep_row_interval_equals_the_former_loop(band):
    r = score_audit(planted(800, seed=4, probabilities=True), group="g", label="y",
                    score="s", band=band, sweep_thresholds="all")
    rows = [c for c in r.comparisons if c.sweep is not None and c.estimable]
    assert rows
    for c in rows:
        assert (c.low, c.high) == _reference_sweep_bounds(c.sweep)


@pytest.mark.parametrize("bad", [0, 2, "some", 1.5, True])
def test_bad_sweep_thresholds_is_one_line(bad):
    with pytest.raises(FairboundError, match="sweep_thresholds must be a whole number >= 3 "
                                             "or 'all'") as info:
        score_audit(planted(300), group="g", label="y", score="s", sweep_thresholds=bad)
    assert info.value.param == "sweep_thresholds"


def test_cli_sweep_thresholds(tmp_path, capsys):
    path = tmp_path / "c.csv"
    continuous(1500).to_csv(path, index=False)
    out = tmp_path / "r.json"
    args = ["scores", str(path), "-g", "g", "-y", "y", "-s", "s", "--json", str(out)]
    assert main([*args, "--sweep-thresholds", "50"]) == 0
    d = json.loads(out.read_text())
    assert d["sweep_thresholds"] == 50
    sizes = [len(c["sweep"]["thresholds"]) for c in d["comparisons"] if c.get("sweep")]
    assert sizes and max(sizes) <= 50
    out.unlink()
    assert main([*args, "--sweep-thresholds", "all"]) == 0
    d = json.loads(out.read_text())
    assert d["sweep_thresholds"] == "all"
    assert max(len(c["sweep"]["thresholds"]) for c in d["comparisons"] if c.get("sweep")) > 50
    capsys.readouterr()
    out.unlink()
    assert main([*args, "--sweep-thresholds", "lots"]) == 2
    assert not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sweep_thresholds must be a whole number >= 3 or 'all'" in err[0]
