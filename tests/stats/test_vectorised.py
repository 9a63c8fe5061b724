"""Every vectorised interval method agrees with its one-at-a-time form, entry by entry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairbound.audits import required_total_n
from fairbound.errors import FairboundError
from fairbound.stats import INTERVAL_METHODS, GroupStats, NotEstimable, difference_interval
from fairbound.stats.vectorised import StatsArrays, intervals_many, required_n_many

VECTORISED = sorted(k for k, m in INTERVAL_METHODS.items() if m.vectorised is not None)


def _groups(seed: int, m: int, binary: bool):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(m):
        n = int(rng.choice([1, 2, 3, 10, 57, 400, 10_000]))
        if binary:
            out.append(GroupStats.from_counts(n, int(rng.integers(0, n + 1)), cost_max=2.0))
        else:
            out.append(GroupStats.from_costs(rng.beta(1.5, 6.0, n) * 2.0, cost_max=2.0))
    return out


def test_the_closed_form_methods_have_a_vectorised_form():
    assert {"wald", "agresti-caffo", "newcombe", "welch", "exact"} <= set(VECTORISED)


@pytest.mark.parametrize("method", VECTORISED)
@pytest.mark.parametrize("binary", [True, False])
def test_vectorised_equals_one_at_a_time(method, binary):
    if INTERVAL_METHODS[method].binary_only and not binary:
        pytest.skip("0/1 costs only")
    a, b = _groups(1, 60, binary), _groups(2, 60, binary)
    for level in (0.95, 1 - 0.05 / 40):
        lo, hi = intervals_many(method, StatsArrays.from_stats(a), StatsArrays.from_stats(b),
                                level)
        need = required_n_many(method, StatsArrays.from_stats(a), StatsArrays.from_stats(b),
                               level)
        for i, (ga, gb) in enumerate(zip(a, b, strict=True)):
            try:
                want = difference_interval(ga, gb, method=method, confidence_level=level)
            except NotEstimable:
                assert math.isnan(lo[i]) and math.isnan(hi[i])
                continue
            assert lo[i] == pytest.approx(want[0], rel=1e-12, abs=1e-12)
            assert hi[i] == pytest.approx(want[1], rel=1e-12, abs=1e-12)
            plan = required_total_n(ga, gb, method=method, confidence_level=level)
            if math.isfinite(plan):
                assert abs(need[i] - plan) <= max(1.0, 1e-8 * plan), (i, need[i], plan)
            else:
                assert need[i] == plan or (math.isnan(need[i]) and math.isnan(plan))


def test_methods_without_a_vectorised_form_and_bad_inputs_are_refused():
    a = StatsArrays.from_stats([GroupStats.from_counts(10, 3)])
    with pytest.raises(FairboundError, match="no vectorised form"):
        intervals_many("betting", a, a)
    with pytest.raises(FairboundError, match="same length"):
        intervals_many("wald", a, StatsArrays.from_stats([GroupStats.from_counts(5, 1)] * 2))
    with pytest.raises(FairboundError, match="stats\\[0\\]"):
        StatsArrays.from_stats([(10, 3)])
    frac = StatsArrays.from_stats([GroupStats.from_costs([0.2, 0.5])])
    with pytest.raises(FairboundError, match="0/1 costs"):
        intervals_many("newcombe", frac, frac)
