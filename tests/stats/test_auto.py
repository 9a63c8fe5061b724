"""``method="auto"``: which method runs, from the kind of costs and the sizes only."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.audits import required_total_n
from fairbound.stats import GroupStats, difference_interval
from fairbound.stats.auto import UNION_RATIO, resolve_method, union_applies


def _name(a, b):
    return resolve_method("auto", a, b).name


def test_the_rule_is_a_ratio_of_the_sizes_either_way_round():
    k = UNION_RATIO
    assert k == 3000  # benchmarks/results/exact_union_widths.txt, docs/which_interval.md
    for small in (1, 7, 100, 12_345):
        assert union_applies(small, k * small) and union_applies(k * small, small)
        assert not union_applies(small, k * small - 1)
        assert not union_applies(k * small - 1, small)
    assert not union_applies(0, 10**9) and not union_applies(10**9, 0)


def test_auto_never_reads_the_counts():
    rng = np.random.default_rng(5)
    for na, nb in [(10, 30_000), (10, 29_999), (300, 900_000), (300, 899_999), (50, 60)]:
        names = {_name(GroupStats.from_counts(na, int(rng.integers(0, na + 1))),
                       GroupStats.from_counts(nb, int(rng.integers(0, nb + 1))))
                 for _ in range(6)}
        assert names == {"exact-union" if union_applies(na, nb) else "exact"}, (na, nb)
    # fractional costs: betting whatever the sizes
    x = GroupStats.from_costs(rng.uniform(0, 1, 5))
    y = GroupStats.from_costs(rng.uniform(0, 1, 5 * UNION_RATIO))
    assert _name(x, y) == "betting"


def test_auto_gives_the_interval_of_the_method_it_names():
    for (ka, na), (kb, nb) in [((3, 10), (9_000, 30_000)), ((3, 10), (9_000, 29_999))]:
        a, b = GroupStats.from_counts(na, ka), GroupStats.from_counts(nb, kb)
        want = "exact-union" if nb >= UNION_RATIO * na else "exact"
        assert _name(a, b) == want
        got = difference_interval(a, b, method="auto", confidence_level=0.99)
        assert got == difference_interval(a, b, method=want, confidence_level=0.99)


def test_autos_plan_on_the_union_side_is_the_union_plan():
    a = GroupStats.from_counts(40, 20)
    b = GroupStats.from_counts(40 * UNION_RATIO, 30 * UNION_RATIO)
    auto = required_total_n(a, b, method="auto", confidence_level=0.95)
    named = required_total_n(a, b, method="exact-union", confidence_level=0.95)
    assert math.isfinite(auto) and abs(auto - named) <= max(1.0, 1e-8 * named)


def _frame(n_small: int, n_large: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = n_small + n_large
    return pd.DataFrame({"g": ["s"] * n_small + ["L"] * n_large,
                         "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})


@pytest.mark.parametrize("n_large,want", [(10 * UNION_RATIO, "exact-union"),
                                          (10 * UNION_RATIO - 1, "exact")])
def test_a_default_vs_rest_audit_switches_exactly_at_the_rule(n_large, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the group of 10 is reported as small
        res = fairbound.audit(_frame(10, n_large), group="g", label="y", prediction="p",
                              metrics="demographic_parity", comparison="vs-rest")
    assert len(res.comparisons) == 2
    for c in res.comparisons:
        assert c.method == want and union_applies(c.a.n, c.b.n) == (want == "exact-union")
        assert c.to_dict()["method"] == want
        assert (c.low, c.high) == difference_interval(c.a, c.b, method=want,
                                                      confidence_level=c.interval_level)
