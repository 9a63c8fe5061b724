"""Studies: per-run metrics from the core audit, persistence, resume, reproducibility."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from fairbound import audit
from fairbound.errors import FairboundError
from fairbound.stability import (
    RunStore,
    TextDebias,
    TfidfLogisticTrainer,
    evaluate_run,
    load_study,
    run_study,
)
from fairbound.stats import GroupStats, difference_interval


def toy_text(n=600, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m"], size=n, p=[0.3, 0.7])
    y = np.where(rng.random(n) < np.where(g == "f", 0.6, 0.4), "pos", "neg")
    words = np.where(y == "pos", "great fine good", "poor bad awful")
    noise = rng.choice(["good", "bad", "day", "he said", "she said"], size=n)
    pron = np.where(g == "f", "she", "he")
    text = [f"{p} {w.split()[rng.integers(3)]} {z}" for p, w, z in zip(pron, words, noise,
                                                                         strict=True)]
    return pd.DataFrame({"text": text, "label": y, "gender": g})


TRAINER = TfidfLogisticTrainer("text", min_df=1, ngram_range=(1, 1))
KW = dict(label="label", group="gender", reference="m", trainer=TRAINER, progress=False)


def test_evaluate_run_matches_hand_counts_and_the_core_interval():
    rng = np.random.default_rng(3)
    n = 500
    g = rng.choice(["f", "m"], n)
    y = rng.choice(["a", "b", "c"], n)
    p = np.where(rng.random(n) < 0.7, y, rng.choice(["a", "b", "c"], n))
    scores, gaps = evaluate_run(y, p, g, classes=["a", "b", "c"], reference="m",
                                method="agresti-caffo")
    assert set(gaps["class"]) == {"a", "b", "c"}
    assert len(gaps) == 9
    for k in "abc":
        for metric, num, den in (
            ("demographic_parity", p == k, np.ones(n, bool)),
            ("equal_opportunity", (p == k) & (y == k), y == k),
            ("predictive_parity", (p == k) & (y == k), p == k),
        ):
            row = gaps[(gaps["class"] == k) & (gaps["metric"] == metric)].iloc[0]
            fa, ma = (g == "f") & den, (g == "m") & den
            assert row["n_a"] == fa.sum() and row["n_b"] == ma.sum()
            assert row["count_a"] == (num & (g == "f")).sum()
            assert row["count_b"] == (num & (g == "m")).sum()
            ra, rb = row["count_a"] / row["n_a"], row["count_b"] / row["n_b"]
            assert row["gap"] == pytest.approx(ra - rb)
            # the single-run interval is the core's (agresti-caffo on the rate gap)
            lo, hi = difference_interval(GroupStats.from_counts(row["n_a"], row["count_a"]),
                                         GroupStats.from_counts(row["n_b"], row["count_b"]))
            assert (row["low"], row["high"]) == pytest.approx((lo, hi))
    # n_GP >= n_TPR and n_GP >= n_PP (the paper's appendix A)
    piv = gaps.pivot_table(index=["class"], columns="metric", values="n_a")
    assert (piv["demographic_parity"] >= piv["equal_opportunity"]).all()
    assert (piv["demographic_parity"] >= piv["predictive_parity"]).all()
    assert scores["accuracy"] == pytest.approx(np.mean(y == p))
    from sklearn.metrics import f1_score

    assert scores["macro_f1"] == pytest.approx(f1_score(y, p, average="macro"))


def test_evaluate_run_agrees_with_a_direct_audit():
    rng = np.random.default_rng(5)
    g = rng.choice(["x", "y", "z"], 300)
    y = rng.integers(0, 2, 300)
    p = rng.integers(0, 2, 300)
    _, gaps = evaluate_run(y, p, g, classes=[0, 1], metrics=["equal_opportunity"],
                           comparison="pairwise")
    res = audit(pd.DataFrame({"g": g, "y": y, "p": p}), group="g", label="y", prediction="p",
                metrics="equal_opportunity", comparison="pairwise",  # the same default
                error_control="none")  # a study reports each run's own intervals
    direct = {(c.group_a, c.group_b): c.rate_gap for c in res.comparisons}
    for _, r in gaps[gaps["class"] == "1"].iterrows():
        assert (r["gap"], r["low"], r["high"]) == pytest.approx(direct[(r["group_a"],
                                                                         r["group_b"])])


def test_study_shapes_and_stratification(tmp_path):
    df = toy_text()
    res = run_study(df, sizes=[100, 300], n_repeats=3, store=tmp_path / "s", **KW)
    assert len(res.runs) == 6
    assert res.runs[["size", "n_train", "n_test"]].drop_duplicates().values.tolist() == [
        [100, 70, 30], [300, 210, 90]]
    assert set(res.gaps["metric"]) == {"demographic_parity", "equal_opportunity",
                                       "predictive_parity"}
    assert set(res.gaps["class"]) == {"neg", "pos"}
    assert (res.gaps["group_b"] == "m").all()
    s = res.summary()
    assert len(s) == 2 * 3 * 2
    assert (s["n_runs"] == 3).all()


@pytest.mark.filterwarnings("ignore::fairbound.errors.SmallGroupWarning")
@pytest.mark.parametrize(
    "backend", ["threading", pytest.param("loky", marks=pytest.mark.slow)])
def test_same_seed_same_study_whatever_n_jobs(backend):
    df = toy_text()
    a = run_study(df, sizes=[150], n_repeats=4, seed=11, **KW)
    b = run_study(df, sizes=[150], n_repeats=4, seed=11, n_jobs=2, backend=backend, **KW)
    c = run_study(df, sizes=[150], n_repeats=4, seed=12, **KW)
    cols = ["condition", "size", "repeat", "metric", "class", "gap", "low", "high"]
    pd.testing.assert_frame_equal(a.gaps[cols], b.gaps[cols])
    assert not np.allclose(a.gaps["gap"], c.gaps["gap"], equal_nan=True)


def test_resume_after_partial_run_redoes_and_loses_nothing(tmp_path):
    df = toy_text()
    full = run_study(df, sizes=[100, 200], n_repeats=5, **KW)
    store = tmp_path / "s"
    part = run_study(df, sizes=[100, 200], n_repeats=5, store=store, max_runs=4, **KW)
    assert len(part.runs) == 4
    # a stray temporary file, as a kill during a write would leave
    stray = RunStore(store).path("original", 200, 4).with_suffix(".tmp999")
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"partial")
    rest = run_study(df, sizes=[100, 200], n_repeats=5, store=store, **KW)
    assert not stray.exists()
    assert len(rest.runs) == 10
    assert not rest.runs.duplicated(["condition", "size", "repeat"]).any()
    cols = ["size", "repeat", "metric", "class", "gap", "low", "high", "n_a", "n_b"]
    pd.testing.assert_frame_equal(rest.gaps[cols], full.gaps[cols], check_dtype=False)
    # running again does nothing new
    again = run_study(df, sizes=[100, 200], n_repeats=5, store=store, **KW)
    assert len(again.runs) == 10


def test_extending_a_study_keeps_earlier_runs(tmp_path):
    df = toy_text()
    store = tmp_path / "s"
    run_study(df, sizes=[100], n_repeats=2, store=store, **KW)
    first = load_study(store).runs["seconds"].tolist()
    res = run_study(df, sizes=[100, 200], n_repeats=3, store=store, **KW)
    assert len(res.runs) == 6
    assert res.runs[(res.runs["size"] == 100) & (res.runs["repeat"] < 2)]["seconds"].tolist() \
        == first
    assert load_study(store).config.sizes == (100, 200)


def test_store_refuses_a_different_study(tmp_path):
    df = toy_text()
    run_study(df, sizes=[100], n_repeats=1, store=tmp_path / "s", **KW)
    with pytest.raises(FairboundError, match=r"different seed \(0, now 1\)"):
        run_study(df, sizes=[100], n_repeats=1, store=tmp_path / "s", seed=1, **KW)
    with pytest.raises(FairboundError, match="different data_fingerprint"):
        run_study(df.iloc[:-1], sizes=[100], n_repeats=1, store=tmp_path / "s", **KW)


def test_default_method_is_the_audits_and_old_stores_keep_theirs(tmp_path):
    """Issue 27: every command's default method is the audit's (``auto``)."""
    import inspect
    import json

    from fairbound.audits.gaps.build import audit as gap_audit

    want = inspect.signature(gap_audit).parameters["method"].default
    assert want == "auto"
    for f in (evaluate_run, run_study):
        assert inspect.signature(f).parameters["method"].default == want
    rng = np.random.default_rng(4)
    g, y = rng.choice(["f", "m"], 300), rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.8, y, 1 - y)
    _, gaps = evaluate_run(y, p, g, classes=[0, 1], metrics=["equal_opportunity"],
                           reference="m")
    res = audit(pd.DataFrame({"g": g, "y": y, "p": p}), group="g", label="y", prediction="p",
                metrics="equal_opportunity", reference="m", error_control="none")
    row = gaps[gaps["class"] == "1"].iloc[0]
    assert (row["low"], row["high"]) == pytest.approx(res.comparisons[0].rate_gap[1:])
    _, old = evaluate_run(y, p, g, classes=[0, 1], metrics=["equal_opportunity"],
                          reference="m", method="agresti-caffo")
    assert old["low"].iloc[1] != pytest.approx(row["low"])   # the two methods differ here
    # a study stored with the old default loads, and resumes only with its own method
    store = tmp_path / "s"
    run_study(toy_text(), sizes=[100], n_repeats=1, store=store, method="agresti-caffo", **KW)
    assert json.loads((store / "study.json").read_text())["method"] == "agresti-caffo"
    assert load_study(store).config.method == "agresti-caffo"
    with pytest.raises(FairboundError, match=r"different method \('agresti-caffo', now "
                       r"'auto'\); resume it with method='agresti-caffo'"):
        run_study(toy_text(), sizes=[100], n_repeats=2, store=store, **KW)
    res2 = run_study(toy_text(), sizes=[100], n_repeats=2, store=store,
                     method="agresti-caffo", **KW)
    assert len(res2.runs) == 2 and res2.config.method == "agresti-caffo"


KILL_SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np, pandas as pd
    from fairbound.stability import run_study, TfidfLogisticTrainer
    sys.path.insert(0, {here!r})
    from test_stability_study import toy_text, SlowTrainer
    run_study(toy_text(), label="label", group="gender", reference="m",
              trainer=SlowTrainer(), sizes=[100, 200], n_repeats=10, store={store!r},
              progress=False)
""")


class SlowTrainer(TfidfLogisticTrainer):
    """The text trainer, slowed down so a test can kill a study half-way."""

    def fit_predict(self, train, y_train, test, *, seed):
        time.sleep(0.05)
        return TfidfLogisticTrainer("text", min_df=1).fit_predict(train, y_train, test,
                                                                 seed=seed)


def test_killed_study_resumes_without_lost_or_duplicated_runs(tmp_path):
    store = tmp_path / "s"
    code = KILL_SCRIPT.format(here=os.path.dirname(__file__), store=str(store))
    proc = subprocess.Popen([sys.executable, "-c", code])
    rs = RunStore(store)
    deadline = time.time() + 120
    while len(rs.done()) < 4 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = rs.done()
    assert 4 <= len(done_before) < 20
    res = run_study(toy_text(), label="label", group="gender", reference="m",
                    trainer=SlowTrainer(), sizes=[100, 200], n_repeats=10, store=store,
                    progress=False)
    assert len(res.runs) == 20
    assert not res.runs.duplicated(["condition", "size", "repeat"]).any()
    ref = run_study(toy_text(), sizes=[100, 200], n_repeats=10,
                    **{**KW, "trainer": TfidfLogisticTrainer("text", min_df=1)})
    cols = ["size", "repeat", "metric", "class", "gap", "low", "high"]
    pd.testing.assert_frame_equal(res.gaps[cols], ref.gaps[cols], check_dtype=False)


def test_conditions_are_paired_and_debias_changes_the_text():
    df = toy_text()
    res = run_study(df, sizes=[200], n_repeats=2,
                    conditions={"original": None, "female": TextDebias("text", "female")},
                    **KW)
    assert res.runs["condition"].tolist() == ["original", "original", "female", "female"]
    # same draws in both conditions: same seeds and test sizes
    r = res.runs.set_index(["condition", "repeat"])
    assert r.loc["original"]["seed"].tolist() == r.loc["female"]["seed"].tolist()
    t = res.compare_conditions(tests="welch")
    assert set(t["condition_2"]) == {"female"}
    # group counts in the test sets are identical across conditions
    g = res.gaps.set_index(["condition", "repeat", "metric", "class"])
    assert (g.loc["original"]["n_a"].to_numpy() >= 0).all()
    dp = res.gaps[res.gaps["metric"] == "demographic_parity"]
    assert (dp[dp["condition"] == "original"]["n_a"].to_numpy()
            == dp[dp["condition"] == "female"]["n_a"].to_numpy()).all()


def test_fixed_test_set():
    df = toy_text(seed=0)
    test = toy_text(n=200, seed=9)
    res = run_study(df, sizes=[100, 300], n_repeats=2, test_data=test, **KW)
    assert res.runs["n_train"].tolist() == [100, 100, 300, 300]
    assert (res.runs["n_test"] == 200).all()
    assert res.config.test_size is None


def test_result_views(tmp_path):
    res = run_study(toy_text(), sizes=[100], n_repeats=2, **KW)
    d = res.to_dict()
    assert d["schema"] == "fairbound.stability/1"
    assert len(d["runs"]) == 2 and len(d["gaps"]) == len(res.gaps)
    assert res.to_frame().shape == res.gaps.shape
    sc = res.score_summary()
    assert sc["n_runs"].tolist() == [2.0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"label": "nope"}, "label: no column 'nope'"),
        ({"test_data": [1, 2]}, "test_data must be a pandas, polars or pyarrow table; got list"),
        ({"group": "nope"}, "group: no column 'nope'"),
        ({"trainer": object()}, "trainer must have a name and fit_predict"),
        ({"sizes": [5000]}, "sizes: 5000 exceeds the 600 rows available"),
        ({"n_repeats": 0}, "n_repeats must be a positive integer; got 0"),
        ({"test_size": 0}, r"test_size must be in \(0, 1\); got 0"),
        ({"reference": "x"}, "reference: group 'x' not in column 'gender'"),
        ({"conditions": {"a b": None}}, "conditions: names must be letters"),
        ({"conditions": {"a": 3}}, "conditions: 'a' must map to a callable or None"),
        ({"comparison": "all"}, "comparison must be one of pairwise, vs-rest, vs-reference"),
        ({"method": "nope"}, "method must be one of"),
        ({"confidence_level": 2}, r"confidence_level must be in \(0, 1\); got 2"),
        ({"seed": -3}, "seed must be a non-negative integer; got -3"),
        ({"n_jobs": 0}, "n_jobs must be a positive integer or -1; got 0"),
        ({"backend": "dask"}, "backend must be one of loky, threading"),
        ({"max_runs": -1}, "max_runs must be a non-negative integer; got -1"),
        ({"stratify": ["nope"]}, "stratify: no column 'nope'"),
    ],
)
def test_validation_messages(kwargs, match):
    args = {**KW, "sizes": [100], "n_repeats": 1, **kwargs}
    with pytest.raises(FairboundError, match=match):
        run_study(toy_text(), **args)


def test_single_class_label_is_an_error():
    df = toy_text().assign(label="pos")
    with pytest.raises(FairboundError, match="label: column 'label' has fewer than two"):
        run_study(df, sizes=[100], n_repeats=1, **KW)


def test_load_study_without_store(tmp_path):
    with pytest.raises(FairboundError, match="holds no study"):
        load_study(tmp_path)


@pytest.mark.parametrize(("backend", "module", "extra"),
                         [("ray", "ray", "ray"), ("spark", "joblibspark", "joblibspark")])
def test_cluster_backends_name_their_extra(backend, module, extra):
    import importlib.util

    from fairbound.errors import MissingDependencyError

    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed")
    with pytest.raises(MissingDependencyError, match=rf'fairbound\[{extra}\]'):
        run_study(toy_text(), sizes=[100], n_repeats=2, n_jobs=2, backend=backend, **KW)


def test_progress_bar_reports_runs(capsys):
    run_study(toy_text(), sizes=[100], n_repeats=2, **{**KW, "progress": True})
    err = capsys.readouterr().err
    assert "2/2" in err and "runs" in err


def test_polars_and_arrow_input():
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    df = toy_text()
    a = run_study(df, sizes=[100], n_repeats=1, **KW)
    b = run_study(pl.from_pandas(df), sizes=[100], n_repeats=1, **KW)
    c = run_study(pa.Table.from_pandas(df), sizes=[100], n_repeats=1, **KW)
    np.testing.assert_allclose(a.gaps["gap"], b.gaps["gap"])
    np.testing.assert_allclose(a.gaps["gap"], c.gaps["gap"])
    with pytest.raises(FairboundError, match="data must be a pandas, polars or pyarrow table"):
        run_study([1, 2], sizes=[100], n_repeats=1, **KW)


def test_too_small_sizes_are_refused():
    df = toy_text()
    df.loc[:, "label"] = np.where(np.arange(len(df)) < 3, "rare", "common")
    with pytest.raises(FairboundError, match="sizes: a training sample of size 10 holds a "
                                             "single class of 'label'; use larger sizes"):
        run_study(df, sizes=[10, 300], n_repeats=1, **{**KW, "reference": None})


def test_store_refuses_a_transform_that_now_rewrites_otherwise(tmp_path):
    """A condition's transform is fingerprinted: a changed rule or name list is refused."""
    df = toy_text()

    def upper(d):
        return d.assign(text=d["text"].str.upper())

    def lower(d):
        return d.assign(text=d["text"].str.lower())

    run_study(df, sizes=[100], n_repeats=1, store=tmp_path / "s",
              conditions={"original": None, "changed": upper}, **KW)
    # the same transform resumes; another one under the same name is refused
    run_study(df, sizes=[100], n_repeats=2, store=tmp_path / "s",
              conditions={"original": None, "changed": upper}, **KW)
    with pytest.raises(FairboundError, match="different transforms"):
        run_study(df, sizes=[100], n_repeats=2, store=tmp_path / "s",
                  conditions={"original": None, "changed": lower}, **KW)
