"""The comparisons of an audit: one explicit interval cache per audit."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairbound
from fairbound.stats import exact as E
from fairbound.stats.exact import SHARED, IntervalCache, using


def _data(n=160, seed=3):
    rng = np.random.default_rng(seed)
    g = np.where(rng.random(n) < 0.5, "a", "b")
    y = (rng.random(n) < 0.5).astype(int)
    p = (rng.random(n) < np.where(g == "a", 0.6, 0.35)).astype(int)
    return g, y, p


def _audit(**kw):
    g, y, p = _data()
    return fairbound.audit(group=g, label=y, prediction=p,
                           metrics=["demographic_parity", "equal_opportunity"], **kw)


def test_an_audit_uses_its_own_cache_and_leaves_the_shared_one_alone(monkeypatch):
    E.clear_cache()
    searched = []
    search = E.interval._search

    def counting(tab, alpha, tol=1e-3):
        searched.append((tab.ka, tab.na, tab.kb, tab.nb, alpha))
        return search(tab, alpha, tol)

    monkeypatch.setattr(E.interval, "_search", counting)
    first = _audit()
    assert len(SHARED) == 0
    # every distinct table searched once; a second audit searches them again (no state
    # carried over from the first), and gets the same numbers
    assert len(searched) == len(set(searched)) == len(first.comparisons)
    second = _audit()
    assert len(searched) == 2 * (len(first.comparisons))
    assert [(c.low, c.high) for c in first.comparisons] == [
        (c.low, c.high) for c in second.comparisons]


def test_an_active_cache_receives_the_audits_intervals_and_is_read_back(monkeypatch):
    E.clear_cache()
    c = IntervalCache()
    with using(c):
        first = _audit()
    assert len(c) == len(first.comparisons) and len(SHARED) == 0

    def no_search(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(E.interval, "_search", no_search)
    with using(c):
        again = _audit()
    assert [(x.low, x.high) for x in again.comparisons] == [
        (x.low, x.high) for x in first.comparisons]


def _same(x, y) -> bool:
    """Equal field by field, NaN equal to NaN, floats by value and type."""
    if isinstance(x, float) and isinstance(y, float):
        return (math.isnan(x) and math.isnan(y)) or x == y
    return type(x) is type(y) and x == y


def _rows_vs_rest(n_groups=120, seed=4):
    """vs-rest rows of two metrics (one with a caveat note), small and empty groups too."""
    from fairbound.audits.gaps.comparison import _StatRow
    from fairbound.metrics import METRICS
    from fairbound.stats import GroupStats

    rng = np.random.default_rng(seed)
    n = rng.integers(0, 400, n_groups)
    n[:3] = [0, 5, 29]                        # empty (not estimable) and small groups
    k = rng.binomial(n, rng.uniform(0.2, 0.6, n_groups))
    rows = []
    for name in ("demographic_parity", "equalized_odds_cost"):
        metric = METRICS[name]
        for g in range(n_groups):
            rows.append(_StatRow(metric, metric.components[0], None, f"g{g}", "rest",
                                 GroupStats.from_counts(int(n[g]), int(k[g])),
                                 GroupStats.from_counts(int(n.sum() - n[g]),
                                                        int(k.sum() - k[g]))))
    return rows


@pytest.mark.parametrize("tolerance", [None, 0.1])
def test_comparisons_made_on_arrays_are_what_compare_makes(monkeypatch, tolerance):
    # verdicts, notes, plans and parity plans of the comparisons whose intervals come on
    # arrays: field for field what _compare makes from the same interval and plan
    from fairbound.audits.gaps import comparison as C
    from fairbound.stats import get_method

    need_many = C.required_n_many

    def some_at_the_edge(m, a, b, level):      # a plan not above the current n
        need = need_many(m, a, b, level)
        need[::7] = 1.0
        return need

    monkeypatch.setattr(C, "required_n_many", some_at_the_edge)
    parity = C.required_parity_n
    monkeypatch.setattr(C, "required_parity_n", lambda *a, **kw: parity(*a, **kw) + 1e6)
    rows = _rows_vs_rest()
    newcombe = get_method("newcombe")
    comps, m = C._build_from_stats(rows, method=newcombe, confidence_level=0.9, seed=3,
                                   options={}, error_control="none", tolerance=tolerance)
    items = C._Items(rows, newcombe)
    done, lo, hi, need = C._vectorised(items, [0.9] * len(items), {})
    assert done.sum() > 200 and not done.all() and m == len(rows) - 2
    notes = set()
    for k, (c, r) in enumerate(zip(comps, rows, strict=True)):
        metric, name, rate, ric = C._row_parts(r)
        want = C._compare(metric, name, rate, ric, r.cls, r.group_a, r.group_b, r.a, r.b,
                          method=newcombe, family_level=0.9, interval_level=0.9, seed=3,
                          options={}, tolerance=tolerance,
                          pre=(float(lo[k]), float(hi[k]), float(need[k])) if done[k] else None)
        assert list(vars(c)) == list(C._FIELDS)
        assert all(_same(getattr(c, f), getattr(want, f)) for f in C._FIELDS), (c, want)
        notes.add(c.note)
    assert any("edge" in t for t in notes) and any("small group" in t for t in notes)
    assert any("zero-one" in t for t in notes)
    if tolerance is not None:   # parity plans capped at the current n where shown
        assert any(c.verdict == "no meaningful gap" and c.required_n_parity == c.a.n + c.b.n
                   for c in comps)


@pytest.mark.parametrize("error_control", ["family", "fdr"])
def test_exact_comparisons_on_arrays_equal_those_made_one_at_a_time(error_control):
    # 'exact' has an array form (the cache read after the batched search, its planner on
    # arrays): every field of every comparison equals the one-at-a-time build's
    from fairbound.audits.gaps import comparison as C
    from fairbound.audits.gaps.comparison import _StatRow
    from fairbound.metrics import METRICS
    from fairbound.stats import GroupStats, get_method

    rng = np.random.default_rng(11)
    n = rng.integers(15_000, 40_000, 70)
    n[:3] = [0, 12, 40]             # empty, and small groups (auto: exact-union)
    k = rng.binomial(n, rng.uniform(0.3, 0.5, n.size))
    metric = METRICS["demographic_parity"]
    rows = [_StatRow(metric, metric.components[0], None, f"g{g}", "rest",
                     GroupStats.from_counts(int(n[g]), int(k[g])),
                     GroupStats.from_counts(int(n.sum() - n[g]), int(k.sum() - k[g])))
            for g in range(n.size)]
    args = dict(method=get_method("auto"), confidence_level=0.95, seed=0, options={},
                error_control=error_control)
    items = C._Items(rows, args["method"])
    exact = [m is not None and m.name == "exact" for m in items.method]
    assert sum(exact) == n.size - 3
    assert (C._vectorised(items, [0.99] * len(items), {})[0] == exact).all()
    fast, m = C._build_from_stats(rows, **args)
    try:
        C.VECTOR_MIN = 10**9
        slow, m_slow = C._build_from_stats(rows, **args)
    finally:
        C.VECTOR_MIN = 64
    assert m == m_slow == n.size - 1 and {c.method for c in fast} >= {"exact", "exact-union"}
    assert any(c.verdict in ("A disadvantaged", "B disadvantaged") for c in fast)
    for f, s in zip(fast, slow, strict=True):
        assert all(_same(getattr(f, x), getattr(s, x)) for x in C._FIELDS), (f, s)


def test_a_comparison_made_without_init_is_the_one_init_makes():
    import pickle
    from dataclasses import replace

    from fairbound.audits.gaps.comparison import _FIELDS, Comparison, _new

    values = dict(zip(_FIELDS, ["demographic_parity", "selection_rate", "selection rate",
                                None, "a", "rest", None, None, 0.1, -0.02, 0.2, 0.95, 0.99,
                                "newcombe", "asymptotic", "not enough evidence", 812.0, "",
                                False, 0, (), 0.05, 900.0], strict=True))
    fast, slow = _new(dict(values)), Comparison(**values)
    assert fast == slow and repr(fast) == repr(slow) and list(vars(fast)) == list(vars(slow))
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert replace(fast, low=-0.5).low == -0.5 and fast.low == -0.02
    with pytest.raises(AttributeError):
        fast.low = 3.0


def test_fdr_on_arrays_keeps_the_last_build_and_counts_its_discoveries():
    # fdr builds several times on arrays, making Comparison objects only for the build it
    # keeps; the result equals the one computed one comparison at a time
    from fairbound.audits.gaps import comparison as C
    from fairbound.stats import get_method

    rows = _rows_vs_rest(200, seed=9)
    args = dict(method=get_method("wald"), confidence_level=0.95, seed=0, options={},
                error_control="fdr")
    fast, m = C._build_from_stats(rows, **args)
    made = []
    new = C._new
    try:
        C.VECTOR_MIN = 10**9
        C._new = lambda v: made.append(1) or new(v)
        slow, m_slow = C._build_from_stats(rows, **args)
    finally:
        C.VECTOR_MIN, C._new = 64, new
    assert m == m_slow and len(made) >= len(rows)
    found = sum(c.verdict in ("A disadvantaged", "B disadvantaged") for c in fast)
    assert 0 < found < len(rows)
    assert {c.interval_level for c in fast} == {1 - found * 0.05 / m}
    for f, s in zip(fast, slow, strict=True):
        assert (f.group_a, f.verdict, f.note, f.interval_level) == (s.group_a, s.verdict,
                                                                    s.note, s.interval_level)
        np.testing.assert_allclose([f.low, f.high], [s.low, s.high], rtol=1e-12, atol=1e-14)
