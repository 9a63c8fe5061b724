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


@pytest.mark.parametrize("kw", [dict(group="group"), dict(cell="cell")])
def test_the_engines_row_order_changes_no_bit(kw, monkeypatch):
    # a GROUP BY's rows come in whatever order the engine's threads finish; the sums added
    # row by row and the proxy cells' order (which the bounds' bootstrap draws over) must
    # not depend on it: the same bits whichever order the rows arrive in
    from fairbound.audits.proxies.audit import proxy_audit
    from fairbound.engines import proxies

    df = _frame()
    if "cell" in kw:
        df = df.drop(columns=["group"])
    args = dict(group_probabilities=PROBS, label="y", prediction="pred", **kw)
    plain = proxies._run_duckdb
    results = []
    for order in ("as returned", "reversed", "shuffled"):
        def run(data, spec, build, order=order):
            rows, engine, source = plain(data, spec, build)
            rng = np.random.default_rng(3)
            return ({name: (r if order == "as returned" else r[::-1] if order == "reversed"
                            else [r[i] for i in rng.permutation(len(r))])
                     for name, r in rows.items()}, engine, source)

        monkeypatch.setattr(proxies, "_run_duckdb", run)
        t = proxy_statistics(df, **args)
        res = proxy_audit(df, metrics=["demographic_parity", "equal_opportunity"], **args)
        results.append((t, [(c.low, c.high) for c in res.comparisons]))
    (t0, ends0), *others = results
    for t, ends in others:
        assert ends == ends0
        for k, v in t0.moments.items():
            assert np.asarray(t.moments[k]).tobytes() == np.asarray(v).tobytes(), k
        if "cell" in kw:
            assert t.cell_counts.tobytes() == t0.cell_counts.tobytes()
            assert t.cell_probs.tobytes() == t0.cell_probs.tobytes()
