"""Bad or impossible inputs get one-line errors naming the culprit (counts API, costs, files)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound._io import write_text_atomic
from fairbound.errors import FairboundError
from fairbound.stats import GroupStats, difference_interval

OK = GroupStats.from_counts(50, 10)


@pytest.mark.parametrize(("n", "k", "match"), [
    (10, 11, "cost_count must be at most n = 10; got 11"),
    (10, -1, "cost_count must be a non-negative whole number; got -1"),
    (10.5, 3, "n must be a non-negative whole number; got 10.5"),
    (float("nan"), 3, "n must be a non-negative whole number; got nan"),
    (10, float("inf"), "cost_count must be a non-negative whole number; got inf"),
])
def test_impossible_counts_are_refused(n, k, match):
    with pytest.raises(FairboundError, match=match):
        GroupStats.from_counts(n, k)


@pytest.mark.parametrize(("costs", "match"), [
    ([0.1, float("inf")], "costs must be finite numbers in \\[0, 1\\]; got inf"),
    ([0.1, float("nan")], "got nan"),
    ([0.1, 1.5], "got 1.5"),
    ([-0.2, 0.5], "got -0.2"),
])
def test_impossible_costs_are_refused(costs, match):
    with pytest.raises(FairboundError, match=match):
        GroupStats.from_costs(costs)


@pytest.mark.parametrize(("stats", "match"), [
    (GroupStats(n=10, total=12.0, total_sq=12.0), "costs above cost_max"),
    (GroupStats(n=10, total=float("nan"), total_sq=1.0), "must be finite"),
    (GroupStats(n=10, total=float("inf"), total_sq=1.0), "must be finite"),
    (GroupStats(n=-3, total=0.0, total_sq=0.0), "must be non-negative"),
])
def test_difference_interval_refuses_impossible_statistics(stats, match):
    with pytest.raises(FairboundError, match=match):
        difference_interval(stats, OK, method="newcombe")


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_cost_column_is_refused(bad):
    df = pd.DataFrame({"g": ["a"] * 5 + ["b"] * 5, "c": [0.1, 0.2, bad, 0.3, 0.1] + [0.2] * 5})
    with pytest.raises(FairboundError, match=r"cost: column 'c' has the non-finite value"):
        fairbound.audit(df, group="g", cost="c")


def test_atomic_writes_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        p = write_text_atomic(tmp_path / "x.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o644


def test_audited_database_views_cannot_read_files(tmp_path, monkeypatch):
    import duckdb

    secret = tmp_path / "secret.csv"
    secret.write_text("g,y,p\na,1,1\nb,0,1\na,0,0\nb,1,1\n")
    db = tmp_path / "third_party.duckdb"
    con = duckdb.connect(str(db))
    con.execute(f"CREATE VIEW v AS SELECT * FROM read_csv('{secret}')")
    con.close()
    monkeypatch.delenv("FAIRBOUND_ALLOW_EXTERNAL_ACCESS", raising=False)
    with pytest.raises(FairboundError, match="views read files.*FAIRBOUND_ALLOW_EXTERNAL_ACCESS"):
        fairbound.audit(str(db), group="g", label="y", prediction="p")
    monkeypatch.setenv("FAIRBOUND_ALLOW_EXTERNAL_ACCESS", "1")
    res = fairbound.audit(str(db), group="g", label="y", prediction="p", method="newcombe")
    assert res.n_rows == 4


def test_too_many_comparisons_are_refused_before_computing():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.integers(0, 2000, 20_000), "y": rng.integers(0, 2, 20_000),
                       "p": rng.integers(0, 2, 20_000)})
    with pytest.raises(FairboundError, match=r"makes [\d,]+ comparisons \(limit 10,000\); "
                                             r"use comparison='vs-rest'"):
        fairbound.audit(df, group="g", label="y", prediction="p")
    with pytest.raises(FairboundError, match="max_comparisons must be a positive whole"):
        fairbound.audit(df, group="g", label="y", prediction="p", max_comparisons=0)


def test_where_that_selects_nothing_names_the_condition():
    df = pd.DataFrame({"g": ["a", "b"] * 5, "y": [0, 1] * 5, "p": [1, 0] * 5, "s": ["x"] * 10})
    with pytest.raises(FairboundError, match=r"where: the condition \"s = 'test'\" selects none "
                                             r"of the 10 rows"):
        fairbound.audit(df, group="g", label="y", prediction="p", where="s = 'test'")


@pytest.mark.parametrize(("kw", "match"), [
    ({"group": 5}, "group must be a column name or a list of them; got 5"),
    ({"group": "g", "prediction": np.array([1, 0])}, "prediction must be a column name .* got "
                                                     "ndarray"),
    ({"group": "g", "label": 3}, "label must be a column name .* got int 3"),
])
def test_python_api_type_errors_are_one_line(kw, match):
    df = pd.DataFrame({"g": ["a", "b"], "y": [0, 1], "p": [1, 0]})
    kw = {"label": "y", "prediction": "p", **kw}
    with pytest.raises(FairboundError, match=match):
        fairbound.audit(df, **kw)
