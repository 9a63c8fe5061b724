"""Prediction-powered audits (fairbound.ppi_audit, engines/ppi.py, ``fairbound ppi``).

Simulations draw per-group counts from the multinomial of the (gold, proxy, prediction)
cells, with gold labels a uniform sample of all rows, and audit them through
:func:`ppi_audit_counts` (the code :func:`ppi_audit` runs after its scan); coverage is
checked with a one-sided binomial test (fail when below the level by more than noise).
"""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

import fairbound
from fairbound.audits.ppi.audit import (
    ASSUMPTION,
    PPIAuditResult,
    SamplingWarning,
    ppi_audit,
    ppi_audit_counts,
)
from fairbound.cli import main
from fairbound.engines.ppi import PPITable, ppi_counts
from fairbound.errors import FairboundError

LEVEL = 0.95
TRUE_TPR_GAP = 0.1   # TPR 0.8 in A, 0.7 in B


# --------------------------------------------------------------------------- simulation
def cell_probs(p, tpr, fpr, q):
    """P(y, f, pred): gold rate p, classifier (tpr, fpr), proxy right with probability q."""
    out = np.zeros((2, 2, 2))
    for y in (0, 1):
        for f in (0, 1):
            for r in (0, 1):
                out[y, f, r] = ((p if y else 1 - p) * (q if f == y else 1 - q)
                                * ((tpr if y else fpr) if r else 1 - (tpr if y else fpr)))
    return out


def sim_table(rng, q, *, rows=(12_000, 8_000), gold=1_500, p=(0.3, 0.25), tpr=(0.8, 0.7),
              fpr=(0.1, 0.1)) -> PPITable:
    """One data set: 20,000 rows, ``gold`` labels drawn uniformly from all of them."""
    n_a = rng.hypergeometric(rows[0], rows[1], gold)
    labs, unls = [], []
    for g, n_lab in enumerate((n_a, gold - n_a)):
        pr = cell_probs(p[g], tpr[g], fpr[g], q)
        labs.append(rng.multinomial(n_lab, pr.ravel()).reshape(2, 2, 2))
        unls.append(rng.multinomial(rows[g] - n_lab, pr.sum(0).ravel()).reshape(2, 2))
    return PPITable(groups=("A", "B"), labeled=np.array(labs), unlabeled=np.array(unls),
                    classes=(0, 1), positive=1, n_rows=sum(rows), excluded={},
                    engine="simulation", source="simulation", columns={"group": ["g"]})


def run_sim(q, reps, seed):
    rng = np.random.default_rng(seed)
    hits, lab_hits, ratios = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # 1% false alarms by design
        for _ in range(reps):
            res = ppi_audit_counts(sim_table(rng, q), metrics="equal_opportunity",
                                   confidence_level=LEVEL, error_control="none", plan=False)
            c = res.comparisons[0]
            hits.append(c.low <= TRUE_TPR_GAP <= c.high)
            lab_hits.append(c.labeled_low <= TRUE_TPR_GAP <= c.labeled_high)
            ratios.append(c.width_ratio)
    return np.array(hits), np.array(lab_hits), np.array(ratios)


def assert_coverage(hits, level=LEVEL, label=""):
    k, n = int(hits.sum()), hits.size
    p = st.binomtest(k, n, level, alternative="less").pvalue
    assert p > 1e-3, f"{label}: coverage {k}/{n} = {k / n:.3f} below {level}"


def test_good_proxy_narrower_and_covers():
    hits, lab_hits, ratios = run_sim(0.9, 100, seed=1)
    assert_coverage(hits, label="PPI++, agreement 0.9")
    assert_coverage(lab_hits, label="labeled-only")
    assert ratios.mean() < 0.8, ratios.mean()   # measured 0.73
    assert np.all(ratios < 1.0)


def test_useless_proxy_costs_at_most_five_percent():
    hits, _, ratios = run_sim(0.5, 100, seed=2)
    assert ratios.mean() <= 1.05, ratios.mean()
    assert_coverage(hits, label="PPI++, useless proxy")


@pytest.mark.slow
@pytest.mark.parametrize("q", [0.5, 0.8, 0.9, 0.99])
def test_coverage_large(q):
    hits, lab_hits, ratios = run_sim(q, 1000, seed=10 + int(100 * q))
    assert_coverage(hits, label=f"PPI++, agreement {q}")
    assert_coverage(lab_hits, label="labeled-only")
    assert ratios.mean() <= 1.05


def test_gold_labels_needed_fewer_with_a_good_proxy():
    rng = np.random.default_rng(5)
    # a gap the 600 labels on hand cannot settle yet: plans above them
    t = sim_table(rng, 0.95, gold=600, tpr=(0.8, 0.78))
    c = ppi_audit_counts(t, metrics="equal_opportunity", error_control="none").comparisons[0]
    assert c.verdict == "not enough evidence"
    assert 600 <= c.gold_labels_needed < c.gold_labels_needed_labeled_only


# --------------------------------------------------------------------------- engine
def small_frame(seed=0, n=4000, q=0.9, share=0.25):
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.5, "a", "b")
    y = (rng.random(n) < np.where(g == "a", 0.4, 0.3)).astype(float)
    proxy = np.where(rng.random(n) < q, y, 1 - y)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    gold = np.where(rng.random(n) < share, y, np.nan)
    return pd.DataFrame({"g": g, "gold": gold, "judge": proxy, "pred": pred, "y": y})


def test_counts_match_numpy_and_missing_label_is_unlabeled(tmp_path):
    df = small_frame()
    df.loc[:9, "judge"] = np.nan           # missing proxy: excluded and counted
    df.loc[10:14, "g"] = None              # missing group: not annotated
    t = ppi_counts(df, group="g", label="gold", proxy="judge", prediction="pred")
    assert t.excluded == {"missing proxy": 10, "missing group (not annotated)": 5}
    keep = df.iloc[15:]
    for i, g in enumerate(t.groups):
        part = keep[keep.g == g]
        lab = part[part.gold.notna()]
        assert t.labeled[i].sum() == len(lab)
        assert t.unlabeled[i].sum() == part.gold.isna().sum()
        assert t.labeled[i, 1, 1, 1] == ((lab.gold == 1) & (lab.judge == 1)
                                         & (lab.pred == 1)).sum()
    # the same counts from a CSV file (empty cells are missing gold labels)
    path = tmp_path / "rows.csv"
    df.to_csv(path, index=False)
    u = ppi_counts(str(path), group="g", label="gold", proxy="judge", prediction="pred")
    assert np.array_equal(u.labeled, t.labeled) and np.array_equal(u.unlabeled, t.unlabeled)


def test_text_labels_pos_label_and_expressions():
    df = small_frame(seed=3)
    text = pd.DataFrame({
        "g": df.g, "gold": np.where(df.gold.isna(), None,
                                    np.where(df.gold == 1, "yes", "no")),
        "judge": np.where(df.judge == 1, "yes", "no"), "pred": df.pred.astype(bool),
        "score": np.where(df.judge == 1, 0.9, 0.1)})
    t = ppi_counts(text, group="g", label="gold", proxy="judge", prediction="pred",
                   pos_label="yes")
    base = ppi_counts(df, group="g", label="gold", proxy="judge", prediction="pred")
    assert t.classes == ("no", "yes")
    assert np.array_equal(t.labeled, base.labeled)
    e = ppi_counts(df.assign(score=np.where(df.judge == 1, 0.9, 0.1)), group="g",
                   label="gold", proxy="score >= 0.5", prediction="pred")
    assert np.array_equal(e.labeled, base.labeled)
    w = ppi_counts(df, group="g", label="gold", proxy="judge", prediction="pred",
                   where="g = 'a'")
    assert w.groups == ("a",) and list(w.excluded) == ["where not true: g = 'a'"]


# --------------------------------------------------------------------------- audit
def test_result_shape_and_outputs():
    res = fairbound.ppi_audit(small_frame(), group="g", label="gold", proxy="judge",
                              prediction="pred")
    assert isinstance(res, PPIAuditResult)
    assert res.metrics == ("demographic_parity", "equal_opportunity", "false_positive_rate",
                           "predictive_parity", "accuracy_parity")
    assert res.n_tests == 5 and res.assumption == ASSUMPTION
    assert all(c.interval_level == pytest.approx(1 - 0.05 / 5) for c in res.comparisons)
    dp = res.comparisons[0]
    assert dp.method.startswith("newcombe (all rows)") and dp.rows_a + dp.rows_b == 4000
    assert any("demographic parity needs no gold label" in n for n in res.notes)
    eo = res.select(metric="equal_opportunity")[0]
    assert eo.method.startswith("ppi++") and 0 <= eo.lam[0] <= 1
    assert eo.width < eo.labeled_width
    d = res.to_dict()
    assert d["schema"] == "fairbound.ppi_audit/1" and "random sample" in d["assumption"]
    json.loads(res.to_json())
    frame = res.to_frame()
    assert len(frame) == 5 and {"width_ratio", "gold_labels_needed", "labeled_low"} <= set(
        frame.columns)
    assert repr(res).startswith("<PPIAuditResult: 5 comparisons of 2 groups")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.comparisons[0].verdict = "x"


def test_verdict_orientation_and_error_control():
    df = small_frame(seed=4, n=8000, share=0.5)
    base = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                     metrics=["equalized_odds", "fnr"], error_control="none")
    assert [c.component for c in base] == ["tpr", "fpr", "fnr"]
    assert base.comparisons[0].interval_level == pytest.approx(1 - 0.05 / 2)  # TPR and FPR
    assert base.comparisons[2].interval_level == pytest.approx(0.95)
    harm = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                     metrics="fpr", favourable="negative", error_control="none")
    fav = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                    metrics="fpr", error_control="none")
    h, f = harm.comparisons[0], fav.comparisons[0]
    assert (h.low, h.high) == (f.low, f.high)
    swap = {"A disadvantaged": "B disadvantaged", "B disadvantaged": "A disadvantaged"}
    assert h.verdict == swap.get(f.verdict, f.verdict)
    fdr = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                    error_control="fdr")
    assert fdr.error_control == "fdr" and fdr.n_tests == 5


def test_guaranteed():
    res = ppi_audit(small_frame(), group="g", label="gold", proxy="judge", prediction="pred",
                    guaranteed=True)
    assert all(c.guarantee == "finite-sample" for c in res)
    by = {c.metric: c for c in res}
    assert by["demographic_parity"].method == "exact (all rows)"
    assert by["equal_opportunity"].method == "exact (gold-labeled rows)"
    assert "no guaranteed prediction-powered interval" in by["equal_opportunity"].note
    acc = by["accuracy_parity"]
    assert acc.low <= acc.estimate <= acc.high and acc.labeled_method == "exact"


def test_comparisons_vs_rest_and_reference():
    df = small_frame(seed=6, n=6000)
    df["g"] = np.random.default_rng(6).choice(["a", "b", "c"], len(df))
    rest = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                     metrics="tpr", comparison="vs-rest")
    assert [(c.group_a, c.group_b) for c in rest] == [("a", "rest"), ("b", "rest"),
                                                      ("c", "rest")]
    ref = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                    metrics="tpr", reference="b")
    assert ref.comparison == "vs-reference" and {c.group_b for c in ref} == {"b"}


def test_labels_chosen_by_the_proxy_are_flagged():
    df = small_frame(seed=7, n=6000)
    rng = np.random.default_rng(7)
    chosen = rng.random(len(df)) < np.where(df.judge == 1, 0.5, 0.1)   # not at random
    df["gold"] = np.where(chosen, df.y, np.nan)
    with pytest.warns(SamplingWarning, match="may not be a random sample"):
        res = ppi_audit(df, group="g", label="gold", proxy="judge", prediction="pred",
                        metrics="tpr")
    assert any("may not be a random sample" in n for n in res.notes)
    assert min(g.proxy_pvalue for g in res.groups) < 1e-6


# --------------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult():
    """Adult test rows: a small classifier audited, a stronger model as proxy, 1,500 gold.

    The classifier is a logistic regression on three numeric features; the proxy the
    logistic regression on every feature of ``fairbound.examples`` (trained on the
    training split, so on other rows than these).  Gold labels are the true incomes of
    1,500 test rows drawn at random.
    """
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    from fairbound.datasets import load_adult
    from fairbound.examples import adult_predictions

    d = adult_predictions().rename(columns={"prediction": "proxy"})
    train, test = load_adult("train"), load_adult("test")
    small = ["age", "education_num", "hours_per_week"]
    model = LogisticRegression(max_iter=1000).fit(train[small], train["income"])
    d["prediction"] = model.predict(test[small])
    rng = np.random.default_rng(0)
    gold = np.full(len(d), np.nan)
    idx = rng.choice(len(d), 1500, replace=False)
    gold[idx] = d["income"].to_numpy()[idx]
    d["gold"] = gold
    return d


def test_adult_end_to_end(adult):
    res = ppi_audit(adult, group="sex", label="gold", proxy="proxy", prediction="prediction")
    assert sum(g.labeled for g in res.groups) == 1500
    assert sum(g.rows for g in res.groups) == len(adult)
    assert all(0.75 < g.agreement < 1 for g in res.groups)
    # the truth: the same gaps with every test row's income known
    truth = fairbound.audit(adult, group="sex", label="income", prediction="prediction",
                            method="newcombe")
    true_gap = {c.metric: c.rate_gap[0] for c in truth.comparisons}
    for c in res:
        assert c.low <= true_gap[c.metric] <= c.high, c.metric   # family-wise 95%
        assert c.verdict != "not estimable"
    ratio = [c for c in res if c.metric != "demographic_parity"]
    assert np.mean([c.width_ratio for c in ratio]) < 0.95
    eo = res.select(metric="equal_opportunity")[0]
    assert eo.width < eo.labeled_width


# --------------------------------------------------------------------------- CLI
@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "rows.csv"
    small_frame().drop(columns="y").to_csv(path, index=False)
    return path


def test_cli_json_table_csv(csv_path, tmp_path, capsys):
    out = tmp_path / "res.json"
    args = ["ppi", str(csv_path), "-g", "g", "-y", "gold", "--proxy", "judge", "-p", "pred"]
    assert main(args + ["--format", "json", "--json", str(out), "--metric", "tpr",
                        "--metric", "accuracy"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["schema"] == "fairbound.ppi_audit/1" and len(d["comparisons"]) == 2
    assert json.loads(out.read_text())["comparisons"] == d["comparisons"]
    assert main(args + ["--guaranteed", "--confidence", "0.9"]) == 0
    text = capsys.readouterr().out
    assert "assumption:" in text and "guaranteed" in text and "equal_opportunity" in text
    assert main(args + ["--format", "csv", "--comparison", "vs-rest"]) == 0
    assert "width_ratio" in capsys.readouterr().out


CLI_ERRORS = [
    (["--proxy", "nope"], "error: proxy: column 'nope' not found"),
    (["--proxy", "judge * 3"], "error: proxy: column 'judge * 3' must be binary"),
    (["--metric", "cost"], "error: metric 'cost' is not supported"),
    (["--confidence", "1.5"], "error: confidence_level must be in (0, 1)"),
    (["--reference", "zz"], "error: reference: group 'zz' not found"),
    (["--error-control", "x"], "error: error_control must be one of"),
    (["--label", "judge", "--proxy", "judge"], "error: proxy: 'judge' is the gold label"),
    (["--where", "g = 'zz'"], "error: where: the condition"),
    (["--json", "."], "error: --json: '.' is a folder"),
]


@pytest.mark.parametrize("extra,message", CLI_ERRORS)
def test_cli_errors_one_line_exit_2(csv_path, capsys, extra, message):
    args = ["ppi", str(csv_path), "-g", "g", "-y", "gold", "--proxy", "judge", "-p", "pred"]
    assert main(args + extra) == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert len(err.strip().splitlines()) == 1


def test_bad_inputs(tmp_path):
    df = small_frame()

    def run(frame=df, **kw):
        args = dict(group="g", label="gold", proxy="judge", prediction="pred")
        ppi_audit(frame, **{**args, **kw})

    with pytest.raises(FairboundError, match="no row has a gold label"):
        run(df.assign(gold=np.nan))
    with pytest.raises(FairboundError, match="at least two are needed"):
        run(df.assign(g="a"))
    with pytest.raises(FairboundError, match="needs binary labels"):
        run(df.assign(gold=df.gold.map({0.0: "x", 1.0: "y"}).where(df.index % 3 > 0, "z"),
                      judge=np.where(df.judge == 1, "y", "x"),
                      pred=np.where(df.pred == 1, "y", "x")))
    with pytest.raises(FairboundError, match="proxy: column 'judge' holds both 1.0 and '1'"):
        run(df.assign(judge=df.judge.astype(object).where(df.index > 0, "1")))
    with pytest.raises(FairboundError, match="proxy: column 'judge' mixes numbers and text"):
        run(df.assign(judge=df.judge.astype(object).where(df.index > 0, "maybe")))
    with pytest.raises(FairboundError, match="guaranteed must be True or False"):
        run(guaranteed="yes")
    with pytest.raises(FairboundError, match="favourable must be"):
        run(favourable="maybe")


def _one_gold_positive_in_b(tmp_path):
    rng = np.random.default_rng(0)
    n = 4000
    g = rng.choice(["A", "B"], n)
    y = rng.integers(0, 2, n)
    flip = lambda: np.where(rng.random(n) < 0.8, y, 1 - y)  # noqa: E731
    proxy, pred = flip(), flip()
    lab = np.full(n, np.nan)
    idx = rng.choice(n, 300, replace=False)
    lab[idx] = y[idx]
    b = np.where((g == "B") & ~np.isnan(lab))[0]
    lab[b] = 0
    lab[b[0]] = 1            # one gold row in B's TPR denominator
    path = tmp_path / "one.csv"
    pd.DataFrame(dict(g=g, y=lab, f=proxy, p=pred)).to_csv(path, index=False)
    return path


def test_one_gold_row_in_a_denominator_is_not_estimable_with_the_reason(tmp_path, capsys):
    """Issue 27 item 6: a lone gold row has no spread, so no asymptotic interval."""
    path = _one_gold_positive_in_b(tmp_path)
    res = fairbound.ppi_audit(str(path), group="g", label="y", proxy="f", prediction="p",
                              metrics=["equal_opportunity"])
    (c,) = res.comparisons
    assert c.verdict == "not estimable"
    assert np.isnan(c.labeled_low) and np.isnan(c.low)
    assert np.isnan(c.gold_labels_needed_labeled_only)
    assert "'B' has 1 gold-labeled row in the TPR denominator" in c.note
    # the exact interval holds at any n, so guaranteed=True still answers
    (g,) = fairbound.ppi_audit(str(path), group="g", label="y", proxy="f", prediction="p",
                               metrics=["equal_opportunity"], guaranteed=True).comparisons
    assert g.verdict != "not estimable" and g.low <= g.estimate <= g.high
    code = main(["ppi", str(path), "-g", "g", "-y", "y", "--proxy", "f", "-p", "p",
                 "-m", "equal_opportunity"])
    out = capsys.readouterr().out
    assert code == 0
    assert "not estimable" in out and "1 gold-labeled row" in " ".join(out.split())
