"""Statistics of proxy-group audits: every source and Spark give the same sums."""

from __future__ import annotations

import numpy as np
import pytest

from fairbound.audits.proxies.simulate import simulate_proxy_data
from fairbound.engines.proxies import proxy_statistics
from fairbound.stats.proxy_groups import ProxyMoments

PROBS = {"a": "p_a", "b": "p_b"}


def _frame():
    df = simulate_proxy_data(1500, annotated=300, cells=20, seed=9)
    df.loc[[3, 4], "y"] = None
    df["pi"] = np.where(df["group"].notna(), 0.2, np.nan)
    return df


def _same(t, u):
    for k, v in t.moments.items():
        np.testing.assert_allclose(np.asarray(u.moments[k], float), np.asarray(v, float),
                                   rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(u.calibration, t.calibration, rtol=1e-9)
    assert t.excluded == u.excluded and t.annotated == u.annotated


def test_moments_equal_the_row_formula_and_files_match_frames(tmp_path):
    df = _frame()
    t = proxy_statistics(df, group_probabilities=PROBS, label="y", prediction="pred",
                         group="group", where="cell < 15")
    keep = df["y"].notna() & (df["cell"] < 15)
    d = df[keep]
    gi = np.where(d["group"] == "a", 0, np.where(d["group"] == "b", 1, -1))
    ref = ProxyMoments.from_rows(d[["p_a", "p_b"]].to_numpy(),
                                 (2 * d["y"] + d["pred"]).astype(int).to_numpy(), gi)
    m = ProxyMoments(**t.moments)
    for f in ("n_all", "p_all", "w", "z", "p", "zp", "pp"):
        np.testing.assert_allclose(getattr(m, f), getattr(ref, f), rtol=1e-9, atol=1e-9)
    assert t.excluded == {"missing label": 2, "where not true: cell < 15": int(
        (df["y"].notna() & (df["cell"] >= 15)).sum())}
    df.to_parquet(tmp_path / "x.parquet", index=False)
    u = proxy_statistics(str(tmp_path / "x.parquet"), group_probabilities=PROBS, label="y",
                         prediction="pred", group="group", where="cell < 15")
    _same(t, u)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("kw", [dict(group="group"),
                                dict(group="group", sampling_probability="pi"),
                                dict(cell="cell")])
def test_spark_gives_duckdb_sums(spark, kw):
    df = _frame()
    if "cell" in kw:
        df = df.drop(columns=["group"])
    t = proxy_statistics(df, group_probabilities=PROBS, label="y", prediction="pred", **kw)
    u = proxy_statistics(spark.createDataFrame(df.astype({"y": "float"}).replace(
        {np.nan: None})), group_probabilities=PROBS, label="y", prediction="pred", **kw)
    _same(t, u)
    if "cell" in kw:
        order = np.lexsort(t.cell_probs.T)
        uorder = np.lexsort(u.cell_probs.T)
        np.testing.assert_allclose(u.cell_counts[uorder], t.cell_counts[order])
