"""fairbound.discover on a Spark DataFrame gives DuckDB's answer (local mode; skipped without
pyspark or Java).

The same two queries (the feature profile and the ``GROUPING SETS`` scan) are printed for
Spark SQL and run over a temporary view; the counts of every candidate slice must be equal,
and so every verdict, interval and p-value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.errors import FairboundError

pytestmark = pytest.mark.spark


def _frame(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(np.array(["F", "M"], dtype=object), n)
    region = rng.choice(np.array(["N", "S", "E", "W"], dtype=object), n)
    region[:9] = None                                    # a missing level
    age = rng.normal(40, 12, n).round(1)
    y = rng.integers(0, 2, n)
    harmed = (sex == "F") & (region == "S")
    wrong = rng.random(n) < np.where(harmed, 0.4, 0.1)
    p = np.where(wrong, 1 - y, y)
    return pd.DataFrame({"sex": sex, "region": region, "age": age, "y": y, "p": p})


@pytest.fixture(scope="module")
def both(spark):
    df = _frame()
    rows = [(r.sex, r.region, float(r.age), int(r.y), int(r.p))
            for r in df.itertuples(index=False)]
    sdf = spark.createDataFrame(rows, schema="sex string, region string, age double, "
                                             "y int, p int")
    return df, sdf


def test_spark_counts_and_verdicts_equal_duckdb(both):
    df, sdf = both
    kw = dict(label="y", prediction="p", depth=2, bins={"age": [30, 45, 60]})
    a = fairbound.discover(df, ["sex", "region", "age"], **kw)
    b = fairbound.discover(sdf, ["sex", "region", "age"], **kw)
    ca, cb = a.state.counts, b.state.counts
    assert b.engine == "spark" and a.engine != "spark"
    assert [f.levels for f in ca.features] == [f.levels for f in cb.features]
    assert np.array_equal(ca.keys, cb.keys) and np.array_equal(ca.support, cb.support)
    assert np.array_equal(ca.confusion, cb.confusion) and ca.lattice == cb.lattice
    assert a.n_flagged == b.n_flagged >= 1
    da, db = a.to_dict(), b.to_dict()
    for k in ("created", "source", "engine"):
        da.pop(k), db.pop(k)
    assert da == db
    assert a.flagged[0].slice == "sex=F & region=S"


def test_spark_quantile_bins_and_a_demographic_metric(both):
    df, sdf = both
    res = fairbound.discover(sdf, ["sex", "age"], prediction="p",
                             metric="demographic_parity", depth=2)
    age = res.state.counts.features[1]
    assert age.binned and len(age.edges) == 3          # quartile edges from Spark
    assert res.n_candidates == sum(res.lattice.values()) > 4


def test_spark_bad_input_is_one_line(both):
    _, sdf = both
    with pytest.raises(FairboundError) as exc:
        fairbound.discover(sdf, ["sex", "nope"], label="y", prediction="p")
    assert "\n" not in str(exc.value) and "nope" in str(exc.value)
    with pytest.raises(FairboundError, match="engine"):
        fairbound.discover(sdf, ["sex"], label="y", prediction="p", engine="duckdb")


def test_cli_engine_spark_reads_the_file_with_spark(both, spark, tmp_path, capsys):
    import json

    from fairbound.cli import main

    df, _ = both
    df.to_parquet(tmp_path / "d.parquet", index=False)
    args = ["discover", str(tmp_path / "d.parquet"), "-f", "sex,region", "-y", "y", "-p", "p",
            "--format", "json"]
    assert main([*args, "--json", str(tmp_path / "s.json"), "--engine", "spark"]) == 0
    assert main([*args, "--json", str(tmp_path / "d.json")]) == 0
    capsys.readouterr()
    s, d = (json.loads((tmp_path / f"{x}.json").read_text(encoding="utf-8")) for x in "sd")
    assert s["engine"] == "spark" and d["engine"] != "spark"
    assert s["comparisons"] == d["comparisons"] and s["n_candidates"] == d["n_candidates"]
