"""The builder's rows of counts on arrays: the statistics ``GroupStats.from_counts`` makes."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import fairbound
from fairbound.audits.gaps import build as B
from fairbound.audits.pairing import pairs
from fairbound.errors import FairboundError
from fairbound.metrics import METRICS
from fairbound.stats import GroupStats


def _stats(s: GroupStats):
    return (s.n, type(s.n), s.total, s.total_sq, s.cost_max, s.binary, s.sample,
            s.sample_complete)


@pytest.mark.parametrize("comparison", ["pairwise", "vs-rest", "vs-reference"])
@pytest.mark.parametrize("favourable", ["positive", "negative"])
def test_rows_on_arrays_equal_from_counts_one_by_one(comparison, favourable):
    rng = np.random.default_rng(2)
    groups = ["a", "rest", 3, ("x", 1)]      # a group called "rest" is compared as before
    conf = rng.integers(0, 40, (len(groups), 3, 3))
    conf[1] = 0                                # a group without rows
    compared = pairs(groups, comparison, 3 if comparison == "vs-reference" else None)
    for name in ("equalized_odds", "predictive_parity", "accuracy_parity"):
        mm = METRICS[name]
        rows = B._confusion_rows(mm, conf, groups, compared, [0, 1, 2], [1, 2],
                                 multiclass=True, favourable=favourable)
        index = {g: i for i, g in enumerate(groups)}
        want = []
        for comp in (B.oriented(c, favourable) for c in mm.components):
            for k in ([1, 2] if comp.per_class else [None]):
                n, cnt = comp.counts(conf, k if k is not None else 0)
                a, b = B._pair_counts_one_by_one(n, cnt, compared, index)
                want += [(comp.name, k if comp.per_class else None, ga, gb, _stats(x),
                          _stats(y)) for (ga, gb), x, y in zip(compared, a, b, strict=True)]
        got = [(r.component.name, r.cls, r.group_a, r.group_b, _stats(r.a), _stats(r.b))
               for r in rows]
        assert got == want


def test_counts_that_are_not_whole_or_not_counts_go_one_by_one():
    ia, ib, rest = np.array([0, 1]), np.array([1, 0]), np.array([False, True])
    assert B._pair_counts(np.array([4.0, 5.0]), np.array([1.0, 2.0]), ia, ib, rest) is None
    assert B._pair_counts(np.array([4, 5]), np.array([5, 2]), ia, ib, rest) is None
    with pytest.raises(FairboundError, match="cost_count must be at most n = 4"):
        B._pair_counts_one_by_one(np.array([4, 5]), np.array([5, 2]), [(0, 1)], {0: 0, 1: 1})
    a, b = B._pair_counts(np.array([4, 5]), np.array([1, 2]), ia, ib, rest)
    assert [_stats(s) for s in a + b] == [_stats(GroupStats.from_counts(n, k))
                                          for n, k in ((4, 1), (5, 2), (5, 2), (4, 1))]
    assert a[1] is b[0]                        # equal counts share one frozen object


def test_an_audit_pauses_the_collector_and_restores_it():
    seen = []
    build_rows = B._build_from_stats

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return build_rows(*args, **kwargs)

    df = {"g": ["a", "b"] * 20, "y": [0, 1, 1, 0] * 10, "p": [1, 1, 0, 0] * 10}
    was = gc.isenabled()
    try:
        B._build_from_stats = spy
        gc.enable()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fairbound.audit(df, group="g", label="y", prediction="p", method="newcombe")
        assert seen == [False] and gc.isenabled()
        gc.disable()                           # a caller's choice is kept
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fairbound.audit(df, group="g", label="y", prediction="p", method="newcombe")
        assert seen == [False, False] and not gc.isenabled()
    finally:
        B._build_from_stats = build_rows
        (gc.enable if was else gc.disable)()


def test_zero_one_costs_stay_binary_when_groups_exceed_the_sample():
    # a group above sample_size keeps only part of its costs; the moments still show that
    # every cost is 0 or C (sum of squares = C * sum), so auto runs the exact interval as
    # with the whole sample, and a few costs of 0.5 the sample misses still count
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 2000),
                       "c": (rng.random(2000) < 0.3).astype(float)})
    whole = fairbound.audit(df, group="g", cost="c").comparisons[0]
    part = fairbound.audit(df, group="g", cost="c", sample_size=100).comparisons[0]
    assert whole.method == part.method == "exact"
    assert (part.low, part.high) == (whole.low, whole.high)
    df.loc[df.index[:20], "c"] = 0.5
    assert fairbound.audit(df, group="g", cost="c",
                           sample_size=100).comparisons[0].method == "betting"
