"""DuckDB engine: sources, exclusions, one-line errors and cost samples."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fairbound
from fairbound.engines import AggregateSpec, aggregate
from fairbound.engines.duckdb_engine import aggregate_duckdb
from fairbound.errors import FairboundError

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SPEC = AggregateSpec(group=("g",), label="y", prediction="p")


def one_line(exc_info) -> str:
    msg = str(exc_info.value)
    assert "\n" not in msg
    return msg


# ----------------------------------------------------------------------------- sources


def test_csv_tsv_jsonl_and_list_of_files_agree(df, tmp_path):
    ref = aggregate(df, SPEC)
    df.to_csv(tmp_path / "a.csv", index=False)
    df.to_csv(tmp_path / "a.tsv", index=False, sep="\t")
    df.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    half = len(df) // 2
    df.iloc[:half].to_parquet(tmp_path / "x1.parquet", index=False)
    df.iloc[half:].to_parquet(tmp_path / "x2.parquet", index=False)
    for src in (tmp_path / "a.csv", str(tmp_path / "a.tsv"), str(tmp_path / "a.jsonl"),
                [str(tmp_path / "x1.parquet"), tmp_path / "x2.parquet"]):
        got = aggregate(src, SPEC)
        np.testing.assert_array_equal(got.confusion, ref.confusion)
        assert got.excluded == ref.excluded and got.engine == "duckdb"


def _database(df, path):
    """A DuckDB database file at ``path`` holding ``df`` as the table ``preds``."""
    con = duckdb.connect(str(path))
    con.register("df", df)
    con.execute("CREATE TABLE preds AS SELECT * FROM df")
    con.close()
    return path


def test_database_table_forms(df, tmp_path):
    path = _database(df, tmp_path / "w.duckdb")
    one = aggregate(str(path), SPEC)  # the only table
    named = aggregate(f"{path}::preds", SPEC)
    np.testing.assert_array_equal(one.confusion, named.confusion)
    assert named.source.endswith("::preds")
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE other AS SELECT 1 AS x")
    con.close()
    with pytest.raises(FairboundError, match="holds 2 tables") as info:
        aggregate(str(path), SPEC)
    one_line(info)
    with pytest.raises(FairboundError, match="table 'nope' not found"):
        aggregate(f"{path}::nope", SPEC)


def test_pandas_categorical_and_nullable_columns():
    df = pd.DataFrame({
        "g": pd.Categorical(["a", "b", None, "a", "b"], categories=["b", "a", "unused"]),
        "y": pd.array([1, 0, 1, None, 1], dtype="Int64"),
        "p": pd.array([1, 1, 0, 0, 0], dtype="Int64"),
    })
    agg = aggregate(df, SPEC)
    assert agg.groups == ("a", "b")  # sorted labels, not category codes
    assert agg.excluded == {"missing group (not annotated)": 1, "missing label": 1}
    assert agg.confusion.sum() == 3


def test_numpy_dict_and_structured_array(df):
    ref = aggregate(df, SPEC)
    arrays = {c: df[c].to_numpy() for c in ("g", "y", "p")}
    rec = np.zeros(len(df), dtype=[("g", "U2"), ("y", "i8"), ("p", "i8")])
    rec["g"] = df["g"].fillna("").to_numpy()
    rec["y"], rec["p"] = df["y"].to_numpy(), df["p"].to_numpy()
    got = aggregate(arrays, SPEC)
    np.testing.assert_array_equal(got.confusion, ref.confusion)
    assert got.excluded == ref.excluded
    got = aggregate(rec, SPEC)  # "" is a real label in a structured array
    assert got.groups == ("", "a", "b", "c", "d")
    with pytest.raises(FairboundError, match="columns differ in length"):
        aggregate({"g": [1, 2], "y": [1], "p": [1, 0]}, SPEC)


def test_lazy_polars_reads_only_the_audited_columns(df):
    pl = pytest.importorskip("polars")
    lazy = pl.from_pandas(df).lazy().with_columns(
        boom=pl.col("split").str.to_integer())  # would fail if it were computed
    got = aggregate(lazy, SPEC)
    np.testing.assert_array_equal(got.confusion, aggregate(df, SPEC).confusion)
    assert got.source.startswith("polars.LazyFrame")
    with pytest.raises(Exception, match="(?i)conver|pars|str"):
        lazy.collect()


def test_arrow_record_batch_and_dataset(df):
    import pyarrow as pa
    import pyarrow.dataset as ds

    table = pa.Table.from_pandas(df, preserve_index=False)
    ref = aggregate(df, SPEC)
    for src in (table.combine_chunks().to_batches()[0], ds.dataset(table)):
        got = aggregate(src, SPEC)
        assert got.n_rows == ref.n_rows
    np.testing.assert_array_equal(aggregate(ds.dataset(table), SPEC).confusion, ref.confusion)


# ----------------------------------------------------------------------------- exclusions


def test_rows_scanned_and_excluded_with_reasons():
    df = pd.DataFrame({
        "g": ["a", "a", None, "b", "b", "b", "a"],
        "y": [1, None, 1, 0, 1, 1, 0],
        "score": [0.9, 0.8, 0.1, 0.3, None, 0.7, 0.2],
        "c": [0.5, 0.1, 0.2, np.nan, 0.3, 0.9, 0.4],
        "keep": [True, True, True, True, True, True, False],
    })
    spec = AggregateSpec(group=("g",), label="y", prediction="score >= 0.5", cost="c",
                         where="keep")
    agg = aggregate(df, spec)
    assert agg.n_rows == 7
    assert agg.excluded == {"where not true: keep": 1, "missing group (not annotated)": 1,
                            "missing label": 1, "missing prediction": 1, "missing cost": 1}
    assert agg.group_rows() == {"a": 1, "b": 2}
    np.testing.assert_array_equal(agg.cost.n, [2, 2])
    np.testing.assert_allclose(agg.cost.total, [0.6, 1.2])


def test_audit_reports_where_and_computed_prediction(df):
    res = fairbound.audit(df, group="g", label="y", prediction="score >= 0.5",
                          where="split = 'test'", metrics="demographic_parity")
    manual = df[df["split"] == "test"].assign(p=lambda d: (d["score"] >= 0.5).astype(int))
    ref = fairbound.audit(manual, group="g", label="y", prediction="p",
                          metrics="demographic_parity")
    pd.testing.assert_frame_equal(res.to_frame(), ref.to_frame())
    assert res.excluded["where not true: split = 'test'"] == int((df["split"] != "test").sum())
    assert res.n_rows == len(df)


def test_cli_where_and_engine(df, tmp_path):
    from fairbound.cli import main

    path = tmp_path / "preds.parquet"
    df.to_parquet(path, index=False)
    out = tmp_path / "r.json"
    code = main(["audit", str(path), "--group", "g", "--label", "y", "--pred", "score >= 0.5",
                 "--where", "split = 'test'", "--engine", "duckdb", "--json", str(out),
                 "--format", "csv"])
    assert code == 0
    import json

    d = json.loads(out.read_text())
    assert d["engine"] == "duckdb" and d["n_rows"] == len(df)
    assert "where not true: split = 'test'" in d["excluded"]
    assert main(["audit", str(path), "--group", "g", "--label", "y", "--pred", "p",
                 "--where", "1; DROP TABLE x"]) == 2
    assert main(["audit", str(path), "--group", "g", "--label", "y", "--pred", "p",
                 "--engine", "flink"]) == 2


# ----------------------------------------------------------------------------- errors


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"this is not parquet at all" * 10)
    with pytest.raises(FairboundError, match=r"data: cannot read .*bad.parquet.* as parquet"
                       ) as info:
        aggregate(str(bad), SPEC)
    one_line(info)
    broken = tmp_path / "bad.jsonl"
    broken.write_text('{"g": "a", "y": 1, "p": 1}\n{"g": "b", "y": \n')
    with pytest.raises(FairboundError, match="as json") as info:
        aggregate(str(broken), SPEC)
    one_line(info)


def test_empty_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(FairboundError, match="data: file is empty") as info:
        aggregate(str(empty), SPEC)
    one_line(info)
    header = tmp_path / "header.csv"
    header.write_text("g,y,p\n")
    assert aggregate(str(header), SPEC).n_rows == 0
    with pytest.raises(FairboundError, match="data: no rows") as info:
        fairbound.audit(str(header), group="g", label="y", prediction="p")
    one_line(info)


def test_missing_files_globs_and_formats(tmp_path):
    with pytest.raises(FairboundError, match="file not found"):
        aggregate(str(tmp_path / "nope.parquet"), SPEC)
    with pytest.raises(FairboundError, match="no files match"):
        aggregate(str(tmp_path / "nope-*.parquet"), SPEC)
    with pytest.raises(FairboundError, match="cannot tell the format"):
        aggregate(str(tmp_path / "preds.xlsx"), SPEC)
    with pytest.raises(FairboundError, match="is a directory"):
        aggregate(str(_dir(tmp_path / "d.parquet")), SPEC)
    with pytest.raises(FairboundError, match="data must be"):
        aggregate(42, SPEC)


def _dir(p: Path) -> Path:
    p.mkdir()
    return p


def test_missing_column(df):
    with pytest.raises(FairboundError, match=r"group: column 'nope' not found; columns are: "
                       ) as info:
        aggregate(df, AggregateSpec(group=("nope",), label="y", prediction="p"))
    one_line(info)
    with pytest.raises(FairboundError, match=r"label: column 'truth' not found"):
        fairbound.audit(df, group="g", label="truth", prediction="p")


def test_wrong_column_types(df, tmp_path):
    with pytest.raises(FairboundError, match=r"cost: column 'split' .* has type VARCHAR; "
                       "expected numbers") as info:
        aggregate(df, AggregateSpec(group=("g",), cost="split"))
    one_line(info)
    nested = tmp_path / "nested.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 'a' AS g, [1, 2] AS y, 1 AS p UNION ALL SELECT 'b', [0], 0) "
                f"TO '{nested}'")
    con.close()
    with pytest.raises(FairboundError, match=r"label: column 'y' .* has type INTEGER\[\]"):
        aggregate(str(nested), SPEC)
    with pytest.raises(FairboundError, match="where: .* has type DOUBLE; expected a true/false"):
        aggregate(df, dataclasses.replace(SPEC, where="score + 1"))
    with pytest.raises(FairboundError, match="prediction: expression .* does not type-check"):
        aggregate(df, dataclasses.replace(SPEC, prediction="split + 1"))


def test_sql_looking_column_name_errors_in_one_line(df):
    bad = "p; DROP TABLE src"
    with pytest.raises(FairboundError, match=r"prediction: column 'p; DROP TABLE src' not "
                       "found") as info:
        fairbound.audit(df, group="g", label="y", prediction=bad)
    one_line(info)
    with pytest.raises(FairboundError, match=r"group: column .* not found"):
        aggregate(df, AggregateSpec(group=('g" FROM src; --',), label="y", prediction="p"))


# ----------------------------------------------------------------------------- cost samples


def _costs(n=6000, seed=0, decimals=None):
    rng = np.random.default_rng(seed)
    c = rng.beta(2, 5, n)
    if decimals is not None:
        c = c.round(decimals)
    return pd.DataFrame({"g": rng.choice(np.array(["a", "b", "c"], dtype=object), n),
                         "c": c, "x": np.arange(n)})


@pytest.mark.parametrize("cap", [10_000_000, 10])
def test_cost_samples_do_not_depend_on_row_order(cap):
    df = _costs(decimals=3 if cap > 100 else None)
    spec = AggregateSpec(group=("g",), cost="c", keep_cost_sample=300, seed=7,
                         max_cost_values=cap)
    a = aggregate(df, spec)
    b = aggregate(df.sample(frac=1.0, random_state=1), spec)
    assert a.cost.sample_method == ("value counts, hypergeometric" if cap > 100
                                    else "hashed rows (bottom-k)")
    for x, y in zip(a.cost.samples, b.cost.samples, strict=True):
        assert len(x) == 300
        np.testing.assert_array_equal(x, y)
    c = aggregate(df, dataclasses.replace(spec, seed=8))
    assert not np.array_equal(a.cost.samples[0], c.cost.samples[0])


def test_small_groups_are_kept_whole():
    df = _costs(n=500)
    spec = AggregateSpec(group=("g",), cost="c", keep_cost_sample=1000, max_cost_values=10)
    agg = aggregate(df, spec)
    assert agg.cost.samples_complete == (True, True, True)
    for g, s in zip(agg.groups, agg.cost.samples, strict=True):
        np.testing.assert_array_equal(s, np.sort(df.loc[df["g"] == g, "c"].to_numpy()))


def test_hashed_sample_is_bounded_and_uniform():
    df = _costs(n=30_000, seed=3)
    spec = AggregateSpec(group=("g",), cost="c", keep_cost_sample=2000, seed=1,
                         max_cost_values=100)
    agg = aggregate(df, spec)
    assert agg.cost.samples_complete == (False, False, False)
    # what came back is about k rows per group plus the margin, not the group
    assert agg.collected_bytes < 3 * 3 * 2600 * 8 * 3
    for g, s in zip(agg.groups, agg.cost.samples, strict=True):
        full = df.loc[df["g"] == g, "c"].to_numpy()
        assert len(s) == 2000 and np.isin(s, full).all()
        # a uniform sample of the group: same distribution (two-sample KS)
        assert stats.ks_2samp(s, full).pvalue > 1e-3


def test_betting_audit_on_fractional_costs_uses_the_sample():
    df = _costs(n=4000, seed=2)
    res = fairbound.audit(df, group="g", cost="c", method="betting", sample_size=500)
    assert all(c.estimable for c in res.comparisons)
    # the same audit with a larger sample is at least as informative on average
    big = fairbound.audit(df, group="g", cost="c", method="betting", sample_size=4000)
    width = np.mean([c.high - c.low for c in res.comparisons])
    assert np.mean([c.high - c.low for c in big.comparisons]) <= width


# ----------------------------------------------------------------------------- real data


def test_compas_file_audit_matches_pandas():
    path = DATA / "compas" / "compas-scores-two-years.csv"
    if not path.is_file():
        pytest.skip("../shared/data/compas is not present")
    # a high-risk score harms the defendant: the positive prediction is not favourable
    kw = dict(group="race", label="two_year_recid", metrics="false_positive_rate",
              comparison="vs-reference", reference="Caucasian", favourable="negative")
    res = fairbound.audit(str(path), prediction="decile_score >= 5",
                          where="race IN ('African-American', 'Caucasian')", **kw)
    df = pd.read_csv(path)
    df = df[df["race"].isin(["African-American", "Caucasian"])]
    ref = fairbound.audit(df.assign(p=(df["decile_score"] >= 5).astype(int)), prediction="p",
                          **kw)
    a, b = res.comparisons[0], ref.comparisons[0]
    assert (a.a.n, a.a.total, a.b.n, a.b.total) == (b.a.n, b.a.total, b.b.n, b.b.total)
    assert a.low == b.low and a.high == b.high
    # ProPublica: FPR 44.8% for Black vs 23.5% for white defendants
    assert a.rate_a == pytest.approx(0.448, abs=0.005)
    assert a.rate_b == pytest.approx(0.235, abs=0.005)
    assert a.verdict == "A disadvantaged"


def test_aggregate_duckdb_direct_call(df):
    agg = aggregate_duckdb(df, SPEC)
    assert agg.engine == "duckdb (in memory)" and agg.n_rows == len(df)


def test_hashed_sample_from_parquet_is_keyed_by_row_position(tmp_path):
    # duplicated rows: with row positions in the hash they are sampled independently
    df = pd.DataFrame({"g": ["a", "b"] * 4000, "c": np.repeat(np.linspace(0, 1, 400), 20)})
    path = tmp_path / "dup.parquet"
    df.to_parquet(path, index=False)
    spec = AggregateSpec(group=("g",), cost="c", keep_cost_sample=500, max_cost_values=10)
    a, b = aggregate(str(path), spec), aggregate(str(path), spec)
    assert a.cost.sample_method == "hashed rows (bottom-k)"
    for x, y in zip(a.cost.samples, b.cost.samples, strict=True):
        assert len(x) == 500
        np.testing.assert_array_equal(x, y)
        # copies of a value do not enter together: far fewer than 20 copies per value
        assert np.unique(x, return_counts=True)[1].max() < 10


# ----------------------------------------------------------------------------- connection


def _catalog(con):
    views = con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    dbs = con.execute("SELECT database_name FROM duckdb_databases() WHERE NOT internal "
                      "AND database_name <> 'memory'").fetchall()
    return views, dbs


@pytest.fixture
def keep_any(monkeypatch):
    """Keep the connection whatever a scan's time (a slow machine must not close it)."""
    from fairbound.engines import duckdb_engine as D

    monkeypatch.setattr(D, "KEEP_SECONDS", 1e9)


def test_a_thread_keeps_one_connection_and_each_scan_leaves_it_clean(df, tmp_path, keep_any):
    from fairbound.engines import duckdb_engine as D

    df.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    aggregate(df, SPEC)
    kept = D._KEPT.con
    assert kept is not None and _catalog(kept) == ([], [])
    # a file (a view over a relation), a JSON file (a view renamed and rebuilt), a failing
    # scan: the same connection, nothing left on it
    for src in (tmp_path / "a.jsonl", df):
        aggregate(src, SPEC)
        assert D._KEPT.con is kept and _catalog(kept) == ([], [])
    with pytest.raises(FairboundError):
        aggregate(df, dataclasses.replace(SPEC, label="nope"))
    assert D._KEPT.con is kept and _catalog(kept) == ([], [])
    # nested: the inner scan gets a connection of its own
    with D.pooled_connection() as outer, D.pooled_connection() as inner:
        assert outer is kept and inner is not kept


def test_a_database_source_closes_its_connection(df, tmp_path, keep_any):
    # a database source attaches the file and turns external access off for good: that
    # connection is closed, and the next scan of a file gets a new one that can read it
    from fairbound.engines import duckdb_engine as D

    path = _database(df, tmp_path / "w.duckdb")
    aggregate(df, SPEC)
    kept = D._KEPT.con
    aggregate(str(path), SPEC)
    assert D._KEPT.con is None
    with pytest.raises(duckdb.ConnectionException):
        kept.execute("SELECT 1")
    df.to_parquet(tmp_path / "a.parquet", index=False)
    np.testing.assert_array_equal(aggregate(tmp_path / "a.parquet", SPEC).confusion,
                                  aggregate(df, SPEC).confusion)
    assert D._KEPT.con.execute(   # fetchall: a result left open would block the next scan
        "SELECT current_setting('enable_external_access')").fetchall() == [(True,)]


def test_a_long_scan_closes_its_connection(df, monkeypatch):
    # past KEEP_SECONDS the connection is closed: a large scan leaves DuckDB's threads
    # holding memory that only closing returns
    from fairbound.engines import duckdb_engine as D

    monkeypatch.setattr(D, "KEEP_SECONDS", 0.0)
    aggregate(df, SPEC)
    assert D._KEPT.con is None


def test_threads_never_share_a_connection(df, keep_any):
    import threading

    from fairbound.engines import duckdb_engine as D

    seen = {}

    def run(name):
        aggregate(df, SPEC)
        seen[name] = D._KEPT.con

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[0] is not None and seen[1] is not None and seen[0] is not seen[1]
