"""The proxy-group audit through its public function: modes, pairings, error control,
favourable, bad input, and (slow) the simulation targets of issue 29."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits.proxies.audit import NOT_IDENTIFIED, proxy_audit
from fairbound.audits.proxies.simulate import coverage_study, simulate_proxy_data
from fairbound.audits.verdicts import A_DISADVANTAGED, B_DISADVANTAGED, DISADVANTAGED, NO_GAP
from fairbound.errors import FairboundError

PROBS = {"a": "p_a", "b": "p_b"}


def _run(df, **kw):
    kw.setdefault("group", "group")
    return proxy_audit(df, group_probabilities=PROBS, label="y", prediction="pred", **kw)


def test_exported_from_the_package():
    assert fairbound.proxy_audit is proxy_audit


def test_ppi_mode_finds_a_clear_gap_and_beats_annotated_only():
    df = simulate_proxy_data(8000, annotated=1500, gap=0.25, cells=60, seed=1)
    res = _run(df, metrics="equal_opportunity")
    c = res.comparisons[0]
    assert res.mode == "ppi" and c.mode == "ppi"
    # TPR of a is higher: b bears the cost
    assert c.verdict == B_DISADVANTAGED and c.disadvantaged == "b"
    assert c.low < 0.25 < c.high
    assert c.width_ratio < 0.95 and 0 <= c.lam <= 1
    assert math.isfinite(c.annotated_needed) and c.annotated_needed <= 1500
    assert res.groups[0].annotated + res.groups[1].annotated == 1500
    assert all(g.calibration_pvalue > 0.001 for g in res.groups)


def test_favourable_negative_turns_the_verdict_round():
    df = simulate_proxy_data(8000, annotated=1500, gap=0.25, cells=60, seed=1)
    res = _run(df, metrics="equal_opportunity", favourable="negative")
    assert res.comparisons[0].verdict == A_DISADVANTAGED


def test_error_control_none_is_narrower_than_family():
    df = simulate_proxy_data(4000, annotated=600, cells=40, seed=2)
    fam = _run(df)
    each = fam.recompute(error_control="none")
    assert fam.n_tests == 5
    for f, e in zip(fam.comparisons, each.comparisons, strict=True):
        assert e.high - e.low < f.high - f.low
        assert e.estimate == pytest.approx(f.estimate)


def test_three_groups_pairwise_vs_rest_and_reference():
    rng = np.random.default_rng(0)
    n = 3000
    raw = rng.dirichlet([2, 2, 2], n)
    g = (rng.random(n)[:, None] > raw.cumsum(axis=1)).sum(axis=1)
    y = rng.random(n) < 0.4
    pred = rng.random(n) < np.where(y, 0.7, 0.2)
    ann = np.where(rng.random(n) < 0.3, np.array(["x", "y", "z"])[g], None)
    df = pd.DataFrame({"px": raw[:, 0], "py": raw[:, 1], "pz": raw[:, 2], "lab": y,
                       "pred": pred, "race": ann})
    probs = {"x": "px", "y": "py", "z": "pz"}
    kw = dict(group_probabilities=probs, label="lab", prediction="pred", group="race",
              metrics="demographic_parity")
    pw = proxy_audit(df, **kw)
    assert [(c.group_a, c.group_b) for c in pw.comparisons] == [("x", "y"), ("x", "z"),
                                                                ("y", "z")]
    rest = proxy_audit(df, comparison="vs-rest", **kw)
    assert [c.group_b for c in rest.comparisons] == ["rest"] * 3
    ref = proxy_audit(df, reference="z", **kw)
    assert ref.comparison == "vs-reference"
    assert [(c.group_a, c.group_b) for c in ref.comparisons] == [("x", "z"), ("y", "z")]
    # without annotations, with cells: non-complementary pairs get outer bounds
    df["cell"] = (raw[:, 0] * 4).astype(int) * 10 + (raw[:, 1] * 4).astype(int)
    cells = df.assign(px=0.0, py=0.0, pz=0.0)
    for col in ("px", "py", "pz"):
        cells[col] = df.groupby("cell")[col].transform("mean")
    cells = cells.drop(columns=["race"])
    kw.update(group=None, cell="cell")
    b = proxy_audit(cells, **kw)
    assert b.mode == "bounds" and not any(c.sharp for c in b.comparisons)
    assert all("outer bounds" in c.note for c in b.comparisons)
    vr = proxy_audit(cells, comparison="vs-rest", **kw)
    assert all(c.sharp for c in vr.comparisons)


def test_bounds_mode_contains_the_truth_and_says_not_identified():
    df = simulate_proxy_data(6000, annotated=0, gap=0.05, cells=50, seed=3)
    res = _run(df.drop(columns=["group"]), group=None, cell="cell",
               metrics="equal_opportunity")
    c = res.comparisons[0]
    assert res.mode == "bounds" and c.sharp and math.isnan(c.estimate)
    assert c.low <= c.identified_low <= 0.05 <= c.identified_high <= c.high
    assert c.verdict == NOT_IDENTIFIED
    assert math.isfinite(c.weighted_estimate)


def test_bounds_with_pure_cells_identify_the_gap():
    # each cell holds one group only: the probabilities are 0 / 1 and the gap is identified
    df = simulate_proxy_data(6000, annotated=0, gap=0.3, cells=50, seed=3)
    df["p_b"] = (df["true_group"] == "b").astype(float)
    df["p_a"] = 1 - df["p_b"]
    df["cell"] = df["cell"] * 2 + df["p_b"].astype(int)
    res = _run(df.drop(columns=["group"]), group=None, cell="cell",
               metrics="equal_opportunity")
    c = res.comparisons[0]
    assert c.identified_high - c.identified_low < 1e-9
    assert c.verdict == B_DISADVANTAGED
    assert "every distribution consistent with the proxies" in c.note


def test_weighted_annotations_with_equal_probabilities_match_uniform():
    df = simulate_proxy_data(4000, annotated=500, cells=40, seed=5)
    df["pi"] = np.where(df["group"].notna(), 500 / 4000, np.nan)
    u = _run(df, metrics="equal_opportunity").comparisons[0]
    w = _run(df, metrics="equal_opportunity", sampling_probability="pi")
    assert w.weighted and w.comparisons[0].estimate == pytest.approx(u.estimate)
    assert w.comparisons[0].high == pytest.approx(u.high)


def test_weighted_annotations_drawn_unequally():
    rng = np.random.default_rng(6)
    df = simulate_proxy_data(6000, annotated=0, cells=40, seed=6)
    pi = np.where(df["p_b"] > 0.5, 0.3, 0.1)            # drawn by the proxy itself
    drawn = rng.random(len(df)) < pi
    df["group"] = np.where(drawn, df["true_group"], None)
    df["pi"] = np.where(drawn, pi, np.nan)
    res = _run(df, metrics="demographic_parity", sampling_probability="pi")
    c = res.comparisons[0]
    assert c.mode == "ppi" and c.low < c.high and res.weighted


@pytest.mark.parametrize(("change", "match"), [
    (lambda d: d.assign(p_a=d["p_a"] * 0.9), "sum to 1"),
    (lambda d: d.assign(p_a=d["p_a"].where(d.index != 3)), "missing on 1 rows"),
    (lambda d: d.assign(p_a=d["p_a"].where(d.index != 3, -0.2),
                        p_b=d["p_b"].where(d.index != 3, 1.2)), "holds -0.2"),
    (lambda d: d.assign(group=d["group"].where(d.index != 0, "c")), "annotated group 'c'"),
])
def test_bad_probabilities_are_one_line_errors(change, match):
    df = simulate_proxy_data(500, annotated=100, cells=10, seed=7)
    df.loc[0, "group"] = "a"
    with pytest.raises(FairboundError, match=match) as err:
        _run(change(df))
    assert "\n" not in str(err.value)


def test_other_bad_inputs_are_one_line_errors():
    df = simulate_proxy_data(500, annotated=100, cells=10, seed=7)
    with pytest.raises(FairboundError, match="at least two groups"):
        proxy_audit(df, group_probabilities={"a": "p_a"}, label="y", prediction="pred")
    with pytest.raises(FairboundError, match="no row is annotated and no proxy cell"):
        _run(df.assign(group=None))
    with pytest.raises(FairboundError, match="sampling_probability"):
        _run(df.assign(pi=np.nan), sampling_probability="pi")
    with pytest.raises(FairboundError, match="not supported by a proxy-group audit"):
        _run(df, metrics="cost")
    with pytest.raises(FairboundError, match="cell: column 'cell' is missing"):
        _run(df.drop(columns=["group"]).assign(
            cell=df["cell"].where(df.index != 2)), group=None, cell="cell")


def test_few_sets_cover_and_threshold_fails():
    out = coverage_study(12, n=8000, annotated=600, gap=0.05, cells=60, boot=30, seed=100)
    assert out["ppi"]["coverage"] >= 0.75
    assert out["bounds"]["coverage"] == 1.0
    assert out["width_ratio"] < 0.95


def test_null_data_few_false_claims_through_the_public_function():
    claims = 0
    for s in range(5):
        df = simulate_proxy_data(3000, annotated=400, gap=0.0, cells=40, seed=200 + s)
        res = _run(df)
        claims += any(c.verdict in DISADVANTAGED for c in res.comparisons)
    assert claims <= 1


# ----------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_simulation_targets_of_issue_29():
    """50,000 rows, AUC ~0.85 calibrated probabilities, TPR gap 0.05, 1,000 annotated:
    prediction-powered coverage >= 93% of 300 sets (exact binomial test that it is not
    below 95%), bounds contain the truth in >= 95%, the threshold shortcut fails."""
    from scipy import stats as st

    out = coverage_study(300, n=50_000, annotated=1000, gap=0.05, cells=200, boot=100)
    hits = round(out["ppi"]["coverage"] * 300)
    assert out["ppi"]["coverage"] >= 0.93
    assert st.binomtest(hits, 300, 0.95, alternative="less").pvalue > 0.01
    assert out["bounds"]["coverage"] >= 0.95
    assert out["threshold"]["coverage"] < 0.5
    # the width gain measured (0.79 with this proxy strength; see docs/proxies.md for why
    # 30% is beyond any estimator with AUC 0.85 probabilities)
    assert out["width_ratio"] < 0.85


@pytest.mark.slow
def test_null_family_wise_false_claims_at_most_5_percent():
    from scipy import stats as st

    claims = 0
    sets = 300
    for s in range(sets):
        df = simulate_proxy_data(50_000, annotated=1000, gap=0.0, cells=200, seed=5000 + s)
        res = _run(df)
        claims += any(c.verdict in DISADVANTAGED for c in res.comparisons)
    assert st.binomtest(claims, sets, 0.05, alternative="greater").pvalue > 0.01


def test_bounds_parity_under_every_distribution_with_a_tolerance():
    df = simulate_proxy_data(20000, annotated=0, gap=0.0, cells=50, seed=8)
    df["p_b"] = (df["true_group"] == "b").astype(float)
    df["p_a"] = 1 - df["p_b"]
    df["cell"] = df["cell"] * 2 + df["p_b"].astype(int)
    res = _run(df.drop(columns=["group"]), group=None, cell="cell",
               metrics="demographic_parity", tolerance=0.05)
    c = res.comparisons[0]
    assert c.verdict == NO_GAP and "parity" in c.note
