"""Per-group score histograms from one DuckDB GROUP BY, for files and in-memory frames."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairbound.engines import scores as scores_engine
from fairbound.engines.scores import ScoreCounts, score_histograms
from fairbound.errors import FairboundError
from fairbound.stats.scores import ScoreHistogram, auc, auc_value, histograms_from_counts

COMPAS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "compas" / \
    "compas-scores-two-years.csv"


def scored(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Groups a-c and sex, 0/1 labels, probability scores (3 decimals: ties) with 1.0s,
    some missing groups, labels and scores."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(float)
    score = np.clip(rng.beta(2, 4, n) + 0.25 * y, 0, 1).round(3)
    score[:5] = 1.0
    df = pd.DataFrame({"g": rng.choice(np.array(["a", "b", "c"], dtype=object), n),
                       "sex": rng.choice(np.array(["f", "m"], dtype=object), n),
                       "y": y, "s": score,
                       "split": rng.choice(np.array(["test", "dev"], dtype=object), n)})
    df.loc[df.index[5:9], "g"] = None
    df.loc[df.index[9:12], "y"] = np.nan
    df.loc[df.index[12:16], "s"] = np.nan
    return df


def expected(df: pd.DataFrame, bins, group="g") -> dict:
    ok = df[group if isinstance(group, str) else list(group)].notna().all(axis=1) \
        if not isinstance(group, str) else df[group].notna()
    ok &= df["y"].notna() & df["s"].notna()
    keep = df[ok]
    keys = keep[group] if isinstance(group, str) else list(zip(*(keep[g] for g in group),
                                                               strict=True))
    out = {}
    for k in sorted(set(keys)):
        rows = keep[np.array([kk == k for kk in keys])]
        out[k] = ScoreHistogram.from_arrays(rows["s"].to_numpy(), rows["y"].to_numpy(),
                                            bins=bins)
    return out


def same(a: ScoreHistogram, b: ScoreHistogram) -> None:
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.upper, b.upper)
    np.testing.assert_array_equal(a.pos, b.pos)
    np.testing.assert_array_equal(a.neg, b.neg)
    for name in ("score_sum", "pos_score_sum", "score_sq_sum"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-12)
    assert (a.exact, a.binning) == (b.exact, b.binning)


@pytest.mark.parametrize("bins", [None, 20, [0.0, 0.1, 0.25, 0.5, 0.75, 1.0]])
def test_frame_csv_and_parquet_give_the_histograms_of_the_arrays(tmp_path, bins):
    df = scored()
    csv, pq = tmp_path / "s.csv", tmp_path / "s.parquet"
    df.to_csv(csv, index=False)
    df.to_parquet(pq, index=False)
    want = expected(df, bins)
    for data in (df, str(csv), pq):
        out = score_histograms(data, group="g", label="y", score="s", bins=bins)
        assert isinstance(out, ScoreCounts)
        assert out.groups == ("a", "b", "c")
        assert out.n_rows == len(df)
        assert out.excluded == {"missing group (not annotated)": 4, "missing label": 3,
                                "missing score": 4}
        assert out.exact is (bins is None) and out.pos_label == 1
        got = histograms_from_counts(out)
        assert list(got) == ["a", "b", "c"]
        for g in want:
            same(got[g], want[g])
        assert out.group_rows() == {g: want[g].n for g in want}


def test_intersections_where_and_text_labels():
    df = scored(3000, seed=1)
    df["outcome"] = np.where(df["y"] == 1, "Poor", np.where(df["y"] == 0, "Good", None))
    out = score_histograms(df, group=["g", "sex"], label="outcome", score="s",
                           pos_label="poor", bins=10, where="split = 'test'")
    test = df[df["split"] == "test"]
    want = expected(test, 10, group=("g", "sex"))
    assert out.groups == tuple(want)
    assert out.pos_label == "Poor" and out.label_values == ("Good", "Poor")
    assert out.excluded["where not true: split = 'test'"] == int((df["split"] != "test").sum())
    got = histograms_from_counts(out)
    for k in want:
        same(got[k], want[k])


def test_one_class_against_the_rest():
    df = pd.DataFrame({"g": ["a"] * 6, "risk": ["High", "Low", "Medium", "High", "Low", "Low"],
                       "s": [0.9, 0.1, 0.5, 0.7, 0.2, 0.5]})
    out = score_histograms(df, group="g", label="risk", score="s", pos_label="High")
    h = histograms_from_counts(out)["a"]
    assert out.label_values == ("High", "Low", "Medium") and out.pos_label == "High"
    assert (h.n_pos, h.n_neg) == (2, 4) and auc_value(h) == 1.0


def test_expressions_and_booleans():
    df = scored(1000, seed=2).dropna()
    df["yb"] = df["y"] == 1
    out = score_histograms(df, group="g", label="yb", score="1 - s")
    assert out.pos_label is True
    for g, h in histograms_from_counts(out).items():
        rows = df[df["g"] == g]
        ref = ScoreHistogram.from_arrays(1 - rows["s"].to_numpy(), rows["yb"].to_numpy())
        np.testing.assert_array_equal(h.pos, ref.pos)
        np.testing.assert_allclose(h.values, ref.values, atol=1e-15)


def test_compas_auc_per_race_equals_sklearn_through_the_csv(monkeypatch):
    metrics = pytest.importorskip("sklearn.metrics")
    if not COMPAS.is_file():
        pytest.skip("../shared/data/compas is not present")
    out = score_histograms(str(COMPAS), group="race", label="two_year_recid",
                           score="decile_score")
    raw = pd.read_csv(COMPAS, usecols=["race", "two_year_recid", "decile_score"])
    assert out.groups == tuple(sorted(raw["race"].unique()))
    assert out.n_rows == len(raw) == 7214 and out.excluded == {}
    hs = histograms_from_counts(out)
    for race, h in hs.items():
        rows = raw[raw["race"] == race]
        assert h.exact and h.values.tolist() == sorted(rows["decile_score"].unique())
        want = metrics.roc_auc_score(rows["two_year_recid"], rows["decile_score"])
        assert auc(h).estimate == pytest.approx(want, abs=1e-12)
    assert sum(len(h.values) for h in hs.values()) <= 60
    # through the GROUP BY (the path of inputs above ROWS_READ rows) a few dozen rows come
    # back, whatever the file's length; the histograms are the same
    monkeypatch.setattr(scores_engine, "ROWS_READ", 0)
    grouped = score_histograms(str(COMPAS), group="race", label="two_year_recid",
                               score="decile_score")
    assert grouped.collected_bytes < 20_000 < out.collected_bytes
    same_counts(grouped, out)


def same_counts(a: ScoreCounts, b: ScoreCounts) -> None:
    """Bit for bit the same groups, exclusions and arrays (zeros' signs aside)."""
    assert (a.groups, a.excluded, a.n_rows, a.label_values, a.pos_label) == \
        (b.groups, b.excluded, b.n_rows, b.label_values, b.pos_label)
    for g in a.groups:
        assert a.cells[g].keys() == b.cells[g].keys()
        for name, x in a.cells[g].items():
            y = b.cells[g][name]
            assert x.dtype == y.dtype and np.array_equal(x, y), (g, name)
            if name not in ("values", "upper"):  # (a sum is +0.0 on both paths)
                assert np.array_equal(np.signbit(x), np.signbit(y)), (g, name)


def test_exact_histograms_from_rows_equal_the_group_by(monkeypatch):
    # small exact inputs are read row by row (no hash table); the GROUP BY of larger ones
    # gives the same counts and, bit for bit, the same sums: many ties of each class (a
    # sum of 4+ equal scores is not 4 times the score), -0.0 and 0.0, missing values,
    # intersections, a filter, text labels, one class against several
    rng = np.random.default_rng(3)
    n = 3000
    s = np.round(rng.normal(size=n) * 2, 1)
    s[rng.random(n) < 0.02] = -0.0
    df = pd.DataFrame({"g": rng.choice(np.array(["a", "b", None], dtype=object), n,
                                       p=[0.5, 0.45, 0.05]),
                       "h": rng.choice([1, 2], n), "y": rng.choice([0.0, 1.0], n), "s": s})
    df.loc[rng.random(n) < 0.02, "y"] = np.nan
    df.loc[rng.random(n) < 0.02, "s"] = np.nan
    animals = df.assign(y=df["y"].map({0.0: "cat", 1.0: "dog"}))
    cases = [(df, {"group": "g"}), (df, {"group": ["g", "h"], "where": "h = 1 OR s > 0"}),
             (animals, {"group": "g", "pos_label": "dog"})]
    for data, kw in cases:
        rows = score_histograms(data, label="y", score="s", **kw)
        assert rows.collected_bytes > 20_000  # every row came back
        monkeypatch.setattr(scores_engine, "ROWS_READ", 100)  # fewer than the rows
        grouped = score_histograms(data, label="y", score="s", **kw)
        monkeypatch.undo()
        assert grouped.collected_bytes < rows.collected_bytes
        same_counts(rows, grouped)
        assert max(int(c["pos"].max()) for c in rows.cells.values()) > 3
    # the sums are, bit for bit, SQL's sums on one thread (added one row at a time) of
    # each (group, label, score), the two labels' added; on both paths
    import duckdb

    con = duckdb.connect(config={"threads": 1})
    con.register("df", df)
    sql = con.sql("SELECT g, y, s, sum(s) AS t, sum(s * s) AS tt FROM df WHERE g IS NOT NULL "
                  "AND y IS NOT NULL AND s IS NOT NULL AND NOT isnan(s) GROUP BY ALL").df()
    con.close()
    for read in (None, 100):
        if read is not None:
            monkeypatch.setattr(scores_engine, "ROWS_READ", read)
        got = score_histograms(df, group="g", label="y", score="s")
        monkeypatch.undo()
        for g in ("a", "b"):
            cell = got.cells[g]
            part = sql[sql["g"] == g]
            # per label (positive, negative): SQL's sums and sums of squares per value
            sums, squares = ([part[part["y"] == k].set_index("s")[t].reindex(
                cell["values"], fill_value=0.0).to_numpy() for k in (1.0, 0.0)]
                for t in ("t", "tt"))
            assert np.array_equal(cell["pos_score_sum"], 0.0 + sums[0])
            assert np.array_equal(cell["score_sum"], sums[0] + sums[1])
            assert np.array_equal(cell["score_sq_sum"], squares[0] + squares[1])
    # and the values of one group's histogram are its distinct scores, zero as +0.0
    h = histograms_from_counts(score_histograms(df, group="g", label="y", score="s"))["a"]
    kept = df[(df["g"] == "a") & df["y"].notna() & df["s"].notna()]
    assert h.values.tolist() == sorted(set(kept["s"].tolist()))
    zero = h.values[h.values == 0]
    assert len(zero) == 1 and not np.signbit(zero[0])


def test_text_files_above_text_bytes_go_to_the_group_by(tmp_path, monkeypatch):
    # a CSV's rows are not counted (that would parse it twice): a small one is read row by
    # row, one above TEXT_BYTES goes to the GROUP BY; the same histograms either way
    path = tmp_path / "s.csv"
    scored(3000, seed=5).to_csv(path, index=False)
    read = []
    rows_query = scores_engine._rows_query
    monkeypatch.setattr(scores_engine, "_rows_query",
                        lambda *a, **k: read.append(1) or rows_query(*a, **k))
    rows = score_histograms(path, group="g", label="y", score="s")
    assert read == [1]
    monkeypatch.setattr(scores_engine, "TEXT_BYTES", path.stat().st_size - 1)
    grouped = score_histograms(path, group="g", label="y", score="s")
    assert read == [1]  # not read row by row
    same_counts(rows, grouped)
    # a glob that matches nothing is not sized as small: the engine names the problem
    with pytest.raises(FairboundError):
        score_histograms(tmp_path / "none*.csv", group="g", label="y", score="s")


@pytest.mark.parametrize("terms", [0, 1, 2, 3, 4, 5, 7, 10, 37])
def test_repeated_sum_adds_one_term_at_a_time(terms):
    rng = np.random.default_rng(terms)
    v = np.concatenate([rng.normal(size=200) * 10.0 ** rng.integers(-5, 5, 200),
                        [0.1, 1 / 3, -0.0, 0.0, 1e308]])
    m = np.full(len(v), terms)
    m[::3] = rng.integers(0, 9, len(m[::3]))
    want = []
    for x, k in zip(v.tolist(), m.tolist(), strict=True):
        total = 0.0  # as SQL's sum: from 0, one term at a time
        for _ in range(k):
            total += x
        want.append(total)
    got = scores_engine._repeated_sum(v, m)
    assert got.tolist() == want  # == on floats: bit for bit, but for the sign of 0
    assert np.array_equal(np.signbit(got), np.signbit(np.array(want)))


def test_memory_is_the_bins_not_the_rows(tmp_path):
    import duckdb

    path = tmp_path / "big.parquet"
    duckdb.sql(f"""COPY (SELECT CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS g,
                   CAST(hash(i) % 2 AS INTEGER) AS y,
                   (hash(i, 7) % 1000000) / 1000000.0 AS s FROM range(300000) t(i))
                   TO '{path}' (FORMAT parquet)""")
    out = score_histograms(path, group="g", label="y", score="s", bins=50)
    assert out.n_rows == 300_000
    assert all(len(c["values"]) == 50 for c in out.cells.values())
    assert out.collected_bytes < 20_000


@pytest.mark.parametrize(("kwargs", "param", "text"), [
    ({"score": "nope"}, "score", "score: column 'nope' not found"),
    ({"score": "g"}, "score", "expected numbers"),
    ({"label": "nope"}, "label", "label: column 'nope' not found"),
    ({"group": "nope"}, "group", "group: column 'nope' not found"),
    ({"group": []}, "group", "group must be"),
    ({"label": "s"}, "label", "fractional values"),
    ({"label": "txt"}, "pos_label", "give pos_label"),
    ({"label": "txt", "pos_label": "maybe"}, "pos_label", "'maybe' matches no value"),
    ({"bins": 0}, "bins", "got 0"),
    ({"bins": [0.2, 0.5]}, "bins", "below the edges"),
    ({"bins": [0.5, 0.2]}, "bins", "strictly increasing"),
    ({"score": "s * 1e300", "bins": 100}, "bins", "too large"),
    ({"score": "s / 0"}, "score", "infinite values"),
    ({"score": "s / 0", "bins": 10}, "score", "infinite values"),
    ({"score": "s / 0", "bins": [0, 1]}, "bins", "above the edges"),
    ({"where": 3}, "where", "where must be"),
])
def test_bad_inputs_are_one_line(kwargs, param, text):
    df = pd.DataFrame({"g": ["a", "b", "a", "b"], "y": [0, 1, 1, 0],
                       "s": [0.1, 0.4, 0.35, 0.8], "txt": ["x", "z", "z", "x"]})
    args = {"group": "g", "label": "y", "score": "s", **kwargs}
    with pytest.raises(FairboundError, match=text) as info:
        score_histograms(df, **args)
    assert info.value.param == param
    assert "\n" not in str(info.value)


def test_bad_files(tmp_path):
    with pytest.raises(FairboundError, match="file not found") as info:
        score_histograms(tmp_path / "none.csv", group="g", label="y", score="s")
    assert info.value.param == "data"
    bad = tmp_path / "ragged.csv"
    bad.write_text("g,y,s\na,1,0.5\nb,0\n")
    with pytest.raises(FairboundError, match="line 3") as info:
        score_histograms(bad, group="g", label="y", score="s")
    assert info.value.param == "data"


def test_the_engine_does_not_import_the_statistics():
    source = Path(__file__).resolve().parents[2] / "src" / "fairbound" / "engines" / "scores.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert not {m for m in imported if m.startswith("fairbound.stats")}
    assert {m for m in imported if m.startswith("fairbound")} <= {
        "fairbound.errors", "fairbound._validate", "fairbound.labels", "fairbound.engines.base",
        "fairbound.engines.assemble", "fairbound.engines.duckdb_engine",
        "fairbound.engines.spark", "fairbound.engines.sql"}
