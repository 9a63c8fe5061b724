"""Every audit kind on a Spark DataFrame gives DuckDB's answer (local mode; skipped without
pyspark or Java).

The prediction-powered audit (label and score proxies, sampling probabilities and batches)
and the score audit (exact and binned) run the query the engine layer builds for DuckDB,
printed for Spark; counts must be equal, verdicts identical and every other number within
1e-9 relative (only sums of floating-point scores and weights can differ, in the last
bits, with the summation order).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.engines.ppi import ppi_counts
from fairbound.engines.scores import score_histograms
from fairbound.errors import FairboundError

pytestmark = pytest.mark.spark

# the report's own provenance: when, what was read and by which engine
_PROVENANCE = {"created", "source", "engine", "collected_bytes"}


def _close(a, b, path: str = "") -> list:
    """Paths where two ``to_dict`` results differ (floats: 1e-9 relative)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in dict.fromkeys([*a, *b]):
            if k not in _PROVENANCE:
                out += _close(a.get(k), b.get(k), f"{path}.{k}")
        return out
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [(path, len(a), len(b))]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _close(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(
                a, b, rel_tol=1e-9, abs_tol=1e-12):
            return []
        return [(path, a, b)]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _close(np.asarray(a).tolist(), np.asarray(b).tolist(), path)
    return [] if a == b and type(a) is type(b) else [(path, a, b)]


def _spark_frame(spark, df: pd.DataFrame, schema: str, *, keep_nan: bool = False):
    """``df`` as a Spark DataFrame; NaN becomes NULL (in DOUBLE columns: unless
    ``keep_nan``)."""
    floats = [keep_nan and df[c].dtype.kind == "f" for c in df.columns]

    def plain(v, keep):
        if v is None or (not keep and isinstance(v, float) and v != v):
            return None
        return v.item() if isinstance(v, np.generic) else v

    rows = [tuple(plain(v, k) for v, k in zip(r, floats, strict=True))
            for r in df.itertuples(index=False)]
    return spark.createDataFrame(rows, schema=schema)


def _ppi_frame(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    """Gold labels on a random third, a judge score and its label, a prediction; some
    rows without a group, a proxy or a prediction; sampling probabilities and batches:
    batch 1 and 2 drawn with recorded probabilities, batch 0 labeled uniformly."""
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    sex = rng.choice(np.array(["f", "m"], dtype=object), n)
    y = rng.integers(0, 2, n)
    judge = np.clip(0.45 * y + 0.6 * rng.random(n), 0, 1).round(3)
    pred = np.where(rng.random(n) < np.where(g == "a", 0.85, 0.75), y, 1 - y)
    q1 = np.clip(0.1 + 0.4 * np.abs(judge - 0.5), 0.05, 1.0).round(4)
    drawn1 = rng.random(n) < q1
    q2 = np.where(g == "c", 0.2, 0.1)
    drawn2 = ~drawn1 & (rng.random(n) < q2)
    early = ~drawn1 & ~drawn2 & (rng.random(n) < 0.05)        # batch 0: no probability
    batch = np.where(drawn1, 1.0, np.where(drawn2, 2.0, np.nan))
    prob = np.where(drawn1, q1, np.where(drawn2, q2, np.nan))
    gold = np.where(drawn1 | drawn2 | early, y, np.nan)
    df = pd.DataFrame({"g": g, "sex": sex, "gold": gold, "judge": judge,
                       "proxy": (judge >= 0.5).astype(float), "pred": pred.astype(float),
                       "prob": prob, "batch": batch,
                       "split": rng.choice(np.array(["test", "dev"], dtype=object), n)})
    df.loc[df.index[:5], "g"] = None
    df.loc[df.index[5:9], "proxy"] = np.nan
    df.loc[df.index[9:12], "judge"] = np.nan
    df.loc[df.index[12:14], "pred"] = np.nan
    return df


_PPI_SCHEMA = ("g string, sex string, gold double, judge double, proxy double, pred double, "
               "prob double, batch double, split string")


@pytest.fixture(scope="module")
def ppi_data(spark):
    df = _ppi_frame()
    return df, _spark_frame(spark, df, _PPI_SCHEMA)


def _same_table(a, b) -> None:
    """Two :class:`PPITable` s: equal counts and exclusions, sums within 1e-9."""
    assert (a.engine, b.engine) == ("duckdb (in memory)", "spark")
    assert b.source == f"Spark DataFrame ({a.n_rows} rows)"
    assert a.groups == b.groups and a.classes == b.classes and a.positive == b.positive
    assert a.n_rows == b.n_rows and a.excluded == b.excluded
    assert a.columns == b.columns and a.batches == b.batches
    np.testing.assert_array_equal(a.labeled, b.labeled)
    np.testing.assert_array_equal(a.unlabeled, b.unlabeled)
    for x, y in ((a.weights, b.weights), *zip(a.scores or (), b.scores or (), strict=True)):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(y, x, rtol=1e-9, atol=0)


def _same_audit(a, b) -> None:
    assert a.engine == "duckdb (in memory)" and b.engine == "spark"
    assert [c.verdict for c in a.comparisons] == [c.verdict for c in b.comparisons]
    assert _close(a.to_dict(), b.to_dict()) == []


@pytest.mark.parametrize("kw", [
    dict(proxy="proxy"),
    dict(proxy="proxy", group=["g", "sex"], where="split = 'test'"),
    dict(proxy="judge >= 0.5"),                       # a checked expression as the proxy
    dict(proxy="judge", proxy_kind="score"),
    dict(proxy="judge", proxy_kind="score", where="split = 'test'"),
    dict(proxy="proxy", sampling_probability="prob"),
    dict(proxy="proxy", sampling_probability="prob", batch="batch", where="split = 'test'"),
], ids=["label", "label-intersection-where", "label-expression", "score", "score-where",
        "weighted", "weighted-batches-where"])
def test_ppi_audit_on_spark_matches_duckdb(ppi_data, kw):
    df, sdf = ppi_data
    kw = {"group": "g", **kw}
    looks = {"looks": 2} if "batch" in kw else {}   # one look per annotation batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # sampling checks warn alike on both engines
        a = fairbound.ppi_audit(df, label="gold", prediction="pred", **kw, **looks)
        b = fairbound.ppi_audit(sdf, label="gold", prediction="pred", **kw, **looks)
    _same_audit(a, b)
    assert b.to_dict()["source"] == f"Spark DataFrame ({len(df)} rows)"


@pytest.mark.parametrize("kw", [
    dict(proxy="proxy", group=["g", "sex"], where="split = 'test'"),
    dict(proxy="judge", proxy_kind="score"),
    dict(proxy="proxy", sampling_probability="prob", batch="batch"),
], ids=["label", "score", "weighted-batches"])
def test_ppi_counts_on_spark_match_duckdb(ppi_data, kw):
    df, sdf = ppi_data
    kw = {"group": "g", "label": "gold", "prediction": "pred", **kw}
    ta, tb = ppi_counts(df, **kw), ppi_counts(sdf, **kw)
    _same_table(ta, tb)
    if "batch" in kw:
        assert tb.batches == (0, 1, 2) and tb.weights is not None
    if kw.get("proxy_kind") == "score":
        assert tb.scores is not None and tb.excluded.get("missing proxy") == 3


def test_ppi_spark_nan_reads_as_missing(spark, ppi_data):
    """A Spark DOUBLE NaN (not NULL) is missing, as DuckDB reads pandas' NaN."""
    df, _ = ppi_data
    nan = _spark_frame(spark, df, _PPI_SCHEMA, keep_nan=True)
    for kw in (dict(proxy="proxy", sampling_probability="prob", batch="batch"),
               dict(proxy="judge", proxy_kind="score")):
        _same_table(ppi_counts(df, group="g", label="gold", prediction="pred", **kw),
                    ppi_counts(nan, group="g", label="gold", prediction="pred", **kw))


def _no_type(message: str) -> str:
    return re.sub(r"( in .*)? has type .*", " has type", message)


def test_ppi_errors_on_spark_are_duckdbs(spark, ppi_data):
    df, sdf = ppi_data
    base = dict(group="g", label="gold", proxy="proxy", prediction="pred")
    drawn_unlabeled = df.assign(gold=np.where(df["batch"] == 2, np.nan, df["gold"]))
    fractional = df.assign(batch=df["batch"] * 0.5)
    cases = [
        (df, sdf, dict(base, proxy="nope"), "proxy"),
        (df, sdf, dict(base, proxy="split", proxy_kind="score"), "proxy"),
        (df, sdf, dict(base, sampling_probability="split"), "sampling_probability"),
        (drawn_unlabeled, _spark_frame(spark, drawn_unlabeled, _PPI_SCHEMA),
         dict(base, sampling_probability="prob", batch="batch"), "label"),
        (fractional, _spark_frame(spark, fractional, _PPI_SCHEMA),
         dict(base, sampling_probability="prob", batch="batch"), "batch"),
    ]
    for pdf, sp, kw, param in cases:
        with pytest.raises(FairboundError) as da:
            ppi_counts(pdf, **kw)
        with pytest.raises(FairboundError) as sa:
            ppi_counts(sp, **kw)
        assert da.value.param == sa.value.param == param
        assert "\n" not in str(sa.value)
        # the same message, except that DuckDB names the source and its own type names
        assert _no_type(str(sa.value)) == _no_type(str(da.value))


def _score_frame(n: int = 1200, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.clip(rng.normal(0.4 + 0.25 * y * np.where(g == "a", 1.2, 0.8), 0.2), 0, 1)
    df = pd.DataFrame({"g": g, "sex": rng.choice(np.array(["f", "m"], dtype=object), n),
                       "y": y.astype(float), "s": s.round(2),
                       "split": rng.choice(np.array(["test", "dev"], dtype=object), n)})
    df.loc[df.index[:4], "g"] = None
    df.loc[df.index[4:7], "y"] = np.nan
    df.loc[df.index[7:11], "s"] = np.nan
    return df


_SCORE_SCHEMA = "g string, sex string, y double, s double, split string"


@pytest.fixture(scope="module")
def score_data(spark):
    df = _score_frame()
    return df, _spark_frame(spark, df, _SCORE_SCHEMA)


def _same_counts(a, b) -> None:
    assert a.engine == "duckdb (in memory)" and b.engine == "spark"
    assert a.groups == b.groups and a.excluded == b.excluded and a.n_rows == b.n_rows
    assert (a.exact, a.binning, a.pos_label, a.label_values) == \
        (b.exact, b.binning, b.pos_label, b.label_values)
    for grp in a.groups:
        ca, cb = a.cells[grp], b.cells[grp]
        assert ca.keys() == cb.keys()
        for key in ("values", "upper", "pos", "neg"):
            np.testing.assert_array_equal(ca[key], cb[key])
        for key in ("score_sum", "pos_score_sum", "score_sq_sum"):
            np.testing.assert_allclose(cb[key], ca[key], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kw", [
    dict(bins=None),
    dict(bins=None, group=["g", "sex"], where="split = 'test'"),
    dict(bins=10),
    dict(bins=[0.0, 0.3, 0.5, 0.8, 1.0], where="split = 'dev'"),
], ids=["exact", "exact-intersection-where", "bins-10", "edges-where"])
def test_score_audit_on_spark_matches_duckdb(score_data, kw):
    df, sdf = score_data
    kw = {"group": "g", **kw}
    a = fairbound.score_audit(df, label="y", score="s", **kw)
    b = fairbound.score_audit(sdf, label="y", score="s", **kw)
    _same_audit(a, b)


@pytest.mark.parametrize("kw", [
    dict(bins=None, group=["g", "sex"], where="split = 'test'"),
    dict(bins=[0.0, 0.3, 0.5, 0.8, 1.0]),
], ids=["exact", "edges"])
def test_score_histograms_on_spark_match_duckdb(score_data, kw):
    df, sdf = score_data
    kw = {"group": "g", "label": "y", "score": "s", **kw}
    _same_counts(score_histograms(df, **kw), score_histograms(sdf, **kw))


def test_score_histograms_spark_edge_cases(spark, score_data):
    df, sdf = score_data
    # text labels with pos_label, a score expression, NaN (not NULL) in Spark
    text = df.assign(y=np.where(df["y"] == 1, "yes", np.where(df["y"] == 0, "no", None)))
    stext = _spark_frame(spark, text, "g string, sex string, y string, s double, split string",
                         keep_nan=True)
    kw = dict(group="g", label="y", score="1 - s", bins=4, pos_label="yes")
    _same_counts(score_histograms(text, **kw), score_histograms(stext, **kw))
    # an infinite or huge score: the same one-line errors (Spark's floor would overflow)
    for value, bins, param in ((math.inf, 10, "score"), (1e300, 10, "bins")):
        bad = df.assign(s=np.where(np.arange(len(df)) == 20, value, df["s"]))
        with pytest.raises(FairboundError) as da:
            score_histograms(bad, group="g", label="y", score="s", bins=bins)
        with pytest.raises(FairboundError) as sa:
            score_histograms(_spark_frame(spark, bad, _SCORE_SCHEMA), group="g", label="y",
                             score="s", bins=bins)
        assert da.value.param == sa.value.param == param
        assert str(da.value) == str(sa.value)
    with pytest.raises(FairboundError, match="score: column 'split' has type string") as sa:
        score_histograms(sdf, group="g", label="y", score="split")
    assert sa.value.param == "score"


@pytest.mark.parametrize("command", ["ppi", "scores"])
def test_cli_engine_spark_reads_the_file_with_spark(spark, tmp_path, capsys, command):
    """``fairbound ppi|scores FILE --engine spark`` gives the DuckDB answer."""
    import json

    from fairbound.cli import main

    if command == "ppi":
        path = tmp_path / "ppi.parquet"
        _ppi_frame().to_parquet(path, index=False)
        args = ["ppi", str(path), "-g", "g", "-y", "gold", "-f", "proxy", "-p", "pred"]
    else:
        path = tmp_path / "scores.parquet"
        _score_frame().to_parquet(path, index=False)
        args = ["scores", str(path), "-g", "g", "-y", "y", "-s", "s"]
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*args, "--format", "json"]) == 0
        duck = json.loads(capsys.readouterr().out)
        assert main([*args, "--format", "json", "--engine", "spark"]) == 0
        sp = json.loads(capsys.readouterr().out)
    assert (duck["engine"], sp["engine"]) == ("duckdb", "spark")
    assert [c["verdict"] for c in duck["comparisons"]] == \
        [c["verdict"] for c in sp["comparisons"]]
    assert _close(duck, sp) == []


def _votes_frame(n: int = 900, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    hard = np.where(g == "a", 0.45, 0.2)
    a = [np.where(rng.random(n) < hard, "no", "yes").astype(object) for _ in range(3)]
    df = pd.DataFrame({"g": g, "a1": a[0], "a2": a[1], "a3": a[2]})
    df.loc[df.index[:5], "a3"] = None  # a missing vote
    yes = (df[["a1", "a2", "a3"]] == "yes").sum(axis=1)
    no = (df[["a1", "a2", "a3"]] == "no").sum(axis=1)
    return df.assign(yes=yes.astype(float), no=no.astype(float))


@pytest.mark.parametrize("kw", [
    dict(votes=["yes", "no"]),
    dict(votes=["yes", "no"], measure="entropy"),
    dict(annotators=["a1", "a2", "a3"]),
    dict(annotators=["a1", "a2", "a3"], measure="entropy", comparison="vs-rest"),
], ids=["votes", "votes-entropy", "annotators", "annotators-entropy-vs-rest"])
def test_disagreement_audit_on_spark_matches_duckdb(spark, kw):
    df = _votes_frame()
    sdf = _spark_frame(spark, df, "g string, a1 string, a2 string, a3 string, yes double, "
                                  "no double")
    a = fairbound.disagreement_audit(df, group="g", **kw)
    b = fairbound.disagreement_audit(sdf, group="g", **kw)
    assert a.kind == b.kind == "disagreement"
    assert a.engine == "duckdb (in memory)" and b.engine == "spark"
    assert [c.verdict for c in a.comparisons] == [c.verdict for c in b.comparisons]
    assert [(c.a.n, c.b.n) for c in a.comparisons] == [(c.a.n, c.b.n) for c in b.comparisons]
    assert _close(a.to_dict(), b.to_dict()) == []


def test_disagreement_on_spark_refuses_what_pandas_refuses(spark):
    df = _votes_frame(60).assign(yes=lambda d: d["yes"].where(d.index != 7, -1.0))
    sdf = _spark_frame(spark, df, "g string, a1 string, a2 string, a3 string, yes double, "
                                  "no double")
    with pytest.raises(FairboundError, match=r"^votes: column 'yes' has the value -1"):
        fairbound.disagreement_audit(sdf, group="g", votes=["yes", "no"])
    with pytest.raises(FairboundError, match=r"^votes: column 'g' must hold vote counts"):
        fairbound.disagreement_audit(sdf, group="g", votes=["g", "no"])
    mixed = sdf.withColumn("n1", sdf["yes"])
    with pytest.raises(FairboundError, match=r"^annotators: columns 'n1' and 'a1' mix numbers "
                       r"and text"):
        fairbound.disagreement_audit(mixed, group="g", annotators=["a1", "n1"])
