"""Ethayarajh's (2020) equalized-odds cost: one zero-one cost [y_hat != y], a mean gap.

The invariance tests of test_common.py run on it too (it is a registered confusion metric).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.metrics import METRICS, ZERO_ONE, get_metric
from tests.conftest import make_predictions
from tests.metrics.test_common import CONFUSION_METRICS


@pytest.fixture(scope="module")
def data():
    return make_predictions(4000, tpr={"a": 0.9, "b": 0.7, "c": 0.8},
                            fpr={"a": 0.1, "b": 0.3, "c": 0.2}, seed=5)


def test_registered_next_to_the_tpr_fpr_pair():
    m = get_metric("equalized_odds_cost")
    assert m is METRICS["equalized_odds_cost"] and "equalized_odds_cost" in CONFUSION_METRICS
    assert get_metric("eo-cost") is m and get_metric("zero_one_cost") is m
    assert m.components == (ZERO_ONE,) and not m.simultaneous
    assert "Ethayarajh" in m.summary
    assert [c.name for c in get_metric("equalized_odds").components] == ["tpr", "fpr"]
    assert ZERO_ONE.rate == "error rate" and ZERO_ONE.rate_is_cost
    assert not ZERO_ONE.per_class and not ZERO_ONE.depends_on_favourable


def test_audit_gives_the_mean_gap_of_the_zero_one_cost(data):
    res = fairbound.audit(data, group="g", label="y", prediction="p",
                          metrics=["equalized_odds_cost"], method="bbu")
    err = {k: float((d.y != d.p).mean()) for k, d in data.groupby("g")}
    n = data.groupby("g").size()
    assert {(c.group_a, c.group_b) for c in res.comparisons} == {("a", "b"), ("a", "c"),
                                                                  ("b", "c")}
    for c in res.comparisons:
        assert c.metric == "equalized_odds_cost" and c.component == "zero_one"
        assert c.rate == "error rate" and c.cls is None
        assert (c.rate_a, c.rate_b) == pytest.approx((err[c.group_a], err[c.group_b]))
        # the cost is the rate itself: the gap is E_A[cost] - E_B[cost], Ethayarajh's bias
        assert c.estimate == pytest.approx(err[c.group_a] - err[c.group_b])
        assert c.a.n == n[c.group_a] and c.a.count == (data[data.g == c.group_a].y
                                                       != data[data.g == c.group_a].p).sum()
        assert c.low <= c.estimate <= c.high
    # b has the most errors (TPR 0.7, FPR 0.3): it bears the cost
    ab = next(c for c in res.comparisons if (c.group_a, c.group_b) == ("a", "b"))
    assert ab.estimate < 0 and ab.disadvantaged == "b"


def test_same_gap_as_accuracy_parity_with_the_opposite_sign(data):
    res = fairbound.audit(data, group="g", label="y", prediction="p",
                          metrics=["equalized_odds_cost", "accuracy_parity"])
    eo = {(c.group_a, c.group_b): c for c in res.comparisons
          if c.metric == "equalized_odds_cost"}
    acc = {(c.group_a, c.group_b): c for c in res.comparisons
           if c.metric == "accuracy_parity"}
    for key, c in eo.items():
        assert c.rate_gap[0] == pytest.approx(-acc[key].rate_gap[0])
        assert c.disadvantaged == acc[key].disadvantaged
        assert c.verdict == acc[key].verdict


def test_multiclass_is_one_cost_per_row_not_one_vs_rest():
    rng = np.random.default_rng(1)
    n = 3000
    y = rng.choice(["nurse", "surgeon", "teacher"], n)
    g = rng.choice(["F", "M"], n)
    wrong = rng.random(n) < np.where(g == "F", 0.35, 0.2)
    p = np.where(wrong, np.roll(y, 1), y)
    df = pd.DataFrame({"g": g, "y": y, "p": p})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fairbound.audit(df, group="g", label="y", prediction="p",
                              metrics="equalized_odds_cost")
    assert res.task == "multiclass" and len(res.comparisons) == 1
    c = res.comparisons[0]
    err = df.assign(e=df.y != df.p).groupby("g")["e"].mean()
    assert c.estimate == pytest.approx(err[c.group_a] - err[c.group_b])


def test_json_and_summary_name_it(data):
    res = fairbound.audit(data, group="g", label="y", prediction="p",
                          metrics=["equalized_odds_cost"], reference="a")
    d = json.loads(json.dumps(res.to_dict()))
    assert {c["metric"] for c in d["comparisons"]} == {"equalized_odds_cost"}
    from fairbound.report.schema import validate_audit_json

    validate_audit_json(d)  # the published JSON schema accepts it
    assert any("equalized_odds_cost: error rate" in s for s in res.summary())


def test_both_readings_of_the_paper_and_the_note(data):
    """Over all rows it is accuracy_parity; over rows with y = 1, equal_opportunity."""
    from fairbound.metrics import EQUALIZED_ODDS_COST_NOTE

    m = get_metric("equalized_odds_cost")
    assert m.note == EQUALIZED_ODDS_COST_NOTE
    for word in ("accuracy_parity", "equal_opportunity", "y = 1", "equalized_odds"):
        assert word in m.summary and word in m.note
    res = fairbound.audit(data, group="g", label="y", prediction="p",
                          metrics=["equalized_odds_cost", "accuracy_parity"], method="bbu")
    eo = [c for c in res.comparisons if c.metric == "equalized_odds_cost"]
    acc = {(c.group_a, c.group_b): c for c in res.comparisons
           if c.metric == "accuracy_parity"}
    for c in eo:  # reading 1: the same counts as accuracy_parity, so the same numbers
        a = acc[(c.group_a, c.group_b)]
        assert (c.a.n, c.a.count, c.b.n, c.b.count) == (a.a.n, a.a.count, a.b.n, a.b.count)
        assert (c.estimate, c.low, c.high) == pytest.approx((a.estimate, a.low, a.high))
        assert c.verdict == a.verdict
        assert EQUALIZED_ODDS_COST_NOTE in c.note
        assert EQUALIZED_ODDS_COST_NOTE not in a.note
    frame = res.to_frame()
    rows = frame[frame["metric"] == "equalized_odds_cost"]
    assert rows["note"].str.contains("use equalized_odds").all()
    d = json.loads(res.to_json())
    assert all(EQUALIZED_ODDS_COST_NOTE in c["note"] for c in d["comparisons"]
               if c["metric"] == "equalized_odds_cost")
    # reading 2: the annotation function of equal opportunity keeps the rows with y = 1,
    # where [y_hat != y] = 1 - y_hat: the metric collapses to equal_opportunity
    pos = data[data["y"] == 1]
    r2 = fairbound.audit(pos, group="g", label="y", prediction="p",
                         metrics=["equalized_odds_cost"], method="bbu")
    r3 = fairbound.audit(data, group="g", label="y", prediction="p",
                         metrics=["equal_opportunity"], method="bbu")
    tpr = {(c.group_a, c.group_b): c for c in r3.comparisons}
    for c in r2.comparisons:
        t = tpr[(c.group_a, c.group_b)]
        # the same per-group cost counts, so the same gap and the same verdict
        assert (c.a.n, c.a.count, c.b.n, c.b.count) == (t.a.n, t.a.count, t.b.n, t.b.count)
        assert c.estimate == pytest.approx(t.estimate) and c.verdict == t.verdict


def test_audit_help_names_both_readings():
    from typer.testing import CliRunner

    from fairbound.cli import app

    out = CliRunner().invoke(app, ["audit", "--help"], terminal_width=200)
    text = " ".join(out.output.split())
    assert out.exit_code == 0
    assert "the same as accuracy_parity" in text and "use equalized_odds" in text
